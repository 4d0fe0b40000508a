import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { OrdersTable } from '../../db/schema.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import type { GuestOrder, Order } from './order.schema.ts';

/*
 * Orders as their readers see them. An order is one row (its lines and tax lines are frozen on it
 * at order time), read with the calling app's acknowledgement in the same statement:
 * - an app sees its own external_id and acknowledged_at; every other reader (other apps, events,
 *   the dashboard, the guest) sees null;
 * - a line's product_id is null once the product is gone from the menu (one look-up per read);
 * - the guest sees the payment's own progress, and none of the apps' fields.
 */

/** The columns an Order is made of. */
export const orderColumns = [
  'o.id',
  'o.code',
  'o.type',
  'o.source',
  'o.status',
  'o.payment_method',
  'o.payment_state',
  'o.paid_at',
  'o.currency',
  'o.subtotal',
  'o.delivery_fee',
  'o.service_fee',
  'o.discount',
  'o.tip',
  'o.total',
  'o.items',
  'o.tax_lines',
  'o.requested_for',
  'o.estimated_ready_at',
  'o.customer_name',
  'o.customer_phone',
  'o.delivery_address',
  'o.delivery_postal_code',
  'o.delivery_city',
  'o.table_id',
  'o.table_label',
  'o.note',
  'o.cancel_reason',
  'o.cancelled_by',
  'o.created_at',
  'o.updated_at',
] as const;

type OrderColumn = (typeof orderColumns)[number] extends `o.${infer C}` ? C : never;

/** An order as ordersQuery reads it, with the caller's acknowledgement (null: none). */
export type OrderRecord = Pick<Selectable<OrdersTable>, OrderColumn> & {
  ack_external_id: string | null;
  ack_at: Date | null;
};

export function noOrder(id: string): ApiError {
  return new ApiError('not_found', `No order ${id} in this restaurant.`);
}

/**
 * The app whose acknowledgements the ctx's actor sees: a connection's app; for anyone else the nil
 * UUID, which no app has. (Not NULL: Citus plans the join only while its condition keeps the
 * restaurant's equality, which a NULL would fold away.)
 */
function callerApp(ctx: Ctx) {
  return ctx.actor.kind === 'connection'
    ? sql<string>`${ctx.actor.appId}::uuid`
    : sql<string>`'00000000-0000-0000-0000-000000000000'::uuid`;
}

/** The restaurant's orders (alias `o`) with the caller's acknowledgement (alias `a`), nothing selected yet. */
export function ordersWithAcknowledgement(ctx: Ctx) {
  return ctx.db
    .selectFrom('orders as o')
    .leftJoin('order_acknowledgements as a', (join) =>
      join
        .onRef('a.tenant_id', '=', 'o.tenant_id')
        .onRef('a.order_id', '=', 'o.id')
        .on('a.app_id', '=', callerApp(ctx)),
    )
    .where('o.tenant_id', '=', tenantOf(ctx));
}

/** What an OrderRecord selects of ordersWithAcknowledgement. */
export const orderRecordSelection = [
  ...orderColumns,
  'a.external_id as ack_external_id',
  'a.acknowledged_at as ack_at',
] as const;

/** The restaurant's orders, each as an OrderRecord (aliases as ordersWithAcknowledgement's). */
export function ordersQuery(ctx: Ctx) {
  return ordersWithAcknowledgement(ctx).select(orderRecordSelection);
}

/** The order with this id; `listed` only (an unpaid online order does not exist for the API). */
export async function orderRecord(ctx: Ctx, id: string, listed = true): Promise<OrderRecord> {
  if (!isUuid(id)) throw noOrder(id);
  let query = ordersQuery(ctx).where('o.id', '=', id);
  if (listed) query = query.where('o.listed', '=', true);
  const record = await query.executeTakeFirst();
  if (!record) throw noOrder(id);
  return record;
}

/** What a move reads of the order it locked. */
export type LockedOrder = Pick<Selectable<OrdersTable>, 'tenant_id' | 'id' | 'status' | 'guest_email'>;

/** Locks the listed order's row until the transaction ends (a move's first step). */
export async function lockListedOrder(ctx: Ctx, id: string): Promise<LockedOrder> {
  if (!isUuid(id)) throw noOrder(id);
  const row = await ctx.db
    .selectFrom('orders')
    .select(['tenant_id', 'id', 'status', 'guest_email'])
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', id)
    .where('listed', '=', true)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw noOrder(id);
  return row;
}

/** Of these products (named by orders' lines), those still on the menu. */
export async function productsOnMenu(ctx: Ctx, productIds: Iterable<string>): Promise<ReadonlySet<string>> {
  const named = [...new Set(productIds)];
  if (named.length === 0) return new Set();
  const rows = await ctx.db
    .selectFrom('menu_products')
    .select('id')
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', 'in', named)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** The products the lines of these orders name. */
export function productsOf(records: readonly OrderRecord[]): string[] {
  return records.flatMap((record) => record.items.map((item) => item.product_id));
}

/** The Orders of these records as the caller sees them. */
export async function ordersOf(ctx: Ctx, records: readonly OrderRecord[]): Promise<Order[]> {
  const onMenu = await productsOnMenu(ctx, productsOf(records));
  return records.map((record) => orderOf(record, onMenu));
}

/** The Order as the caller sees it; `onMenu`: the products of its lines still on the menu. */
export function orderOf(record: OrderRecord, onMenu: ReadonlySet<string>): Order {
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
    ...restOf(record, onMenu),
  };
}

/** The Order as everyone but the acknowledging app sees it: as events carry it. */
export function publicOrderOf(record: OrderRecord, onMenu: ReadonlySet<string>): Order {
  return orderOf({ ...record, ack_external_id: null, ack_at: null }, onMenu);
}

/** The order as its guest sees it. */
export function guestOrderOf(record: OrderRecord, onMenu: ReadonlySet<string>): GuestOrder {
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
    ...restOf(record, onMenu),
  };
}

function moneyOf(record: OrderRecord) {
  return {
    requested_for: record.requested_for,
    currency: record.currency,
    amounts: {
      subtotal: record.subtotal,
      delivery_fee: record.delivery_fee,
      service_fee: record.service_fee,
      discount: record.discount,
      tip: record.tip,
      total: record.total,
    },
    tax: { included: true as const, lines: record.tax_lines },
  };
}

function restOf(record: OrderRecord, onMenu: ReadonlySet<string>) {
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
    items: record.items.map((item) => (onMenu.has(item.product_id) ? item : { ...item, product_id: null })),
    cancellation:
      record.status === 'cancelled' && record.cancelled_by !== null
        ? { reason: record.cancel_reason, by: record.cancelled_by }
        : null,
    estimated_ready_at: record.estimated_ready_at,
  };
}
