import type { OrdersTable } from '../../db/schema.ts';
import { recordEvent } from '../events/events.store.ts';
import { checkExternalIdText, isLive, orTaken, viewerApp } from '../menu/menu-writes.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { assertTransition } from '../shared/state-machine.ts';
import { queueKitchenTicket } from './kitchen-printing.ts';
import type { AcceptInput, AcknowledgeInput, AdvanceInput, Order, ReasonInput } from './order.schema.ts';
import { queueOrderEmail } from './order-emails.ts';
import {
  type LockedOrder,
  lockListedOrder,
  orderOf,
  orderRecord,
  productsOf,
  productsOnMenu,
  publicOrderOf,
} from './order-rows.ts';
import { type OrderStatus, orderTransitions, usableOrderStatuses } from './order-status.ts';
import { getOrder } from './orders.service.ts';

/*
 * What apps and the kitchen do to an order (spec: Order status; decisions.md, Orders):
 * - every move locks the order's row first, so two moves of one order take turns and the second
 *   sees the first's outcome (the restaurant cancelling while an app accepts: one of them wins,
 *   the other gets 409 invalid_transition);
 * - the moves are checked on the order's transition table; a move to a status the restaurant does
 *   not use is 409 stage_not_used;
 * - a move saves, then records its event: order.status_changed with previous_status, or
 *   order.cancelled with previous_status and reason;
 * - accepting, rejecting and cancelling queue the guest's mail about it (order-emails.ts);
 * - accepting (or moving on straight from pending) queues the kitchen's ticket for the network
 *   printer, when one is set (kitchen-printing.ts).
 */

/** Who cancelled, as the order's `cancellation.by` says. */
function cancelledBy(ctx: Ctx): 'app' | 'restaurant' | 'guest' {
  return ctx.actor.kind === 'connection' ? 'app' : ctx.actor.kind === 'guest' ? 'guest' : 'restaurant';
}

/** The non-final statuses the restaurant uses, in order. */
async function statusesInUse(ctx: Ctx): Promise<readonly OrderStatus[]> {
  const { order_statuses } = await ctx.db
    .selectFrom('stores')
    .select('order_statuses')
    .where('tenant_id', '=', tenantOf(ctx))
    .executeTakeFirstOrThrow();
  return order_statuses as OrderStatus[];
}

/** The status after `from` among those in use; `completed` after the last. */
export function nextInUse(inUse: readonly OrderStatus[], from: OrderStatus): OrderStatus {
  const rank = (status: OrderStatus) =>
    usableOrderStatuses.indexOf(status as (typeof usableOrderStatuses)[number]);
  return inUse.find((status) => rank(status) > rank(from)) ?? 'completed';
}

/** POST /orders/{id}/acknowledge: the caller takes the order over, with its own external_id. */
export async function acknowledgeOrder(ctx: Ctx, id: string, input: AcknowledgeInput): Promise<Order> {
  const app = await viewerApp(ctx);
  if (app === null) throw new Error('acknowledge is an app’s act');
  const row = await lockListedOrder(ctx, id);
  const externalId = input.external_id;
  if (typeof externalId === 'string') checkExternalIdText(externalId);
  const insert = ctx.db
    .insertInto('order_acknowledgements')
    .values({
      tenant_id: tenantOf(ctx),
      order_id: row.id,
      app_id: app,
      external_id: externalId ?? null,
      acknowledged_at: ctx.clock.now(),
    })
    .onConflict((conflict) => {
      // Again: the first acknowledged_at stays; an absent external_id keeps the one set before.
      const again = conflict.columns(['tenant_id', 'order_id', 'app_id']);
      return externalId === undefined
        ? again.doNothing()
        : again.doUpdateSet((eb) => ({ external_id: eb.ref('excluded.external_id') }));
    });
  await orTaken(insert.execute(), externalId);
  return getOrder(ctx, row.id);
}

/** POST /orders/{id}/accept: pending → the next status in use; already past pending: unchanged. */
export async function acceptOrder(ctx: Ctx, id: string, input: AcceptInput): Promise<Order> {
  const row = await lockListedOrder(ctx, id);
  if (row.status === 'completed' || row.status === 'cancelled')
    assertTransition(orderTransitions, 'order', row.status, 'confirmed');
  if (row.status !== 'pending') return getOrder(ctx, id);
  const to = nextInUse(await statusesInUse(ctx), 'pending');
  const readyAt =
    input.prep_minutes === undefined
      ? {}
      : { estimated_ready_at: new Date(ctx.clock.now().getTime() + input.prep_minutes * 60_000) };
  const order = await move(ctx, row, to, readyAt);
  await queueOrderEmail(ctx, row, 'orderAccepted');
  await queueKitchenTicket(ctx, row.id);
  return order;
}

/** POST /orders/{id}/reject: only a pending order, to cancelled. */
export async function rejectOrder(ctx: Ctx, id: string, input: ReasonInput): Promise<Order> {
  const row = await lockListedOrder(ctx, id);
  if (row.status !== 'pending')
    throw new ApiError(
      'invalid_transition',
      `This order is ${row.status}: only a pending order can be rejected${
        row.status === 'completed' || row.status === 'cancelled' ? '' : ' (cancel it instead)'
      }.`,
    );
  const order = await cancel(ctx, row, input.reason ?? null);
  await queueOrderEmail(ctx, row, 'orderRejected');
  return order;
}

/** POST /orders/{id}/cancel: from any status that is not final. */
export async function cancelOrder(ctx: Ctx, id: string, input: ReasonInput): Promise<Order> {
  const row = await lockListedOrder(ctx, id);
  assertTransition(orderTransitions, 'order', row.status, 'cancelled');
  const order = await cancel(ctx, row, input.reason ?? null);
  await queueOrderEmail(ctx, row, 'orderCancelled');
  return order;
}

/** POST /orders/{id}/advance: forward to `status`, or to the next status in use. */
export async function advanceOrder(ctx: Ctx, id: string, input: AdvanceInput): Promise<Order> {
  if (input.status === 'cancelled')
    throw new ApiError('invalid_request', 'An order is cancelled by reject or cancel, not advance.', {
      param: 'status',
    });
  const row = await lockListedOrder(ctx, id);
  const inUse = await statusesInUse(ctx);
  const to = input.status ?? nextInUse(inUse, row.status);
  if (to !== 'completed' && !inUse.includes(to))
    throw new ApiError('stage_not_used', `This restaurant does not use the status ${to}: skip to the next.`, {
      param: 'status',
    });
  assertTransition(orderTransitions, 'order', row.status, to);
  const order = await move(ctx, row, to);
  // Moved on straight from pending: accepted all the same, so the kitchen gets its ticket.
  if (row.status === 'pending') await queueKitchenTicket(ctx, row.id);
  return order;
}

async function cancel(ctx: Ctx, row: LockedOrder, reason: string | null): Promise<Order> {
  return move(ctx, row, 'cancelled', { cancel_reason: reason, cancelled_by: cancelledBy(ctx) });
}

/** Saves the move, then records its event. */
async function move(
  ctx: Ctx,
  row: LockedOrder,
  to: OrderStatus,
  also: Partial<Pick<OrdersTable, 'estimated_ready_at' | 'cancel_reason' | 'cancelled_by'>> = {},
): Promise<Order> {
  await ctx.db
    .updateTable('orders')
    .set({ status: to, updated_at: ctx.clock.now(), ...also })
    .where('tenant_id', '=', row.tenant_id)
    .where('id', '=', row.id)
    .execute();
  const updated = await orderRecord(ctx, row.id);
  const onMenu = await productsOnMenu(ctx, productsOf([updated]));
  await recordEvent(ctx, {
    tenantId: row.tenant_id,
    type: to === 'cancelled' ? 'order.cancelled' : 'order.status_changed',
    connectionId: null,
    livemode: await isLive(ctx),
    data: {
      object: publicOrderOf(updated, onMenu),
      previous_status: row.status,
      ...(to === 'cancelled' && { reason: also.cancel_reason ?? null }),
    },
  });
  return orderOf(updated, onMenu);
}
