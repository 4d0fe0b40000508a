import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { StripePayments } from '../../adapters/payments/stripe-payments.ts';
import type { Db } from '../../db/client.ts';
import { type PaymentOutcome, recordPaymentOutcome } from '../../domain/payments/payments.service.ts';
import type { Clock } from '../../domain/shared/context.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import { type StorefrontHosts, storefrontAddress } from '../storefront/storefront-address.ts';

/** What each PaymentIntent event Servery listens to means for the order's payment. */
const outcomes: Partial<Record<string, PaymentOutcome>> = {
  'payment_intent.succeeded': 'succeeded',
  'payment_intent.payment_failed': 'failed',
};

/*
 * `POST /payments/stripe/webhook`: Stripe's word on a payment, the only way a Stripe payment is
 * confirmed (docs/operators.md, Payments):
 * - the signature (Stripe-Signature, with the webhook secret) is checked over the body's exact
 *   bytes, so this plugin keeps the raw body instead of the app's JSON parser; a bad or missing
 *   one is a 400 and records nothing;
 * - payment_intent.succeeded pays the order, payment_intent.payment_failed leaves it waiting for
 *   another try; a delivery repeated by Stripe records once (recordPaymentOutcome);
 * - other events, and PaymentIntents Servery did not start (another system's on the same
 *   account), are acknowledged with 200 so that Stripe stops sending them.
 */
export async function stripeWebhookRoute(
  app: FastifyInstance,
  options: { db: Db; clock: Clock; stripe: StripePayments; config: StorefrontHosts },
): Promise<void> {
  app.removeContentTypeParser('application/json');
  // Stripe's events hold the whole PaymentIntent: more room than the API's 64 KiB.
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: 1024 * 1024 },
    (_request, body, done) => done(null, body),
  );

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/payments/stripe/webhook',
    {
      schema: {
        headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String()) }),
        response: { 200: Type.Object({ received: Type.Literal(true) }, { additionalProperties: false }) },
      },
    },
    async (request) => {
      const signature = request.headers['stripe-signature'];
      if (!Buffer.isBuffer(request.body) || !signature)
        throw new ApiError('invalid_request', 'A Stripe event signed with the webhook secret is required.');
      let event: ReturnType<StripePayments['verifiedEvent']>;
      try {
        event = options.stripe.verifiedEvent(request.body, signature);
      } catch {
        throw new ApiError('invalid_request', 'The Stripe-Signature does not match this body.');
      }
      const outcome = outcomes[event.type];
      if (outcome && event.data.object.object === 'payment_intent')
        await recordPaymentOutcome(
          options.db,
          options.clock,
          {
            provider: 'stripe',
            reference: event.data.object.id,
            tenantId: event.data.object.metadata?.tenant_id ?? null,
          },
          outcome,
          (slug) => storefrontAddress(options.config, slug),
        );
      return { received: true as const };
    },
  );
}
