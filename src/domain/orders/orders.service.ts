import { onCaughtUpReplica } from '../../db/client.ts';
import type { OrdersTable } from '../../db/schema.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { inPageOrder, type ListOrder, type PageRange } from '../shared/paging.ts';
import type { Order } from './order.schema.ts';
import { orderRecord, ordersOf, ordersWithAcknowledgement } from './order-rows.ts';
import { orderTexts } from './order-texts.ts';

/** GET /orders filters (spec: GET /orders); each one absent means no filter. */
export interface OrderFilters {
  status?: readonly string[];
  type?: readonly string[];
  updated_since?: Date;
  created_since?: Date;
  created_until?: Date;
  /** true: paid online; false: paid on site. */
  paid?: boolean;
  /** Relative to the calling app. */
  acknowledged?: boolean;
  /** The order the calling app acknowledged with this value. */
  external_id?: string;
}

/** Most recently changed first; ascending from `updated_since` (the polling order). */
export function orderListOrder(filters: OrderFilters): ListOrder<'updated_at'> {
  return { key: 'updated_at', direction: filters.updated_since === undefined ? 'desc' : 'asc' };
}

/**
 * The listed orders matching `filters`, as the calling app sees them, in the list's order, each
 * as its JSON text (order-texts.ts) with what the cursor needs; read on the read replica when it
 * has every write (onCaughtUpReplica).
 */
export function listOrders(
  ctx: Ctx,
  filters: OrderFilters,
  page: PageRange,
): Promise<{ id: string; updated_at: Date; json: string }[]> {
  return onCaughtUpReplica(ctx.db, (db) => ordersPage({ ...ctx, db }, filters, page));
}

async function ordersPage(
  ctx: Ctx,
  filters: OrderFilters,
  page: PageRange,
): Promise<{ id: string; updated_at: Date; json: string }[]> {
  let query = ordersWithAcknowledgement(ctx)
    .select(['o.id', 'o.updated_at', 'a.external_id as ack_external_id', 'a.acknowledged_at as ack_at'])
    .select((eb) =>
      eb
        .selectFrom('restaurants')
        .select('product_removals')
        .where('id', '=', tenantOf(ctx))
        .$asScalar()
        .as('product_removals'),
    )
    .where('o.listed', '=', true);
  if (filters.status) query = query.where('o.status', 'in', filters.status as OrdersTable['status'][]);
  if (filters.type) query = query.where('o.type', 'in', filters.type as OrdersTable['type'][]);
  if (filters.updated_since) query = query.where('o.updated_at', '>', filters.updated_since);
  if (filters.created_since) query = query.where('o.created_at', '>=', filters.created_since);
  if (filters.created_until) query = query.where('o.created_at', '<', filters.created_until);
  if (filters.paid !== undefined)
    query = filters.paid
      ? query.where('o.payment_state', '=', 'paid')
      : query.where('o.payment_method', '=', 'on_site');
  // The acknowledgement joined is the caller's own (none for any other reader).
  if (filters.acknowledged !== undefined)
    query = query.where('a.order_id', filters.acknowledged ? 'is not' : 'is', null);
  if (filters.external_id !== undefined) query = query.where('a.external_id', '=', filters.external_id);
  const listed = await inPageOrder(query, orderListOrder(filters), page, 'o').execute();
  const texts = await orderTexts(ctx, listed, listed[0]?.product_removals ?? 0);
  return listed.map((order, index) => ({
    id: order.id,
    updated_at: order.updated_at,
    json: texts[index] as string,
  }));
}

export async function getOrder(ctx: Ctx, id: string): Promise<Order> {
  const [order] = await ordersOf(ctx, [await orderRecord(ctx, id)]);
  return order as Order;
}
