import { type Selectable, sql } from 'kysely';
import type { OrdersTable } from '../../db/schema.ts';
import type { Ctx } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import type { GuestOrder, Order } from './order.schema.ts';

/*
 * Orders as their readers see them, each read in one statement (ordersQuery): the order's row, its
 * lines as JSON in their order, and the calling app's acknowledgement.
 * - An app sees its own external_id and acknowledged_at; every other reader (other apps, events,
 *   the dashboard, the guest) sees null.
 * - A line's product_id is null once the product is gone from the menu.
 * - The guest sees the payment's own progress, and none of the apps' fields.
 */

export type OrderRow = Selectable<OrdersTable>;
export type OrderItem = Order['items'][number];

/** An order as read by ordersQuery. */
export type OrderRecord = OrderRow & {
  items: OrderItem[];
  ack_external_id: string | null;
  ack_at: Date | null;
};

export function tenantOf(ctx: Ctx): string {
  if (ctx.tenantId === null) throw new Error('order operations act for one restaurant');
  return ctx.tenantId;
}

export function noOrder(id: string): ApiError {
  return new ApiError('not_found', `No order ${id} in this restaurant.`);
}

/** The app whose acknowledgements the ctx's actor sees: a connection's app; null for anyone else. */
function callerApp(ctx: Ctx) {
  return ctx.actor.kind === 'connection'
    ? sql<string>`(SELECT app_id FROM connections WHERE tenant_id = ${tenantOf(ctx)} AND id = ${ctx.actor.connectionId})`
    : sql<string>`NULL::uuid`;
}

const itemsJson = sql<OrderItem[]>`(
  SELECT coalesce(json_agg(json_build_object(
    'id', i.id,
    'product_id', p.id,
    'name', i.name,
    'quantity', i.quantity,
    'unit_price', i.unit_price,
    'line_total', i.line_total,
    'tax_rate_bps', i.tax_rate_bps,
    'options', i.options
  ) ORDER BY i.position), '[]')
  FROM order_items i
  LEFT JOIN menu_products p ON p.tenant_id = i.tenant_id AND p.id = i.product_id
  WHERE i.tenant_id = o.tenant_id AND i.order_id = o.id)`;

/** The restaurant's orders (alias `o`, acknowledgement `a`), each with its lines and the caller's acknowledgement. */
export function ordersQuery(ctx: Ctx) {
  return ctx.db
    .selectFrom('orders as o')
    .leftJoin('order_acknowledgements as a', (join) =>
      join
        .onRef('a.tenant_id', '=', 'o.tenant_id')
        .onRef('a.order_id', '=', 'o.id')
        .on('a.app_id', '=', callerApp(ctx)),
    )
    .selectAll('o')
    .select([itemsJson.as('items'), 'a.external_id as ack_external_id', 'a.acknowledged_at as ack_at'])
    .where('o.tenant_id', '=', tenantOf(ctx));
}

/** The order with this id, as the caller sees it; `listed` only: an unpaid online order does not exist for the API. */
export async function orderRecord(ctx: Ctx, id: string, listed = true): Promise<OrderRecord> {
  if (!isUuid(id)) throw noOrder(id);
  let query = ordersQuery(ctx).where('o.id', '=', id);
  if (listed) query = query.where('o.listed', '=', true);
  const record = await query.executeTakeFirst();
  if (!record) throw noOrder(id);
  return record;
}

/** Locks the listed order's row until the transaction ends (a move's first step); its row. */
export async function lockListedOrder(ctx: Ctx, id: string): Promise<OrderRow> {
  if (!isUuid(id)) throw noOrder(id);
  const row = await ctx.db
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', id)
    .where('listed', '=', true)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw noOrder(id);
  return row;
}

/** The Order as the caller sees it. */
export function orderOf(record: OrderRecord): Order {
  return {
    object: 'order',
    id: record.id,
    code: record.code,
    type: record.type,
    source: record.source,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
    external_id: record.ack_at === null ? null : record.ack_external_id,
    acknowledged_at: record.ack_at,
    ...moneyOf(record),
    payment: {
      method: record.payment_method,
      status: record.payment_state === 'paid' ? 'paid' : 'open',
      paid_at: record.paid_at,
    },
    ...restOf(record),
  };
}

/** The Order as everyone but the acknowledging app sees it: as events carry it. */
export function publicOrderOf(record: OrderRecord): Order {
  return orderOf({ ...record, ack_external_id: null, ack_at: null });
}

/** The order as its guest sees it. */
export function guestOrderOf(record: OrderRecord): GuestOrder {
  const state = record.payment_state;
  return {
    object: 'guest_order',
    id: record.id,
    code: record.code,
    type: record.type,
    source: record.source,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
    ...moneyOf(record),
    payment: {
      method: record.payment_method,
      status: state === 'abandoned' ? 'expired' : state,
      paid_at: record.paid_at,
    },
    ...restOf(record),
  };
}

function moneyOf(row: OrderRow) {
  return {
    requested_for: row.requested_for,
    currency: row.currency,
    amounts: {
      subtotal: row.subtotal,
      delivery_fee: row.delivery_fee,
      service_fee: row.service_fee,
      discount: row.discount,
      tip: row.tip,
      total: row.total,
    },
    tax: { included: true as const, lines: row.tax_lines },
  };
}

function restOf(record: OrderRecord) {
  return {
    customer:
      record.customer_name === null && record.customer_phone === null
        ? null
        : { name: record.customer_name, phone: record.type === 'dine_in' ? null : record.customer_phone },
    delivery:
      record.type === 'delivery'
        ? {
            address: record.delivery_address,
            postal_code: record.delivery_postal_code,
            city: record.delivery_city,
          }
        : null,
    table:
      record.type === 'dine_in' && record.table_id !== null
        ? { id: record.table_id, label: record.table_label }
        : null,
    note: record.note,
    items: record.items,
    cancellation:
      record.status === 'cancelled' && record.cancelled_by !== null
        ? { reason: record.cancel_reason, by: record.cancelled_by }
        : null,
    estimated_ready_at: record.estimated_ready_at,
  };
}
