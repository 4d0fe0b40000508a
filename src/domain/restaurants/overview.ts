import { sql } from 'kysely';
import { DateTime } from 'luxon';
import { usableOrderStatuses } from '../orders/order-status.ts';
import { amountsQuery, count } from '../reports/report-queries.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { features } from '../shared/plans.ts';
import type { Plan } from '../shared/scopes.ts';
import type { Store } from '../store/store.schema.ts';
import { getStoreAndRestaurant } from '../store/store.service.ts';

/*
 * A restaurant's day at a glance (the dashboard's overview page), every query scoped by the
 * restaurant:
 * - today's orders and takings: the restaurant-local day from midnight to now, against the same
 *   weekday a week before from midnight to the same local time (luxon's week back keeps the wall
 *   time across a DST change), counted by the sales report's own statement (listed, not
 *   cancelled, by creation time); the takings are the owners' only, as the reports are;
 * - the open orders (listed, not final) by status, and the pending ones waiting longer than
 *   waitingLongMinutes since they were placed (there is no acceptance limit to take instead);
 * - the reservations still to come today (pending or confirmed, whose time is not over), the first
 *   five, on the plans with reservations only;
 * - what is sold out now (products and options; an end time passed counts as back on sale, as it
 *   is once the worker runs);
 * - the store's state as GET /store shows it (open, closed, paused, busy);
 * - problems to act on: orders waiting long, a pause without end and, for owners, webhooks
 *   switched off (the restaurant's own, or a connected app's).
 */

/** A pending order is waiting long after this many minutes (no store setting limits acceptance). */
export const waitingLongMinutes = 10;
/** The reservations the overview lists. */
export const nextReservationsShown = 5;
/** The sold-out products and options the overview lists; the rest are counted. */
export const soldOutShown = 10;

type OpenStatus = (typeof usableOrderStatuses)[number];

export interface DayFigures {
  orders: number;
  /** Σ total in minor units; null for staff (the takings are the owners', as the reports are). */
  total: number | null;
}

export interface WaitingOrder {
  id: string;
  code: string;
  placed_at: Date;
  minutes: number;
}

export interface SoldOutItem {
  kind: 'product' | 'option';
  id: string;
  name: string;
  /** An option's group. */
  group: string | null;
  until: Date | null;
}

export interface SwitchedOffWebhook {
  kind: 'restaurant' | 'app';
  id: string;
  /** The app's name; the address for the restaurant's own. */
  name: string;
  disabled_at: Date | null;
}

export interface UpcomingReservation {
  id: string;
  starts_at: Date;
  party_size: number;
  guest_name: string | null;
  status: 'pending' | 'confirmed';
  tables: string[];
}

export interface RestaurantOverview {
  now: Date;
  timezone: string;
  currency: string;
  today: DayFigures & { from: Date };
  lastWeek: DayFigures & { from: Date; until: Date };
  /** Every status the restaurant uses (and any other still held by an order), with its count. */
  openOrders: Array<{ status: OpenStatus; count: number }>;
  /** The pending order placed first, and how long it has waited. */
  oldestPending: WaitingOrder | null;
  /** The pending orders placed over waitingLongMinutes ago. */
  waitingLong: number;
  /** null: the plan has no reservations. */
  reservations: UpcomingReservation[] | null;
  soldOut: { items: SoldOutItem[]; total: number };
  store: Pick<Store, 'status' | 'paused_until' | 'pause_note' | 'next_opening_at' | 'busy'>;
  /** null for staff: the webhooks are the owners'. */
  switchedOff: SwitchedOffWebhook[] | null;
}

/** The restaurant's overview now, as the ctx's actor may see it (owners: everything). */
export async function restaurantOverview(ctx: Ctx): Promise<RestaurantOverview> {
  const owner = ctx.actor.kind !== 'account' || ctx.actor.role === 'owner';
  const now = ctx.clock.now();
  const { store, plan } = await getStoreAndRestaurant(ctx);
  const local = DateTime.fromJSDate(now, { zone: store.timezone });
  const midnight = local.startOf('day');
  const weekBack = local.minus({ weeks: 1 });
  // Today to its end: no order is placed later than now (one placed at this very instant counts).
  const [today, lastWeek] = await Promise.all([
    salesBetween(ctx, store.timezone, midnight, midnight.plus({ days: 1 })),
    salesBetween(ctx, store.timezone, weekBack.startOf('day'), weekBack),
  ]);
  const takings = (figures: DayFigures) => (owner ? figures : { ...figures, total: null });
  return {
    now,
    timezone: store.timezone,
    currency: store.currency,
    today: { ...takings(today), from: midnight.toJSDate() },
    lastWeek: { ...takings(lastWeek), from: weekBack.startOf('day').toJSDate(), until: weekBack.toJSDate() },
    openOrders: await openOrders(ctx, store.order_statuses),
    ...(await pendingOrders(ctx, now)),
    reservations: (features.reservations.plans as readonly Plan[]).includes(plan)
      ? await upcomingReservations(ctx, now, midnight.plus({ days: 1 }).toJSDate())
      : null,
    soldOut: await soldOut(ctx, now),
    store: {
      status: store.status,
      paused_until: store.paused_until,
      pause_note: store.pause_note,
      next_opening_at: store.next_opening_at,
      busy: store.busy,
    },
    switchedOff: owner ? await switchedOffWebhooks(ctx) : null,
  };
}

/** The orders and takings from `from` to `until` (exclusive), as the sales report counts them. */
async function salesBetween(ctx: Ctx, zone: string, from: DateTime, until: DateTime): Promise<DayFigures> {
  const day = from.toISODate() as string;
  const { rows } = await amountsQuery(
    {
      tenantId: tenantOf(ctx),
      zone,
      period: { from: day, to: day, start: from.toJSDate(), end: until.toJSDate() },
    },
    'day',
  ).execute(ctx.db);
  return {
    orders: rows.reduce((sum, row) => sum + count(row.orders), 0),
    total: rows.reduce((sum, row) => sum + count(row.total), 0),
  };
}

/** The listed orders of each open status: those in use, and any other an order still has. */
async function openOrders(ctx: Ctx, inUse: readonly string[]): Promise<RestaurantOverview['openOrders']> {
  const rows = await ctx.db
    .selectFrom('orders')
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('tenant_id', '=', tenantOf(ctx))
    .where('listed', '=', true)
    .where('status', 'in', [...usableOrderStatuses])
    .groupBy('status')
    .execute();
  const counts = new Map(rows.map((row) => [row.status, count(row.count)]));
  return usableOrderStatuses
    .filter((status) => inUse.includes(status) || counts.has(status))
    .map((status) => ({ status, count: counts.get(status) ?? 0 }));
}

/** The oldest pending order, and how many have waited longer than waitingLongMinutes. */
async function pendingOrders(
  ctx: Ctx,
  now: Date,
): Promise<Pick<RestaurantOverview, 'oldestPending' | 'waitingLong'>> {
  const pending = ctx.db
    .selectFrom('orders')
    .where('tenant_id', '=', tenantOf(ctx))
    .where('listed', '=', true)
    .where('status', '=', 'pending');
  const oldest = await pending
    .select(['id', 'code', 'created_at'])
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  const { waiting } = await pending
    .select((eb) => eb.fn.countAll<number | string>().as('waiting'))
    .where('created_at', '<=', new Date(now.getTime() - waitingLongMinutes * 60_000))
    .executeTakeFirstOrThrow();
  return {
    oldestPending: oldest
      ? {
          id: oldest.id,
          code: oldest.code,
          placed_at: oldest.created_at,
          minutes: Math.floor((now.getTime() - oldest.created_at.getTime()) / 60_000),
        }
      : null,
    waitingLong: count(waiting),
  };
}

/** Today's reservations still to come or under way but not seated (their time not over), the first few. */
async function upcomingReservations(ctx: Ctx, now: Date, dayEnd: Date): Promise<UpcomingReservation[]> {
  const tenantId = tenantOf(ctx);
  const rows = await ctx.db
    .selectFrom('reservations')
    .select(['id', 'starts_at', 'duration_minutes', 'party_size', 'guest_name', 'status', 'table_ids'])
    .where('tenant_id', '=', tenantId)
    .where('deleted_at', 'is', null)
    .where('status', 'in', ['pending', 'confirmed'])
    .where('starts_at', '<', dayEnd)
    .where(sql<boolean>`starts_at + make_interval(mins => duration_minutes) > ${now}`)
    .orderBy('starts_at')
    .orderBy('id')
    .limit(nextReservationsShown)
    .execute();
  const tableIds = [...new Set(rows.flatMap((row) => row.table_ids))];
  const labels =
    tableIds.length === 0
      ? new Map<string, string>()
      : new Map(
          (
            await ctx.db
              .selectFrom('store_tables')
              .select(['id', 'label'])
              .where('tenant_id', '=', tenantId)
              .where('id', 'in', tableIds)
              .execute()
          ).map((table) => [table.id, table.label]),
        );
  return rows.map((row) => ({
    id: row.id,
    starts_at: row.starts_at,
    party_size: row.party_size,
    guest_name: row.guest_name,
    status: row.status as UpcomingReservation['status'],
    tables: row.table_ids.flatMap((id) => labels.get(id) ?? []),
  }));
}

/** The products and options sold out now (an end passed is back on sale), products first, by name. */
async function soldOut(ctx: Ctx, now: Date): Promise<RestaurantOverview['soldOut']> {
  const tenantId = tenantOf(ctx);
  const products = await ctx.db
    .selectFrom('menu_products')
    .select(['id', 'name', 'unavailable_until'])
    .where('tenant_id', '=', tenantId)
    .where('available', '=', false)
    .where((eb) => eb.or([eb('unavailable_until', 'is', null), eb('unavailable_until', '>', now)]))
    .orderBy('name')
    .orderBy('id')
    .execute();
  const options = await ctx.db
    .selectFrom('menu_options as o')
    .innerJoin('menu_option_groups as g', (join) =>
      join.onRef('g.tenant_id', '=', 'o.tenant_id').onRef('g.id', '=', 'o.group_id'),
    )
    .select(['o.id', 'o.name', 'o.unavailable_until', 'g.name as group'])
    .where('o.tenant_id', '=', tenantId)
    .where('o.available', '=', false)
    .where((eb) => eb.or([eb('o.unavailable_until', 'is', null), eb('o.unavailable_until', '>', now)]))
    .orderBy('o.name')
    .orderBy('o.id')
    .execute();
  const items: SoldOutItem[] = [
    ...products.map((p) => ({
      kind: 'product' as const,
      id: p.id,
      name: p.name,
      group: null,
      until: p.unavailable_until,
    })),
    ...options.map((o) => ({
      kind: 'option' as const,
      id: o.id,
      name: o.name,
      group: o.group,
      until: o.unavailable_until,
    })),
  ];
  return { items: items.slice(0, soldOutShown), total: items.length };
}

/** The restaurant's own webhooks and its connected apps' webhooks that are switched off. */
async function switchedOffWebhooks(ctx: Ctx): Promise<SwitchedOffWebhook[]> {
  const tenantId = tenantOf(ctx);
  const own = await ctx.db
    .selectFrom('webhooks')
    .select(['id', 'url', 'disabled_at'])
    .where('tenant_id', '=', tenantId)
    .where('enabled', '=', false)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const apps = await ctx.db
    .selectFrom('connections as c')
    .innerJoin('apps as p', 'p.id', 'c.app_id')
    .innerJoin('webhooks as w', 'w.app_id', 'c.app_id')
    .select(['w.id', 'p.name', 'w.disabled_at'])
    .where('c.tenant_id', '=', tenantId)
    .where('c.ended_at', 'is', null)
    .where('w.enabled', '=', false)
    .orderBy('p.name')
    .orderBy('w.id')
    .execute();
  return [
    ...own.map((w) => ({ kind: 'restaurant' as const, id: w.id, name: w.url, disabled_at: w.disabled_at })),
    ...apps.map((w) => ({ kind: 'app' as const, id: w.id, name: w.name, disabled_at: w.disabled_at })),
  ];
}
