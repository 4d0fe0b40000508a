import { sql } from 'kysely';
import { viewerApp } from '../menu/menu-writes.ts';
import type { Ctx } from '../shared/context.ts';
import { inPageOrder, type ListOrder, type PageRange } from '../shared/paging.ts';
import type { Order } from './order.schema.ts';
import {
  acknowledgementsOf,
  itemsOf,
  listedOrderRow,
  type OrderRow,
  orderOf,
  tenantOf,
} from './order-rows.ts';

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
  external_id?: string;
}

/** Most recently changed first; ascending from `updated_since` (the polling order). */
export function orderListOrder(filters: OrderFilters): ListOrder<'updated_at'> {
  return { key: 'updated_at', direction: filters.updated_since === undefined ? 'desc' : 'asc' };
}

/** The listed orders matching `filters`, as the calling app sees them, in the list's order. */
export async function listOrders(ctx: Ctx, filters: OrderFilters, page: PageRange): Promise<Order[]> {
  const app = await viewerApp(ctx);
  if (filters.external_id !== undefined && app === null) return [];
  let query = ctx.db
    .selectFrom('orders as o')
    .selectAll('o')
    .where('o.tenant_id', '=', tenantOf(ctx))
    .where('o.listed', '=', true);
  if (filters.status) query = query.where('o.status', 'in', filters.status as OrderRow['status'][]);
  if (filters.type) query = query.where('o.type', 'in', filters.type as OrderRow['type'][]);
  if (filters.updated_since) query = query.where('o.updated_at', '>', filters.updated_since);
  if (filters.created_since) query = query.where('o.created_at', '>=', filters.created_since);
  if (filters.created_until) query = query.where('o.created_at', '<', filters.created_until);
  if (filters.paid !== undefined)
    query = filters.paid
      ? query.where('o.payment_state', '=', 'paid')
      : query.where('o.payment_method', '=', 'on_site');
  if (filters.acknowledged !== undefined || filters.external_id !== undefined) {
    const appId = app ?? '00000000-0000-0000-0000-000000000000';
    const externalId = filters.external_id;
    const acknowledged = filters.acknowledged;
    query = query.where((eb) => {
      let mine = eb
        .selectFrom('order_acknowledgements as a')
        .select(sql.lit(1).as('one'))
        .whereRef('a.tenant_id', '=', 'o.tenant_id')
        .whereRef('a.order_id', '=', 'o.id')
        .where('a.app_id', '=', appId);
      if (externalId !== undefined) mine = mine.where('a.external_id', '=', externalId);
      return acknowledged === false ? eb.not(eb.exists(mine)) : eb.exists(mine);
    });
  }
  const rows = await inPageOrder(query, orderListOrder(filters), page, 'o').execute();
  return ordersFrom(ctx, rows, app);
}

export async function getOrder(ctx: Ctx, id: string): Promise<Order> {
  const row = await listedOrderRow(ctx, id);
  const [order] = await ordersFrom(ctx, [row], await viewerApp(ctx));
  return order as Order;
}

/** Orders from their rows, with their items and `app`'s acknowledgements. */
export async function ordersFrom(ctx: Ctx, rows: readonly OrderRow[], app: string | null): Promise<Order[]> {
  const ids = rows.map((row) => row.id);
  const [items, acknowledgements] = await Promise.all([itemsOf(ctx, ids), acknowledgementsOf(ctx, app, ids)]);
  return rows.map((row) => orderOf(row, items.get(row.id) ?? [], acknowledgements.get(row.id)));
}
