import fastifyCookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { testPaymentReference } from '../../adapters/payments/test-payments.ts';
import type { Db } from '../../db/client.ts';
import { getMenu } from '../../domain/menu/menu.service.ts';
import { GuestOrderSchema } from '../../domain/orders/order.schema.ts';
import { PlacedOrderSchema, PlaceOrderInputSchema } from '../../domain/orders/order-placement.schema.ts';
import { placeOrder } from '../../domain/orders/order-placement.service.ts';
import type { PaymentProvider } from '../../domain/payments/payment-provider.ts';
import {
  guestOrderByKey,
  orderByGuestKey,
  recordPaymentOutcome,
  startPayment,
} from '../../domain/payments/payments.service.ts';
import type { Clock, Ctx } from '../../domain/shared/context.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import type { Limiters } from '../../domain/shared/limits.ts';
import { writeTransaction } from '../../domain/shared/write-collisions.ts';
import { getStore } from '../../domain/store/store.service.ts';
import { guestLimiters } from './guest-limits.ts';
import { type StorefrontHosts, storefrontAddress } from './storefront-address.ts';
import { storefrontVisitors } from './storefront-visitors.ts';

export interface StorefrontOptions {
  db: Db;
  clock: Clock;
  config: StorefrontHosts;
  limiters: Limiters;
  /** Takes online payments of live restaurants; test restaurants always use the test provider. */
  payments: PaymentProvider;
  testPayments: PaymentProvider;
}

const Slug = Type.Object(
  { slug: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
const SlugAndKey = Type.Object(
  { slug: Type.String({ minLength: 1, maxLength: 100 }), key: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

/**
 * The guests' JSON API under `/s/{slug}/api` (docs/storefront.md), what the storefront's pages use
 * and a script acting as a guest may call:
 * - the store and its menu; placing an order (201 with the guest's key, shown once; within the
 *   guest limits, guest-limits.ts: else 429 rate_limited with Retry-After); the order by
 *   that key; starting its online payment; confirming or failing a test payment;
 * - a test restaurant has no guests: its storefront answers only its own developers (signed in to
 *   the console), and everyone else finds nothing (404).
 */
export async function storefrontApiPlugin(app: FastifyInstance, options: StorefrontOptions): Promise<void> {
  const { db, clock } = options;
  const secure = options.config.baseUrl.startsWith('https:');
  await app.register(fastifyCookie);
  const restaurantOf = storefrontVisitors(db, clock, options.limiters, secure);
  const limits = guestLimiters(options.limiters);

  /** The guest's ctx in the restaurant the slug names, as the request may see it (404 otherwise). */
  async function guestCtx(request: FastifyRequest): Promise<Ctx & { livemode: boolean }> {
    const restaurant = await restaurantOf(request, (request.params as { slug: string }).slug);
    if (!restaurant) throw new ApiError('not_found', 'No restaurant at this address.');
    return {
      db,
      clock,
      tenantId: restaurant.id,
      actor: { kind: 'guest' },
      storefront: storefrontAddress(options.config, restaurant.slug),
      livemode: restaurant.livemode,
    };
  }

  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const providerFor = (livemode: boolean) => (livemode ? options.payments : options.testPayments);

  typed.get('/s/:slug/api/store', { schema: { params: Slug } }, async (request) => {
    const ctx = await guestCtx(request);
    return {
      object: 'storefront',
      livemode: ctx.livemode,
      store: await getStore(ctx),
      menu: await getMenu(ctx),
    };
  });

  typed.post(
    '/s/:slug/api/orders',
    { schema: { params: Slug, body: PlaceOrderInputSchema, response: { 201: PlacedOrderSchema } } },
    async (request, reply) => {
      const ctx = await guestCtx(request);
      const placed = await limits.order(request, ctx, request.body, () =>
        writeTransaction(db, (trx) => placeOrder({ ...ctx, db: trx }, request.body)),
      );
      reply.code(201);
      return placed;
    },
  );

  typed.get(
    '/s/:slug/api/orders/:key',
    { schema: { params: SlugAndKey, response: { 200: GuestOrderSchema } } },
    async (request) => {
      const ctx = await guestCtx(request);
      return guestOrderByKey(ctx, request.params.key);
    },
  );

  typed.post('/s/:slug/api/orders/:key/payment', { schema: { params: SlugAndKey } }, async (request) => {
    const ctx = await guestCtx(request);
    return startPayment(ctx, providerFor(ctx.livemode), request.params.key);
  });

  typed.post(
    '/s/:slug/api/orders/:key/payment/test',
    {
      schema: {
        params: SlugAndKey,
        body: Type.Object(
          { outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const ctx = await guestCtx(request);
      if (providerFor(ctx.livemode).name !== 'test')
        throw new ApiError('not_found', 'Payments here are real.');
      const row = await orderByGuestKey(ctx, request.params.key);
      const { outcome } = request.body;
      const known = await recordPaymentOutcome(
        db,
        clock,
        { provider: 'test', reference: testPaymentReference(row.id), tenantId: ctx.tenantId },
        outcome,
        (slug) => storefrontAddress(options.config, slug),
      );
      if (!known) throw new ApiError('invalid_request', 'Start the payment first.', { param: 'outcome' });
      return guestOrderByKey(ctx, request.params.key);
    },
  );
}
