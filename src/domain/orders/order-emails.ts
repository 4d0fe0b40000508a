import { pickLocale } from '../../i18n/i18n.ts';
import { queueEmail } from '../email/email-outbox.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { newSecret, sha256 } from '../shared/ids.ts';
import { type OrderWithRestaurant, orderWithRestaurant, receiptOf } from './order-receipt.ts';

/*
 * The guest's mails about an order (docs/storefront.md, "What the guest hears"), queued in the
 * transaction of the change and rendered by the worker in the restaurant's language:
 * - `orderPlaced`: the confirmation with the code, the receipt and, where the storefront's address
 *   is known (ctx.storefront), the links to the order's page and its print view; on-site orders
 *   when placed, online ones once paid;
 * - `orderAccepted` (with the ready time when known), `orderRejected`, `orderCancelled` (with the
 *   reason when given).
 * Only to an order with the guest's e-mail, and never from a test restaurant.
 */

export type OrderMailTemplate = 'orderPlaced' | 'orderAccepted' | 'orderRejected' | 'orderCancelled';

/** Whether the order's guest is mailed at all. */
function mailed(row: OrderWithRestaurant | undefined): row is OrderWithRestaurant & { guest_email: string } {
  return row !== undefined && row.guest_email !== null && row.livemode;
}

/**
 * Queues the mail `template` about the order; `key`: a key to the guest's order page for the
 * confirmation's links (on the storefront of ctx.storefront). An order without the guest's e-mail
 * (most) costs no query.
 */
export async function queueOrderEmail(
  ctx: Ctx,
  order: { id: string; guest_email: string | null },
  template: OrderMailTemplate,
  key?: string,
): Promise<void> {
  if (order.guest_email === null) return;
  const row = await orderWithRestaurant(ctx, order.id);
  if (mailed(row)) await queueFor(ctx, row, template, key && ctx.storefront && `${ctx.storefront}/o/${key}`);
}

/**
 * Queues the confirmation of an online order just paid: its link opens the order's page (on the
 * storefront `storefrontOf` gives the restaurant's slug) with a key of its own, made here: the
 * checkout's is kept only hashed.
 */
export async function queuePaidOrderEmail(
  ctx: Ctx,
  orderId: string,
  storefrontOf: ((slug: string) => string) | undefined,
): Promise<void> {
  const row = await orderWithRestaurant(ctx, orderId);
  if (!mailed(row)) return;
  let page: string | undefined;
  if (storefrontOf !== undefined) {
    const key = newSecret('sgk_');
    page = `${storefrontOf(row.slug)}/o/${key}`;
    await ctx.db
      .updateTable('orders')
      .set({ mail_key_hash: sha256(key) })
      .where('tenant_id', '=', tenantOf(ctx))
      .where('id', '=', orderId)
      .execute();
  }
  await queueFor(ctx, row, 'orderPlaced', page);
}

async function queueFor(
  ctx: Ctx,
  row: OrderWithRestaurant & { guest_email: string },
  template: OrderMailTemplate,
  page: string | undefined,
): Promise<void> {
  const mail = {
    tenantId: ctx.tenantId,
    to: row.guest_email,
    locale: pickLocale([row.language]),
  };
  const order = { restaurant: row.name, code: row.code, timezone: row.timezone };
  if (template === 'orderPlaced') {
    await queueEmail(ctx, {
      ...mail,
      template,
      params: {
        ...order,
        receipt: receiptOf(row),
        ...(page && { order_url: page, receipt_url: `${page}/receipt` }),
      },
    });
  } else if (template === 'orderAccepted') {
    const readyAt = row.estimated_ready_at ?? row.requested_for;
    await queueEmail(ctx, {
      ...mail,
      template,
      params: { ...order, ready_at: readyAt?.toISOString() ?? null },
    });
  } else {
    await queueEmail(ctx, { ...mail, template, params: { ...order, reason: row.cancel_reason } });
  }
}
