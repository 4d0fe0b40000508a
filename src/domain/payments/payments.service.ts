import type { Db } from '../../db/client.ts';
import { recordEvent } from '../events/events.store.ts';
import { isLive } from '../menu/menu-writes.ts';
import { queueKitchenTicket } from '../orders/kitchen-printing.ts';
import type { GuestOrder } from '../orders/order.schema.ts';
import { queuePaidOrderEmail } from '../orders/order-emails.ts';
import {
  guestOrderOf,
  type OrderRecord,
  orderRecord,
  ordersQuery,
  productsOf,
  productsOnMenu,
  publicOrderOf,
} from '../orders/order-rows.ts';
import type { Clock, Ctx } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid, newId, sha256 } from '../shared/ids.ts';
import type { PaymentProvider, StartedPayment } from './payment-provider.ts';

/*
 * Online payments of orders:
 * - an online order waits for its payment ('awaiting'), seen only by its guest; starting the
 *   payment asks the provider once per order (again: the same payment), outside any transaction;
 * - a confirmed payment makes the order exist for the API: it is listed, `order.created` then
 *   `order.paid` are recorded, and its guest's confirmation mail is queued (order-emails.ts). A
 *   confirmation arriving twice (the provider retrying, a race of two deliveries) records once:
 *   the payment's row is locked and a succeeded payment stays so;
 * - a failed payment leaves the order waiting: the guest may try again until it expires;
 * - an order whose payment never came is abandoned after the payment window (no events: it never
 *   existed for the API). A payment confirmed after that still counts: the guest has paid.
 */

export interface GuestPayment {
  object: 'payment';
  provider: PaymentProvider['name'];
  reference: string;
  client_secret: string | null;
  publishable_key: string | null;
}

/**
 * The order a guest's key opens (the checkout's, or the one of its confirmation mail), in the
 * ctx's restaurant.
 */
export async function orderByGuestKey(ctx: Ctx, guestKey: string): Promise<OrderRecord> {
  const hash = sha256(guestKey);
  const record = await ordersQuery(ctx)
    .where((eb) => eb.or([eb('o.guest_key_hash', '=', hash), eb('o.mail_key_hash', '=', hash)]))
    .executeTakeFirst();
  if (!record) throw new ApiError('not_found', 'No order with this key.');
  return record;
}

/** The order a guest's key opens, as its guest sees it. */
export async function guestOrderByKey(ctx: Ctx, guestKey: string): Promise<GuestOrder> {
  const record = await orderByGuestKey(ctx, guestKey);
  return guestOrderOf(record, await productsOnMenu(ctx, productsOf([record])));
}

/** Starts the online payment of the guest's order at `provider` (ctx outside a transaction). */
export async function startPayment(
  ctx: Ctx,
  provider: PaymentProvider,
  guestKey: string,
): Promise<GuestPayment> {
  const order = await orderByGuestKey(ctx, guestKey);
  const tenantId = ctx.tenantId as string;
  if (order.payment_method !== 'online')
    throw new ApiError('invalid_request', 'This order is paid on site.', { param: 'payment_method' });
  if (order.payment_state !== 'awaiting')
    throw new ApiError(
      'invalid_transition',
      order.payment_state === 'paid'
        ? 'This order is paid already.'
        : 'This order expired unpaid: order again.',
    );
  const { name } = await ctx.db
    .selectFrom('restaurants')
    .select('name')
    .where('id', '=', tenantId)
    .executeTakeFirstOrThrow();
  const started: StartedPayment = await provider.start({
    tenantId,
    orderId: order.id,
    amount: order.total,
    currency: order.currency,
    description: `${name} ${order.code}`,
  });
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('order_payments')
    .values({
      tenant_id: tenantId,
      id: newId(),
      order_id: order.id,
      provider: provider.name,
      reference: started.reference,
      status: 'pending',
      amount: order.total,
      currency: order.currency,
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) => conflict.columns(['provider', 'reference', 'tenant_id']).doNothing())
    .execute();
  return {
    object: 'payment',
    provider: provider.name,
    reference: started.reference,
    client_secret: started.clientSecret,
    publishable_key: provider.publishableKey,
  };
}

export type PaymentOutcome = 'succeeded' | 'failed';

/** A payment as its provider names it, and the restaurant it says it is for (Stripe's metadata). */
export interface ProviderPayment {
  provider: PaymentProvider['name'];
  reference: string;
  tenantId: string | null;
}

/**
 * What the provider reports of a payment, in one transaction of `db`. Returns false for a payment
 * Servery does not know (another system's, on a shared provider account). The payment is locked
 * in its restaurant (on Citus a lock must name it); one the provider reports without it is
 * looked up first, on every shard. `storefrontOf`: a restaurant's storefront address by its slug,
 * for the link in the guest's mail.
 */
export async function recordPaymentOutcome(
  db: Db,
  clock: Clock,
  reported: ProviderPayment,
  outcome: PaymentOutcome,
  storefrontOf?: (slug: string) => string,
): Promise<boolean> {
  const { provider, reference } = reported;
  const tenantId =
    reported.tenantId ??
    (
      await db
        .selectFrom('order_payments')
        .select('tenant_id')
        .where('provider', '=', provider)
        .where('reference', '=', reference)
        .executeTakeFirst()
    )?.tenant_id;
  if (tenantId === undefined || !isUuid(tenantId)) return false;
  return db.transaction().execute(async (trx) => {
    const payment = await trx
      .selectFrom('order_payments')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('provider', '=', provider)
      .where('reference', '=', reference)
      .forUpdate()
      .executeTakeFirst();
    if (!payment) return false;
    if (payment.status === 'succeeded') return true;
    const now = clock.now();
    await trx
      .updateTable('order_payments')
      .set({ status: outcome, updated_at: now })
      .where('tenant_id', '=', payment.tenant_id)
      .where('id', '=', payment.id)
      .execute();
    if (outcome === 'failed') return true;
    const ctx: Ctx = { db: trx, clock, tenantId: payment.tenant_id, actor: { kind: 'system' } };
    const paid = await trx
      .updateTable('orders')
      .set({ payment_state: 'paid', listed: true, paid_at: now, updated_at: now })
      .where('tenant_id', '=', payment.tenant_id)
      .where('id', '=', payment.order_id)
      .where('payment_state', 'in', ['awaiting', 'abandoned'])
      .returning('id')
      .executeTakeFirst();
    if (!paid) return true;
    const record = await orderRecord(ctx, payment.order_id);
    const object = publicOrderOf(record, await productsOnMenu(ctx, productsOf([record])));
    const livemode = await isLive(ctx);
    for (const type of ['order.created', 'order.paid'] as const)
      await recordEvent(ctx, {
        tenantId: payment.tenant_id,
        type,
        connectionId: null,
        livemode,
        data: { object },
      });
    await queuePaidOrderEmail(ctx, payment.order_id, storefrontOf);
    if (record.status !== 'pending') await queueKitchenTicket(ctx, payment.order_id);
    return true;
  });
}

/** Abandons the online orders whose payment window has passed; returns how many. */
export async function expireUnpaidOrders(db: Db, clock: Clock): Promise<number> {
  const now = clock.now();
  const expired = await db
    .updateTable('orders')
    .set({ payment_state: 'abandoned', updated_at: now })
    .where('payment_state', '=', 'awaiting')
    .where('pay_by', '<=', now)
    .executeTakeFirst();
  return Number(expired.numUpdatedRows);
}
