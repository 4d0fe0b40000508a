import { type Insertable, type Selectable, sql } from 'kysely';
import type { ReservationsTable } from '../../db/schema.ts';
import { recordEvent } from '../events/events.store.ts';
import { isLive } from '../menu/menu-writes.ts';
import { newCode } from '../orders/order-placement.service.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid, newId, newSecret, sha256 } from '../shared/ids.ts';
import { inPageOrder, type ListOrder, type PageRange } from '../shared/paging.ts';
import { assertTransition } from '../shared/state-machine.ts';
import { localDate } from '../store/schedule.ts';
import {
  type Floor,
  findPlace,
  type Hold,
  loadFloor,
  loadHolds,
  placeHolds,
  slotTimes,
  tablesFit,
} from './availability.ts';
import type { Reservation, ReservationInput, ReservationPatch } from './reservation.schema.ts';
import { queueReservationCancelledEmail, queueReservationEmail } from './reservation-email.ts';
import { defaultDuration } from './reservation-settings.service.ts';
import { type ReservationStatus, reservationTransitions } from './reservation-status.ts';

/*
 * Reservations of one restaurant (spec: Reservation, POST/GET/PATCH /reservations; decisions.md,
 * Reservations). Every write takes the restaurant's reservation lock first (an advisory
 * transaction lock) and checks the floor inside it, so two bookings never both take the last
 * table and two changes of one reservation take turns; readers never wait for it.
 */

type Row = Selectable<ReservationsTable>;
export type ReservationSource = Row['source'];

/** Statuses in which time, party and tables may still change (decisions.md). */
const changeableStatuses: readonly ReservationStatus[] = ['pending', 'confirmed'];

async function lockReservations(ctx: Ctx): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`servery.reservations:${tenantOf(ctx)}`}, 0))`.execute(
    ctx.db,
  );
}

const notFound = (id: string) => new ApiError('not_found', `This restaurant has no reservation ${id}.`);

/** The Reservation resource: never the guest's phone, e-mail or language. */
export function reservationOf(row: Row): Reservation {
  return {
    object: 'reservation',
    id: row.id,
    code: row.code,
    status: row.status,
    starts_at: row.starts_at,
    duration_minutes: row.duration_minutes,
    party_size: row.party_size,
    table_ids: row.table_ids,
    source: row.source,
    guest_name: row.guest_name,
    note: row.note,
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
  };
}

function reservations(ctx: Ctx) {
  return ctx.db.selectFrom('reservations').selectAll().where('tenant_id', '=', tenantOf(ctx));
}

/** A reservation not deleted, locked for a write when `lock`. */
async function loadRow(ctx: Ctx, id: string, lock: boolean): Promise<Row> {
  if (!isUuid(id)) throw notFound(id);
  const row = await reservations(ctx)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .$if(lock, (q) => q.forUpdate())
    .executeTakeFirst();
  if (!row) throw notFound(id);
  return row;
}

export async function getReservation(ctx: Ctx, id: string): Promise<Reservation> {
  return reservationOf(await loadRow(ctx, id, false));
}

/** GET /reservations filters; each absent means no filter. */
export interface ReservationFilters {
  status?: readonly string[];
  updated_since?: Date;
  starts_from?: Date;
  starts_until?: Date;
}

/** Ascending starts_at with a start filter; else as orders: newest change first, ascending with updated_since. */
export function reservationListOrder(filters: ReservationFilters): ListOrder<'updated_at' | 'starts_at'> {
  if (filters.starts_from !== undefined || filters.starts_until !== undefined)
    return { key: 'starts_at', direction: 'asc' };
  return { key: 'updated_at', direction: filters.updated_since === undefined ? 'desc' : 'asc' };
}

export async function listReservations(
  ctx: Ctx,
  filters: ReservationFilters,
  page: PageRange,
): Promise<Reservation[]> {
  let query = reservations(ctx).where('deleted_at', 'is', null);
  if (filters.status) query = query.where('status', 'in', filters.status as ReservationStatus[]);
  if (filters.updated_since) query = query.where('updated_at', '>', filters.updated_since);
  if (filters.starts_from) query = query.where('starts_at', '>=', filters.starts_from);
  if (filters.starts_until) query = query.where('starts_at', '<', filters.starts_until);
  const rows = await inPageOrder(query, reservationListOrder(filters), page).execute();
  return rows.map(reservationOf);
}

/** A phone number has at least six digits (spacing, `+`, brackets and dashes aside). */
function checkPhone(phone: string): void {
  if ((phone.match(/\d/g) ?? []).length < 6)
    throw new ApiError('invalid_request', 'guest_phone needs at least six digits.', { param: 'guest_phone' });
}

function checkNotBlank(text: string, param: string): void {
  if (text.trim() === '') throw new ApiError('invalid_request', `${param} may not be blank.`, { param });
}

function unavailable(message: string, param: string): ApiError {
  return new ApiError('slot_unavailable', message, { param });
}

/**
 * `start` is one of the times offered for its local date (windows of the day before may run past
 * midnight into it, so that day's times count too) and not past.
 */
function checkOffered(floor: Floor, start: number, now: number): void {
  const date = localDate(floor.timezone, new Date(start));
  const dayBefore = localDate(floor.timezone, new Date(Date.parse(`${date}T12:00:00Z`) - 86_400_000));
  const offered = slotTimes(floor, date).includes(start) || slotTimes(floor, dayBefore).includes(start);
  if (!offered)
    throw unavailable(
      'This is not a time the restaurant offers; see GET /reservations/availability.',
      'starts_at',
    );
  if (start < now) throw unavailable('This time has passed.', 'starts_at');
}

/**
 * The local dates `start` and the day before it can be on, in any time zone (UTC−12 to UTC+14):
 * the special days that decide whether it is offered are among them.
 */
function datesAround(start: number): string[] {
  const hour = 3600_000;
  const dates: string[] = [];
  for (let at = start - 36 * hour; at < start + 14 * hour + 24 * hour; at += 24 * hour) {
    const date = localDate('UTC', new Date(Math.min(at, start + 14 * hour)));
    if (!dates.includes(date)) dates.push(date);
  }
  return dates;
}
/** Distinct table ids (400 on table_ids otherwise). */
function checkDistinct(tableIds: readonly string[]): void {
  if (new Set(tableIds).size !== tableIds.length)
    throw new ApiError('invalid_request', 'table_ids names a table twice.', { param: 'table_ids' });
}

/**
 * Which tables a reservation is to have:
 * - `named`: exactly these (the API's or the host's choice);
 * - `assign`: Servery picks free tables that seat the party, keeping the ones given (its tables
 *   until now) while they are still free and seat it (staff and guests booking, a move of a
 *   reservation with tables, PATCH `table_ids: []` with none kept);
 * - `none`: no tables yet (the API without `table_ids`), but room must be free for it all the same.
 */
type TableChoice = { named: readonly string[] } | { assign: readonly string[] } | 'none';

/** The reservation as a hold at the wanted time, with `tableIds`. */
function holdOf(
  want: { start: number; minutes: number; party: number },
  id: string,
  bookedAt: number,
  tableIds: readonly string[],
): Hold {
  return {
    id,
    start: want.start,
    end: want.start + want.minutes * 60_000,
    tableIds,
    party: want.party,
    bookedAt,
  };
}

/**
 * The tables the reservation `self` holds at the wanted time (see TableChoice), checked against
 * every other reservation holding tables then. Reservations without tables count at the tables
 * placeHolds gives them; named tables may take such a place when placeHolds then finds the other
 * reservation room elsewhere, so no reservation that had room loses it. 409 slot_unavailable
 * (`table_ids` for named tables, else `starts_at`) when there is none.
 */
async function placeFor(
  ctx: Ctx,
  floor: Floor,
  want: { start: number; minutes: number; party: number; guest: boolean },
  choice: TableChoice,
  self: { id: string; bookedAt: number; was?: Hold },
): Promise<string[]> {
  const spans: [number, number][] = [[want.start, want.start + want.minutes * 60_000]];
  if (self.was) spans.push([self.was.start, self.was.end]);
  const all = await loadHolds(ctx, spans);
  const others = all.filter((hold) => hold.id !== self.id);
  const before = placeHolds(floor, self.was ? [...others, self.was] : others).unplaced;
  /** Whether the reservation with `tableIds` leaves every other one that had room with room. */
  const fits = (tableIds: readonly string[]) => {
    const after = placeHolds(floor, [...others, holdOf(want, self.id, self.bookedAt, tableIds)]).unplaced;
    return [...after].every((id) => id !== self.id && before.has(id));
  };
  const ownTables = others.filter((hold) => hold.tableIds.length > 0);
  if (typeof choice === 'object' && 'named' in choice) {
    checkDistinct(choice.named);
    if (!tablesFit(floor, ownTables, want, choice.named))
      throw unavailable(
        'These tables do not exist, are not free then, or do not seat the party.',
        'table_ids',
      );
    if (!fits(choice.named))
      throw unavailable(
        'These tables are free, but reservations without tables need them then: there is no room left for them elsewhere.',
        'table_ids',
      );
    return [...choice.named];
  }
  if (choice === 'none') {
    if (!fits([])) throw unavailable('No table is free for this party at this time.', 'starts_at');
    return [];
  }
  const keep = choice.assign;
  if (keep.length > 0 && tablesFit(floor, ownTables, want, keep) && fits(keep)) return [...keep];
  const place = findPlace(floor, placeHolds(floor, others).holds, want);
  if (!place) throw unavailable('No table is free for this party at this time.', 'starts_at');
  return place;
}

/** Inserts under a code no other reservation of the restaurant has (six characters). */
async function insertWithFreshCode(ctx: Ctx, row: Omit<Insertable<ReservationsTable>, 'code'>): Promise<Row> {
  for (;;) {
    const inserted = await ctx.db
      .insertInto('reservations')
      .values({ ...row, code: newCode(6) })
      .onConflict((conflict) => conflict.columns(['tenant_id', 'code']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return inserted;
  }
}

/**
 * A new reservation (POST /reservations, staff at the dashboard, guests at the storefront): every
 * rule of the spec's table, the time one that is offered and not past, room free for the whole
 * duration (the tables named, else tables Servery picks; through the API none yet). Emits
 * reservation.created and, with guest_email and notify_guest not false, e-mails the guest (never
 * from a test restaurant).
 */
export async function createReservation(
  ctx: Ctx,
  input: ReservationInput,
  source: ReservationSource,
): Promise<Reservation> {
  checkNotBlank(input.guest_name, 'guest_name');
  if (input.guest_phone !== undefined) checkPhone(input.guest_phone);
  if (input.notify_guest === true && input.guest_email === undefined)
    throw new ApiError('invalid_request', 'notify_guest needs guest_email.', { param: 'notify_guest' });
  const start = new Date(input.starts_at).getTime();
  const now = ctx.clock.now();
  await lockReservations(ctx);
  const floor = await loadFloor(ctx, datesAround(start));
  checkOffered(floor, start, now.getTime());
  const minutes = input.duration_minutes ?? defaultDuration(floor.durations, input.party_size);
  // The API gives a reservation the tables asked for, or none yet (spec: `table_ids` default
  // none); staff at the dashboard and guests at the storefront get free tables Servery picks.
  const named = input.table_ids !== undefined && input.table_ids.length > 0;
  const id = newId();
  const tableIds = await placeFor(
    ctx,
    floor,
    { start, minutes, party: input.party_size, guest: source === 'guest' },
    named ? { named: input.table_ids as string[] } : source === 'api' ? 'none' : { assign: [] },
    { id, bookedAt: now.getTime() },
  );
  const emailed = input.guest_email !== undefined && input.notify_guest !== false && floor.livemode;
  // Where the storefront's address is known, the guest's e-mail has a link to cancel.
  const cancelToken = emailed && ctx.storefront !== undefined ? newSecret('rct_') : null;
  const row = await insertWithFreshCode(ctx, {
    tenant_id: tenantOf(ctx),
    id,
    status: input.status ?? 'confirmed',
    starts_at: new Date(start),
    duration_minutes: minutes,
    party_size: input.party_size,
    table_ids: tableIds,
    source,
    guest_name: input.guest_name,
    guest_phone: input.guest_phone ?? null,
    guest_email: input.guest_email ?? null,
    notify_guest: input.notify_guest !== false,
    guest_locale: input.guest_locale ?? null,
    note: input.note ?? null,
    cancel_token_hash: cancelToken === null ? null : sha256(cancelToken),
    created_at: now,
    updated_at: now,
  });
  const reservation = reservationOf(row);
  await recordEvent(ctx, {
    tenantId: row.tenant_id,
    type: 'reservation.created',
    connectionId: null,
    livemode: floor.livemode,
    data: { object: reservation },
  });
  if (emailed) await queueReservationEmail(ctx, floor, row, cancelToken);
  return reservation;
}

/** The fields a PATCH may change, in the order `changed` lists them. */
const patchFields = [
  'status',
  'starts_at',
  'party_size',
  'duration_minutes',
  'table_ids',
  'guest_name',
  'note',
] as const;
type PatchField = (typeof patchFields)[number];

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

/**
 * PATCH /reservations/{id} (decisions.md): status through the transition table (409
 * invalid_transition naming the statuses possible now); time, party, duration and tables only
 * while pending or confirmed and still bookable (409 slot_unavailable). A refusal changes nothing.
 * Emits reservation.updated with `changed`, `previous` (and `previous_status` when the status
 * moved); a PATCH that changes nothing answers the reservation as it is and records no event.
 * A cancellation e-mails the guest who gave their e-mail (never from a test restaurant).
 */
export async function updateReservation(ctx: Ctx, id: string, patch: ReservationPatch): Promise<Reservation> {
  await lockReservations(ctx);
  const row = await loadRow(ctx, id, true);
  const now = ctx.clock.now();
  const next: Pick<Row, PatchField> = {
    status: patch.status ?? row.status,
    starts_at: patch.starts_at === undefined ? row.starts_at : new Date(patch.starts_at),
    party_size: patch.party_size ?? row.party_size,
    duration_minutes: patch.duration_minutes ?? row.duration_minutes,
    table_ids: patch.table_ids ?? row.table_ids,
    guest_name: patch.guest_name ?? row.guest_name,
    note: patch.note === undefined ? row.note : patch.note,
  };
  if (patch.guest_name !== undefined) checkNotBlank(patch.guest_name, 'guest_name');
  if (next.status !== row.status)
    assertTransition(reservationTransitions, 'reservation', row.status, next.status);
  const booking = (['starts_at', 'party_size', 'duration_minutes', 'table_ids'] as const).filter(
    (field) =>
      !sameValue(next[field], row[field]) || (field === 'table_ids' && patch.table_ids?.length === 0),
  );
  if (booking.length > 0) {
    if (!changeableStatuses.includes(row.status))
      throw new ApiError(
        'invalid_transition',
        `This reservation is ${row.status}: time, party and tables change only while pending or confirmed.`,
        { param: booking[0] as string },
      );
    const start = next.starts_at.getTime();
    const floor = await loadFloor(ctx, datesAround(start));
    if (start !== row.starts_at.getTime()) checkOffered(floor, start, now.getTime());
    // Named tables; `[]`: Servery picks; else the tables kept while they fit (others picked when
    // not), and a reservation without tables stays without.
    const choice: TableChoice =
      patch.table_ids !== undefined && patch.table_ids.length > 0
        ? { named: patch.table_ids }
        : patch.table_ids !== undefined
          ? { assign: [] }
          : row.table_ids.length > 0
            ? { assign: row.table_ids }
            : 'none';
    next.table_ids = await placeFor(
      ctx,
      floor,
      { start, minutes: next.duration_minutes, party: next.party_size, guest: false },
      choice,
      {
        id: row.id,
        bookedAt: row.created_at.getTime(),
        was: holdOf(
          { start: row.starts_at.getTime(), minutes: row.duration_minutes, party: row.party_size },
          row.id,
          row.created_at.getTime(),
          row.table_ids,
        ),
      },
    );
  }
  const changed = patchFields.filter((field) => !sameValue(next[field], row[field]));
  if (changed.length === 0) return reservationOf(row);
  const updated = await ctx.db
    .updateTable('reservations')
    .set({ ...next, updated_at: now })
    .where('tenant_id', '=', row.tenant_id)
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const before = reservationOf(row);
  await recordEvent(ctx, {
    tenantId: row.tenant_id,
    type: 'reservation.updated',
    connectionId: null,
    livemode: await isLive(ctx),
    data: {
      object: reservationOf(updated),
      changed,
      previous: Object.fromEntries(changed.map((field) => [field, before[field]])),
      ...(next.status !== row.status && { previous_status: row.status }),
    },
  });
  if (next.status === 'cancelled' && row.status !== 'cancelled')
    await queueReservationCancelledEmail(ctx, updated);
  return reservationOf(updated);
}

/**
 * The restaurant removes a reservation (dashboard): it is never listed or found again, and a final
 * reservation.updated reports it with `deleted_at`.
 */
export async function deleteReservation(ctx: Ctx, id: string): Promise<void> {
  await lockReservations(ctx);
  const row = await loadRow(ctx, id, true);
  const now = ctx.clock.now();
  const deleted = await ctx.db
    .updateTable('reservations')
    .set({ deleted_at: now, updated_at: now })
    .where('tenant_id', '=', row.tenant_id)
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordEvent(ctx, {
    tenantId: row.tenant_id,
    type: 'reservation.updated',
    connectionId: null,
    livemode: await isLive(ctx),
    data: { object: reservationOf(deleted), changed: ['deleted_at'], previous: { deleted_at: null } },
  });
}
