import { sql } from 'kysely';
import { DateTime } from 'luxon';
import type { DurationRule } from '../../db/schema.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { localDate, type Schedule, windowsStartingOn } from '../store/schedule.ts';
import { defaultDuration } from './reservation-settings.service.ts';
import type { ReservationStatus } from './reservation-status.ts';

/*
 * When a party can be seated (spec: Availability; decisions in docs/api-decisions.md, Reservations):
 * - Times: from each opening that starts on the date (its weekly windows, or the special day's own
 *   hours; a closed special day has none; `always_open` is no weekly schedule, so only a special
 *   day's own hours give times), every `slot_minutes` of real time from the opening, up to and
 *   including closing − `last_seating_minutes`. An overnight window belongs to the day it starts
 *   on. Local times resolve as the store's hours do (schedule.ts): a time in the spring-forward gap
 *   is the first instant after it, a repeated one its first occurrence; stepping in real minutes
 *   then offers both hours of a fall-back night and never a time that does not exist.
 * - A time is available when it is not past and a table, or an allowed combination of tables, is
 *   free for the whole duration: no reservation holding one of them (pending, confirmed, seated)
 *   overlaps [start, start + duration). A single table seats parties from its `min_party` (or 1)
 *   to its seats (own, else the restaurant's default); a combination seats up to the sum.
 * - Guests (storefront) also need tables bookable online (the table and its area), a time at least
 *   the lead time ahead and a date at most the horizon's days after today (local); staff and the API book any table at any time (spec: "books like staff").
 */

/** The statuses in which a reservation holds its tables. */
export const holdingStatuses: readonly ReservationStatus[] = ['pending', 'confirmed', 'seated'];

export interface BookableTable {
  id: string;
  seats: number;
  minParty: number;
  /** The table and its area are bookable online. */
  online: boolean;
}

/** What booking at one restaurant needs to know, read once per request. */
export interface Floor {
  name: string;
  timezone: string;
  language: string;
  livemode: boolean;
  schedule: Schedule;
  slotMinutes: number;
  durations: DurationRule[];
  lastSeatingMinutes: number;
  guestHorizonDays: number;
  guestLeadMinutes: number;
  tables: BookableTable[];
  /** Allowed combinations whose tables all still exist. */
  combinations: string[][];
}

/** An interval in which a reservation holds tables. */
export interface Hold {
  id: string;
  start: number;
  end: number;
  tableIds: readonly string[];
}

export interface Slot {
  starts_at: Date;
  available: boolean;
}

/** The floor, with the special days of the local dates `datesOf` names in the restaurant's time zone. */
export async function loadFloor(ctx: Ctx, datesOf: (timezone: string) => string[]): Promise<Floor> {
  const tenantId = tenantOf(ctx);
  const row = await ctx.db
    .selectFrom('restaurants as r')
    .innerJoin('stores as s', 's.tenant_id', 'r.id')
    .innerJoin('reservation_settings as rs', 'rs.tenant_id', 'r.id')
    .select(['r.name', 'r.timezone', 'r.language', 'r.livemode', 's.always_open', 's.opening_hours'])
    .select(['s.default_table_seats'])
    .select([
      'rs.slot_minutes',
      'rs.durations',
      'rs.last_seating_minutes',
      'rs.guest_horizon_days',
      'rs.guest_lead_minutes',
    ])
    .where('r.id', '=', tenantId)
    .executeTakeFirstOrThrow();
  const specialDays = await ctx.db
    .selectFrom('store_closures')
    .select([sql<string>`date::text`.as('date'), 'closed', 'hours'])
    .where('tenant_id', '=', tenantId)
    .where(sql<string>`date::text`, 'in', datesOf(row.timezone))
    .execute();
  const tables = await ctx.db
    .selectFrom('store_tables as t')
    .leftJoin('store_areas as a', (join) =>
      join.onRef('a.tenant_id', '=', 't.tenant_id').onRef('a.id', '=', 't.area_id'),
    )
    .select(['t.id', 't.seats', 't.min_party', 't.bookable_online', 'a.bookable_online as area_online'])
    .where('t.tenant_id', '=', tenantId)
    .orderBy('t.created_at')
    .orderBy('t.id')
    .execute();
  const known = new Set(tables.map((t) => t.id));
  const combinations = await ctx.db
    .selectFrom('reservation_combinations')
    .select('table_ids')
    .where('tenant_id', '=', tenantId)
    .execute();
  return {
    name: row.name,
    timezone: row.timezone,
    language: row.language,
    livemode: row.livemode,
    // Reservations have no times without a weekly schedule: always_open counts as none.
    schedule: {
      timezone: row.timezone,
      alwaysOpen: false,
      openingHours: row.always_open ? [] : row.opening_hours,
      specialDays,
    },
    slotMinutes: row.slot_minutes,
    durations: row.durations,
    lastSeatingMinutes: row.last_seating_minutes,
    guestHorizonDays: row.guest_horizon_days,
    guestLeadMinutes: row.guest_lead_minutes,
    tables: tables.map((t) => ({
      id: t.id,
      seats: t.seats ?? row.default_table_seats,
      minParty: t.min_party ?? 1,
      online: t.bookable_online && t.area_online !== false,
    })),
    combinations: combinations.map((c) => c.table_ids).filter((ids) => ids.every((id) => known.has(id))),
  };
}

/** The times offered on the local `date`, ascending (available or not). */
export function slotTimes(floor: Floor, date: string): number[] {
  const step = floor.slotMinutes * 60_000;
  const times = new Set<number>();
  for (const [open, close] of windowsStartingOn(floor.schedule, date)) {
    const last = close - floor.lastSeatingMinutes * 60_000;
    for (let at = open; at <= last; at += step) times.add(at);
  }
  return [...times].sort((a, b) => a - b);
}

/** The reservations holding tables between `from` and `until`, but `except` (the one being changed). */
export async function loadHolds(ctx: Ctx, from: number, until: number, except?: string): Promise<Hold[]> {
  const rows = await ctx.db
    .selectFrom('reservations')
    .select(['id', 'starts_at', 'duration_minutes', 'table_ids'])
    .where('tenant_id', '=', tenantOf(ctx))
    .where('deleted_at', 'is', null)
    .where('status', 'in', [...holdingStatuses])
    .where('starts_at', '<', new Date(until))
    .where(sql<boolean>`starts_at + duration_minutes * interval '1 minute' > ${new Date(from)}`)
    .$if(except !== undefined, (q) => q.where('id', '!=', except as string))
    .execute();
  return rows.map((r) => ({
    id: r.id,
    start: r.starts_at.getTime(),
    end: r.starts_at.getTime() + r.duration_minutes * 60_000,
    tableIds: r.table_ids,
  }));
}

function busyTables(holds: readonly Hold[], start: number, end: number): Set<string> {
  const busy = new Set<string>();
  for (const hold of holds)
    if (hold.start < end && start < hold.end) for (const id of hold.tableIds) busy.add(id);
  return busy;
}

export interface PlaceRequest {
  start: number;
  minutes: number;
  party: number;
  /** Only tables bookable online (guests). */
  guest: boolean;
}

/**
 * The tables a party gets at a time, or null when none is free: the smallest single table that
 * fits (then the oldest), else the allowed combination with the fewest seats that fits.
 */
export function findPlace(floor: Floor, holds: readonly Hold[], want: PlaceRequest): string[] | null {
  const busy = busyTables(holds, want.start, want.start + want.minutes * 60_000);
  const usable = new Map(
    floor.tables.filter((t) => !busy.has(t.id) && (!want.guest || t.online)).map((t) => [t.id, t]),
  );
  let best: BookableTable | null = null;
  for (const table of usable.values())
    if (table.seats >= want.party && want.party >= table.minParty && (!best || table.seats < best.seats))
      best = table;
  if (best) return [best.id];
  let bestSet: { ids: string[]; seats: number } | null = null;
  for (const ids of floor.combinations) {
    if (!ids.every((id) => usable.has(id))) continue;
    const seats = ids.reduce((sum, id) => sum + (usable.get(id) as BookableTable).seats, 0);
    if (seats >= want.party && (!bestSet || seats < bestSet.seats)) bestSet = { ids, seats };
  }
  return bestSet?.ids ?? null;
}

/** Whether the named tables exist, are free for the whole time and seat the party together. */
export function tablesFit(
  floor: Floor,
  holds: readonly Hold[],
  want: Omit<PlaceRequest, 'guest'>,
  tableIds: readonly string[],
): boolean {
  const busy = busyTables(holds, want.start, want.start + want.minutes * 60_000);
  const byId = new Map(floor.tables.map((t) => [t.id, t]));
  let seats = 0;
  for (const id of tableIds) {
    const table = byId.get(id);
    if (!table || busy.has(id)) return false;
    seats += table.seats;
  }
  return seats >= want.party;
}

/** The local dates `GET /reservations/availability` answers: yesterday to one year ahead (else 400). */
export function checkAvailabilityDate(timezone: string, date: string, now: Date): void {
  const today = DateTime.fromISO(localDate(timezone, now), { zone: 'utc' });
  const first = today.minus({ days: 1 }).toISODate() as string;
  const last = today.plus({ years: 1 }).toISODate() as string;
  if (date < first || date > last)
    throw new ApiError('invalid_request', `date must be between ${first} and ${last} (restaurant-local).`, {
      param: 'date',
    });
}

export interface Availability {
  object: 'availability';
  date: string;
  party_size: number;
  duration_minutes: number;
  timezone: string;
  slots: Slot[];
}

/**
 * The times of a local date for a party, each available or not. `guest`: as a guest books
 * (online tables, lead time, horizon); otherwise as staff and the API book.
 */
export async function availability(
  ctx: Ctx,
  input: { date: string; party_size: number; guest: boolean },
): Promise<Availability> {
  const floor = await loadFloor(ctx, () => [input.date]);
  const now = ctx.clock.now().getTime();
  checkAvailabilityDate(floor.timezone, input.date, new Date(now));
  const minutes = defaultDuration(floor.durations, input.party_size);
  const times = slotTimes(floor, input.date);
  const holds =
    times.length === 0
      ? []
      : await loadHolds(ctx, times[0] as number, (times.at(-1) as number) + minutes * 60_000);
  const earliest = input.guest ? now + floor.guestLeadMinutes * 60_000 : now;
  // The horizon counts whole local days: with 60, guests book up to the day 60 days after today.
  const lastGuestDate = DateTime.fromISO(localDate(floor.timezone, new Date(now)), { zone: 'utc' })
    .plus({ days: floor.guestHorizonDays })
    .toISODate() as string;
  const withinHorizon = !input.guest || input.date <= lastGuestDate;
  return {
    object: 'availability',
    date: input.date,
    party_size: input.party_size,
    duration_minutes: minutes,
    timezone: floor.timezone,
    slots: times.map((start) => ({
      starts_at: new Date(start),
      available:
        start >= earliest &&
        withinHorizon &&
        findPlace(floor, holds, { start, minutes, party: input.party_size, guest: input.guest }) !== null,
    })),
  };
}
