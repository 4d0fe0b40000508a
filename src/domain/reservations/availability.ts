import { sql } from 'kysely';
import { DateTime } from 'luxon';
import type { DurationRule } from '../../db/schema.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { localDate, type Schedule, type SpecialDay, windowsStartingOn } from '../store/schedule.ts';
import { floorVersion, keptFor, type Versioned } from './floor-versions.ts';
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
 * - A reservation without tables yet (the API books none unless asked) holds room all the same:
 *   placeHolds seats each at the tables Servery would give it, so it counts as surely as one with
 *   tables and the restaurant is never overbooked.
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

/** An interval in which a reservation holds tables (none yet: placeHolds finds it room). */
export interface Hold {
  id: string;
  start: number;
  end: number;
  tableIds: readonly string[];
  party: number;
  /** When it was booked (ms): reservations without tables are placed in booking order. */
  bookedAt: number;
}

export interface Slot {
  starts_at: Date;
  available: boolean;
}

interface FloorRow {
  name: string;
  timezone: string;
  language: string;
  livemode: boolean;
  always_open: boolean;
  opening_hours: Schedule['openingHours'];
  slot_minutes: number;
  durations: DurationRule[];
  last_seating_minutes: number;
  guest_horizon_days: number;
  guest_lead_minutes: number;
  special_days: SpecialDay[];
  /** [id, seats, min_party, bookable online (the table and its area)] */
  tables: [string, number, number, boolean][];
  combinations: string[][];
  /** [id, start (ms), duration (minutes), table ids, party, booked (ms)]; with `holdsOn` only. */
  holds: [string, number, number, string[], number, number][] | null;
  version: string | null;
}

/**
 * The floor, with the special days of the local `dates`, in one statement; with `holdsOn`, also
 * the reservations holding tables at a time offered on that local date: a window starting on it
 * ends before the midnight two days later, and a party holds its table at most 600 minutes.
 * Availability is asked often: one round trip, the lists as JSON, costs the least. Every table
 * and subquery names the restaurant itself, so that Citus sends the statement to its node alone.
 */
export async function loadFloor(
  ctx: Ctx,
  dates: readonly string[],
  holdsOn?: string,
): Promise<Floor & { holds: Hold[]; version: string }> {
  const tenantId = tenantOf(ctx);
  const holds =
    holdsOn === undefined
      ? sql`null`
      : sql`(
        SELECT coalesce(json_agg(json_build_array(
          h.id, (extract(epoch FROM h.starts_at) * 1000)::bigint, h.duration_minutes, h.table_ids,
          h.party_size, (extract(epoch FROM h.created_at) * 1000)::bigint)), '[]')
        FROM reservations h
        WHERE h.tenant_id = ${tenantId} AND h.deleted_at IS NULL
          AND h.status IN (${sql.join(holdingStatuses)})
          AND h.starts_at < ((${holdsOn}::date + 2)::timestamp AT TIME ZONE r.timezone) + interval '600 minutes'
          AND h.starts_at + h.duration_minutes * interval '1 minute'
            > (${holdsOn}::date::timestamp AT TIME ZONE r.timezone)
      )`;
  const { rows } = await sql<FloorRow>`
    SELECT r.name, r.timezone, r.language, r.livemode, s.always_open, s.opening_hours,
      rs.slot_minutes, rs.durations, rs.last_seating_minutes, rs.guest_horizon_days,
      rs.guest_lead_minutes,
      (SELECT coalesce(json_agg(json_build_object('date', c.date::text, 'closed', c.closed, 'hours', c.hours)), '[]')
        FROM store_closures c
        WHERE c.tenant_id = ${tenantId} AND c.date = any(${[...dates]}::date[])
      ) AS special_days,
      (SELECT coalesce(json_agg(json_build_array(
          t.id, coalesce(t.seats, s.default_table_seats), coalesce(t.min_party, 1),
          t.bookable_online AND coalesce(a.bookable_online, true)) ORDER BY t.created_at, t.id), '[]')
        FROM store_tables t
        LEFT JOIN store_areas a ON a.tenant_id = t.tenant_id AND a.id = t.area_id
        WHERE t.tenant_id = ${tenantId}
      ) AS tables,
      (SELECT coalesce(json_agg(rc.table_ids), '[]') FROM reservation_combinations rc WHERE rc.tenant_id = ${tenantId}
      ) AS combinations,
      ${holds} AS holds,
      (SELECT ${floorVersion} FROM floor_versions fv WHERE fv.tenant_id = ${tenantId}) AS version
    FROM restaurants r
    JOIN stores s ON s.tenant_id = r.id
    JOIN reservation_settings rs ON rs.tenant_id = r.id
    WHERE r.id = ${tenantId} AND s.tenant_id = ${tenantId} AND rs.tenant_id = ${tenantId}
  `.execute(ctx.db);
  const row = rows[0];
  if (!row) throw new Error(`restaurant ${tenantId} has no store or reservation settings`);
  const tables = row.tables.map(([id, seats, minParty, online]) => ({ id, seats, minParty, online }));
  const known = new Set(tables.map((t) => t.id));
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
      specialDays: row.special_days,
    },
    slotMinutes: row.slot_minutes,
    durations: row.durations,
    lastSeatingMinutes: row.last_seating_minutes,
    guestHorizonDays: row.guest_horizon_days,
    guestLeadMinutes: row.guest_lead_minutes,
    tables,
    combinations: row.combinations.filter((ids) => ids.every((id) => known.has(id))),
    holds: (row.holds ?? []).map(([id, start, minutes, tableIds, party, bookedAt]) => ({
      id,
      start: Number(start),
      end: Number(start) + minutes * 60_000,
      tableIds,
      party,
      bookedAt: Number(bookedAt),
    })),
    version: row.version ?? '0',
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

/** Intervals [from, until) joined where they overlap or touch, ascending. */
function merged(spans: readonly (readonly [number, number])[]): [number, number][] {
  const joined: [number, number][] = [];
  for (const [from, until] of [...spans].sort((a, b) => a[0] - b[0])) {
    const last = joined.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], until);
    else joined.push([from, until]);
  }
  return joined;
}

/**
 * The reservations holding tables at any time of `spans`, with `known` (holds already read), and
 * every reservation overlapping one without tables among them, in turn: where placeHolds seats a
 * reservation without tables depends on those it overlaps, so they are read as well, until none
 * is missing (usually at once: most reservations have their tables).
 */
export async function loadHolds(
  ctx: Ctx,
  spans: readonly (readonly [number, number])[],
  known: readonly Hold[] = [],
): Promise<Hold[]> {
  const byId = new Map(known.map((hold) => [hold.id, hold]));
  let frontier: (readonly [number, number])[] = [
    ...spans,
    ...known.filter((hold) => hold.tableIds.length === 0).map((hold) => [hold.start, hold.end] as const),
  ];
  while (frontier.length > 0) {
    const rows = await ctx.db
      .selectFrom('reservations')
      .select(['id', 'starts_at', 'duration_minutes', 'table_ids', 'party_size', 'created_at'])
      .where('tenant_id', '=', tenantOf(ctx))
      .where('deleted_at', 'is', null)
      .where('status', 'in', [...holdingStatuses])
      .where((eb) =>
        eb.or(
          merged(frontier).map(([from, until]) =>
            eb.and([
              eb('starts_at', '<', new Date(until)),
              sql<boolean>`starts_at + duration_minutes * interval '1 minute' > ${new Date(from)}`,
            ]),
          ),
        ),
      )
      .execute();
    frontier = [];
    for (const row of rows) {
      if (byId.has(row.id)) continue;
      const hold: Hold = {
        id: row.id,
        start: row.starts_at.getTime(),
        end: row.starts_at.getTime() + row.duration_minutes * 60_000,
        tableIds: row.table_ids,
        party: row.party_size,
        bookedAt: row.created_at.getTime(),
      };
      byId.set(hold.id, hold);
      if (hold.tableIds.length === 0) frontier.push([hold.start, hold.end]);
    }
  }
  return [...byId.values()];
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

/** Booking order: when booked, then id. */
const byBooking = (a: Hold, b: Hold) => a.bookedAt - b.bookedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Where the reservations sit: one with tables at its own; each without (booked through the API,
 * which assigns none unless asked) at the tables Servery would give it, in booking order, against
 * those placed before it, as staff would seat it (any table). So a reservation without tables
 * holds room as surely as one with. One that finds none (a table deleted or made smaller since)
 * holds nothing and is listed in `unplaced`.
 */
export function placeHolds(floor: Floor, holds: readonly Hold[]): { holds: Hold[]; unplaced: Set<string> } {
  const placed = holds.filter((hold) => hold.tableIds.length > 0);
  const unplaced = new Set<string>();
  for (const hold of holds.filter((h) => h.tableIds.length === 0).sort(byBooking)) {
    const place = findPlace(floor, placed, {
      start: hold.start,
      minutes: (hold.end - hold.start) / 60_000,
      party: hold.party,
      guest: false,
    });
    if (place) placed.push({ ...hold, tableIds: place });
    else unplaced.add(hold.id);
  }
  return { holds: placed, unplaced };
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
 * The last local date guests may book: the horizon counts whole local days, so with 60 guests book
 * up to the day 60 days after today.
 */
export function lastGuestDate(floor: Pick<Floor, 'timezone' | 'guestHorizonDays'>, now: Date): string {
  return DateTime.fromISO(localDate(floor.timezone, now), { zone: 'utc' })
    .plus({ days: floor.guestHorizonDays })
    .toISODate() as string;
}

/** A date's times at a restaurant, and whether a party finds a place at each, as of `version`. */
interface DayPlan extends Versioned {
  floor: Floor;
  times: number[];
  holds: Hold[];
  /** By `${party}|${minutes}|${guest}`: whether each of `times` has a place, time limits aside. */
  places: Map<string, boolean[]>;
}

async function dayPlan(ctx: Ctx, date: string): Promise<DayPlan> {
  return keptFor(ctx, date, async () => {
    const { holds, version, ...floor } = await loadFloor(ctx, [date], date);
    // Reservations without tables take the room placeHolds gives them (it reads their neighbours).
    const placed = placeHolds(floor, await loadHolds(ctx, [], holds)).holds;
    return { version, floor, times: slotTimes(floor, date), holds: placed, places: new Map() };
  });
}

/**
 * The times of a local date for a party, each available or not. `guest`: as a guest books
 * (online tables, lead time, horizon); otherwise as staff and the API book. Computed once per
 * party while the restaurant's floor stands still (floor-versions.ts); only the time limits are
 * applied at every request.
 */
export async function availability(
  ctx: Ctx,
  input: { date: string; party_size: number; guest: boolean },
): Promise<Availability> {
  const plan = await dayPlan(ctx, input.date);
  const { floor, times } = plan;
  const now = ctx.clock.now().getTime();
  checkAvailabilityDate(floor.timezone, input.date, new Date(now));
  const minutes = defaultDuration(floor.durations, input.party_size);
  const key = `${input.party_size}|${minutes}|${input.guest}`;
  let places = plan.places.get(key);
  if (!places) {
    places = times.map(
      (start) =>
        findPlace(floor, plan.holds, { start, minutes, party: input.party_size, guest: input.guest }) !==
        null,
    );
    plan.places.set(key, places);
  }
  const earliest = input.guest ? now + floor.guestLeadMinutes * 60_000 : now;
  const withinHorizon = !input.guest || input.date <= lastGuestDate(floor, new Date(now));
  return {
    object: 'availability',
    date: input.date,
    party_size: input.party_size,
    duration_minutes: minutes,
    timezone: floor.timezone,
    slots: times.map((start, index) => ({
      starts_at: new Date(start),
      available: start >= earliest && withinHorizon && (places[index] as boolean),
    })),
  };
}
