import { type Selectable, sql } from 'kysely';
import type { OrderItemsTable, OrdersTable } from '../../db/schema.ts';
import type { Ctx } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import type { GuestOrder, Order } from './order.schema.ts';

/*
 * Orders as their readers see them, built from rows:
 * - an app sees its own external_id and acknowledged_at, every other reader (other apps, events,
 *   the dashboard) null;
 * - an item's product_id is null once the product is gone from the menu;
 * - the guest sees the payment's own progress, and none of the apps' fields.
 */

export type OrderRow = Selectable<OrdersTable>;
export type ItemRow = Selectable<OrderItemsTable> & { product_exists: boolean };

export interface Acknowledgement {
  external_id: string | null;
  acknowledged_at: Date;
}

export function tenantOf(ctx: Ctx): string {
  if (ctx.tenantId === null) throw new Error('order operations act for one restaurant');
  return ctx.tenantId;
}

export function noOrder(id: string): ApiError {
  return new ApiError('not_found', `No order ${id} in this restaurant.`);
}

/** The order row with this id, listed (an unpaid online order does not exist for the API). */
export async function listedOrderRow(ctx: Ctx, id: string, forUpdate = false): Promise<OrderRow> {
  if (!isUuid(id)) throw noOrder(id);
  let query = ctx.db
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', id)
    .where('listed', '=', true);
  if (forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw noOrder(id);
  return row;
}

/** The items of these orders, each order's in its own order, with whether the product still exists. */
export async function itemsOf(ctx: Ctx, orderIds: readonly string[]): Promise<Map<string, ItemRow[]>> {
  const byOrder = new Map<string, ItemRow[]>(orderIds.map((id) => [id, []]));
  if (orderIds.length === 0) return byOrder;
  const rows = await ctx.db
    .selectFrom('order_items as i')
    .leftJoin('menu_products as p', (join) =>
      join.onRef('p.tenant_id', '=', 'i.tenant_id').onRef('p.id', '=', 'i.product_id'),
    )
    .selectAll('i')
    .select(sql<boolean>`p.id IS NOT NULL`.as('product_exists'))
    .where('i.tenant_id', '=', tenantOf(ctx))
    .where('i.order_id', 'in', [...orderIds])
    .orderBy('i.order_id')
    .orderBy('i.position')
    .execute();
  for (const row of rows) byOrder.get(row.order_id)?.push(row);
  return byOrder;
}

/** The acknowledgements of `app` among these orders. */
export async function acknowledgementsOf(
  ctx: Ctx,
  app: string | null,
  orderIds: readonly string[],
): Promise<Map<string, Acknowledgement>> {
  if (app === null || orderIds.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom('order_acknowledgements')
    .select(['order_id', 'external_id', 'acknowledged_at'])
    .where('tenant_id', '=', tenantOf(ctx))
    .where('app_id', '=', app)
    .where('order_id', 'in', [...orderIds])
    .execute();
  return new Map(rows.map((row) => [row.order_id, row]));
}

/** The Order as one reader sees it (`acknowledgement`: the reader's own, if any). */
export function orderOf(row: OrderRow, items: readonly ItemRow[], acknowledgement?: Acknowledgement): Order {
  return {
    object: 'order',
    id: row.id,
    code: row.code,
    type: row.type,
    source: row.source,
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
    external_id: acknowledgement?.external_id ?? null,
    acknowledged_at: acknowledgement?.acknowledged_at ?? null,
    ...moneyOf(row),
    payment: {
      method: row.payment_method,
      status: row.payment_state === 'paid' ? 'paid' : 'open',
      paid_at: row.paid_at,
    },
    ...restOf(row, items),
  };
}

/** The order as its guest sees it. */
export function guestOrderOf(row: OrderRow, items: readonly ItemRow[]): GuestOrder {
  const state = row.payment_state;
  return {
    object: 'guest_order',
    id: row.id,
    code: row.code,
    type: row.type,
    source: row.source,
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...moneyOf(row),
    payment: {
      method: row.payment_method,
      status: state === 'abandoned' ? 'expired' : state,
      paid_at: row.paid_at,
    },
    ...restOf(row, items),
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

function restOf(row: OrderRow, items: readonly ItemRow[]) {
  return {
    customer:
      row.customer_name === null && row.customer_phone === null
        ? null
        : { name: row.customer_name, phone: row.type === 'dine_in' ? null : row.customer_phone },
    delivery:
      row.type === 'delivery'
        ? { address: row.delivery_address, postal_code: row.delivery_postal_code, city: row.delivery_city }
        : null,
    table:
      row.type === 'dine_in' && row.table_id !== null ? { id: row.table_id, label: row.table_label } : null,
    note: row.note,
    items: items.map((item) => ({
      id: item.id,
      product_id: item.product_exists ? item.product_id : null,
      name: item.name,
      quantity: item.quantity,
      unit_price: item.unit_price,
      line_total: item.line_total,
      tax_rate_bps: item.tax_rate_bps,
      options: item.options,
    })),
    cancellation:
      row.status === 'cancelled' && row.cancelled_by !== null
        ? { reason: row.cancel_reason, by: row.cancelled_by }
        : null,
    estimated_ready_at: row.estimated_ready_at,
  };
}
