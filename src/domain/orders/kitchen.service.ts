import { sql } from 'kysely';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { getStore } from '../store/store.service.ts';
import { boardRecentHours, type OrderBoard } from './kitchen.schema.ts';
import { orderRecordSelection, ordersOf, ordersWithAcknowledgement } from './order-rows.ts';
import { finalOrderStatuses } from './order-status.ts';

/*
 * The order board of the dashboard (the kitchen):
 * - it shows the listed orders (an unpaid online order is on no board, as in the API) that are
 *   not final, and those completed or cancelled in the last few hours, oldest first;
 * - its version digests every order on it (id, status, last change, its kitchen ticket's print)
 *   and the store's last change (statuses in use, busy mode) and automatic printing, so a board
 *   that shows an older version is out of date.
 */

/** At most this many orders on a board, the oldest first. */
const maxBoardOrders = 500;

/** The orders on the board (alias `o`): listed, not final or changed in the last few hours. */
function boardOrders(ctx: Ctx) {
  const since = new Date(ctx.clock.now().getTime() - boardRecentHours * 60 * 60 * 1000);
  return ordersWithAcknowledgement(ctx)
    .where('o.listed', '=', true)
    .where((eb) =>
      eb.or([eb('o.status', 'not in', [...finalOrderStatuses]), eb('o.updated_at', '>=', since)]),
    );
}

/** The board's version now: it changes when an order on it, or the store's settings, change. */
export async function boardVersion(ctx: Ctx): Promise<string> {
  const orders = await boardOrders(ctx)
    .select(
      sql<string>`md5(coalesce(string_agg(o.id::text || ':' || o.status || ':' || (extract(epoch from o.updated_at) * 1000)::bigint::text || ':' || coalesce((extract(epoch from o.ticket_printed_at) * 1000)::bigint::text, '') || ':' || coalesce(o.ticket_print_error, ''), ',' ORDER BY o.id), ''))`.as(
        'digest',
      ),
    )
    .executeTakeFirstOrThrow();
  const store = await ctx.db
    .selectFrom('stores')
    .select(['updated_at', 'auto_print'])
    .where('tenant_id', '=', tenantOf(ctx))
    .executeTakeFirstOrThrow();
  return `${orders.digest.slice(0, 20)}.${store.updated_at.getTime()}${store.auto_print ? '.p' : ''}`;
}

/** The restaurant's order board (its version read first: a change meanwhile shows as out of date). */
export async function orderBoard(ctx: Ctx): Promise<OrderBoard> {
  const version = await boardVersion(ctx);
  const store = await getStore(ctx);
  const records = await boardOrders(ctx)
    .select(orderRecordSelection)
    .orderBy('o.created_at')
    .orderBy('o.id')
    .limit(maxBoardOrders)
    .execute();
  return {
    object: 'order_board',
    version,
    order_statuses: store.order_statuses as OrderBoard['order_statuses'],
    busy: store.busy,
    timezone: store.timezone,
    currency: store.currency,
    orders: await ordersOf(ctx, records),
  };
}
