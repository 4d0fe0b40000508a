import { isDeepStrictEqual } from 'node:util';
import DataLoader from 'dataloader';
import {
  CompiledQuery,
  DummyDriver,
  type InferResult,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import { DateTime } from 'luxon';
import type { Db } from '../../db/client.ts';
import { perRestaurant } from '../../db/restaurant-batches.ts';
import type { DB } from '../../db/schema.ts';
import { type EventType, recordEvent } from '../events/events.store.ts';
import { checkOrderStatuses, finalOrderStatuses } from '../orders/order-status.ts';
import { type Clock, type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import type { ImageSizes } from '../shared/image-fetcher.ts';
import { type Feature, features, requireFeature } from '../shared/plans.ts';
import type { Plan } from '../shared/scopes.ts';
import { characterCount } from '../shared/text.ts';
import { parseTimestamp } from '../shared/timestamps.ts';
import { lockOrCollide, writeTransaction } from '../shared/write-collisions.ts';
import { storedZones } from './delivery-zones.ts';
import { localDate, storeStatus } from './schedule.ts';
import {
  type Closure,
  type ClosureInput,
  maxBusyHours,
  maxPauseNote,
  type OrderType,
  orderTypes,
  type PauseInput,
  type Store,
  type StoreHours,
  type StoreHoursInput,
  type StorePatch,
  type StoreSettingsPatch,
} from './store.schema.ts';
import type { StorefrontLook } from './storefront-look.ts';

/** Special days a restaurant may have ahead (spec: Limits). */
export const maxSpecialDays = 60;

/** The feature each order type needs (pickup and delivery are in every plan). */
const orderTypeFeatures: Partial<Record<OrderType, Feature>> = { dine_in: 'dine_in' };

/*
 * The address as one line; postal code and city are split out only when the line starts with a
 * postal code (digits, optionally with a dash part: `10115 Berlin`, `1010 Wien, Ring 1`).
 */
function addressOf(line: string | null, country: string | null): Store['address'] {
  if (line === null) return null;
  const match = /^(\d{3,6}(?:-\d{3,4})?)\s+([^,]+)/.exec(line.trim());
  return {
    line,
    postal_code: match?.[1] ?? null,
    city: match?.[2]?.trim() ?? null,
    country,
  };
}

/** Builds queries without a database: every database of ours (PostgreSQL, PGlite) speaks PostgreSQL. */
const queries = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/*
 * One query for a restaurant's store, its restaurant and its special days from the day before
 * `since` on (restaurant-local; yesterday's special day still decides a window of
 * yesterday that runs past midnight). With `lock`, the store's row is locked (NOWAIT: another
 * write under way is a collision). The special days' subquery names the restaurant itself: Citus
 * sends a statement to one restaurant's node only when each of its tables is filtered by the
 * restaurant (a correlation is not enough), and locks rows only in such a statement.
 */
function storeQuery(tenantId: string, since: Date, lock: boolean) {
  return queries
    .selectFrom('stores as s')
    .innerJoin('restaurants as r', 'r.id', 's.tenant_id')
    .select(['r.name', 'r.slug', 'r.timezone', 'r.currency', 'r.country', 'r.livemode', 'r.plan'])
    .select([
      's.tenant_id',
      's.preorders',
      's.pickup',
      's.delivery',
      's.dine_in',
      's.order_statuses',
      's.pickup_minutes',
      's.delivery_minutes',
      's.min_order',
      's.always_open',
      's.opening_hours',
      's.delivery_hours',
      's.phone',
      's.email',
      's.website',
      's.address_line',
      's.lat',
      's.lon',
      's.paused',
      's.paused_until',
      's.pause_note',
      's.busy_extra_minutes',
      's.busy_until',
      's.accent_color',
      's.logo_sizes',
      's.cover_sizes',
      's.delivery_zones',
    ])
    .select(
      sql<Array<Omit<Closure, 'object'>>>`(
        SELECT coalesce(json_agg(json_build_object(
          'date', c.date::text, 'closed', c.closed, 'hours', c.hours, 'note', c.note) ORDER BY c.date), '[]')
        FROM store_closures c
        WHERE c.tenant_id = s.tenant_id AND c.date >= (${since}::timestamptz AT TIME ZONE r.timezone)::date - 1
          AND c.tenant_id = ${tenantId}
      )`.as('days'),
    )
    .select(
      sql<string | null>`(
        SELECT v.version FROM menu_versions v WHERE v.tenant_id = s.tenant_id AND v.tenant_id = ${tenantId}
      )`.as('menu_version'),
    )
    .where('s.tenant_id', '=', tenantId)
    .$if(lock, (query) => query.forUpdate('s').noWait());
}

type StoreRow = InferResult<ReturnType<typeof storeQuery>>[number];

/*
 * GET /store is asked often, so its query costs no more than it must:
 * - it is built and compiled once (building and compiling it took about 25 µs per request); its
 *   parameters are, in the order of the text, `since` and the restaurant's id (three times);
 * - outside a transaction, the reads of requests that arrive in one pass of the event loop are
 *   one query per restaurant (DataLoader and perRestaurant, as for the token lookup), requests
 *   of one restaurant sharing its row.
 *   It caches nothing, so every request sees the store as it is at that moment; the special days
 *   are read from the earliest request's `since`, a superset of what each of them needs.
 */
const readText = storeQuery('', new Date(0), false).compile().sql;
const lockText = storeQuery('', new Date(0), true).compile().sql;

interface StoreRead {
  tenantId: string;
  now: Date;
}

const storeLoaders = new WeakMap<Db, DataLoader<StoreRead, StoreRow>>();

function storeLoader(db: Db): DataLoader<StoreRead, StoreRow> {
  let loader = storeLoaders.get(db);
  if (!loader) {
    loader = new DataLoader(
      (all) =>
        perRestaurant(
          all,
          (read) => read.tenantId,
          async (reads, tenantId) => {
            const since = new Date(Math.min(...reads.map((read) => read.now.getTime())));
            const { rows } = await db.executeQuery<StoreRow>(
              CompiledQuery.raw(readText, [since, tenantId, tenantId, tenantId]),
            );
            const [row] = rows;
            return reads.map(() => row ?? new Error(`no store for restaurant ${tenantId}`));
          },
        ),
      { cache: false, maxBatchSize: 100, batchScheduleFn: (run) => setImmediate(run) },
    );
    storeLoaders.set(db, loader);
  }
  return loader;
}

async function readStoreRow(ctx: Ctx, tenantId: string, now: Date, lock: boolean): Promise<StoreRow> {
  if (!lock && !ctx.db.isTransaction) return storeLoader(ctx.db).load({ tenantId, now });
  const { rows } = await lockOrCollide(
    ctx.db.executeQuery<StoreRow>(
      CompiledQuery.raw(lock ? lockText : readText, [now, tenantId, tenantId, tenantId]),
    ),
  );
  const [row] = rows;
  if (!row) throw new Error(`no store for restaurant ${tenantId}`);
  return row;
}

/** The store as shown, and what writes need of its restaurant. */
interface LoadedStore {
  store: Store;
  livemode: boolean;
  plan: Plan;
  country: string | null;
  look: StorefrontLook;
  /** The count of the restaurant's menu changes (countMenuChange): '0' before the first. */
  menuVersion: string;
  /** A busy period still stored whose `until` has passed (shown as no busy mode): the worker's to end. */
  endedBusy: Store['busy'];
}

/**
 * The restaurant's store as GET /store shows it now: status and next_opening_at computed from the
 * hours, special days and pause at this moment (never stored, so never stale). With `lock`, the
 * store's row is locked first (a collision is retried, write-collisions.ts).
 */
async function loadStore(ctx: Ctx, lock: boolean): Promise<LoadedStore> {
  const tenantId = tenantOf(ctx);
  const now = ctx.clock.now();
  const row = await readStoreRow(ctx, tenantId, now, lock);
  const days = row.days.map((day) => ({ object: 'closure' as const, ...day }));
  const today = localDate(row.timezone, now);
  const closures = days.filter((closure) => closure.date >= today);
  const { status, next_opening_at } = storeStatus(
    {
      timezone: row.timezone,
      alwaysOpen: row.always_open,
      openingHours: row.opening_hours,
      specialDays: days,
    },
    { paused: row.paused, until: row.paused_until },
    now,
  );
  const pauseActive = status === 'paused';
  // Busy mode is over at `until` (as a pause is), even before the worker clears it.
  const busy =
    row.busy_extra_minutes === null || row.busy_until === null
      ? null
      : { extra_minutes: row.busy_extra_minutes, until: row.busy_until };
  const busyActive = busy !== null && now < busy.until;
  const store: Store = {
    object: 'store',
    id: tenantId,
    name: row.name,
    slug: row.slug,
    timezone: row.timezone,
    currency: row.currency,
    status,
    paused_until: pauseActive ? row.paused_until : null,
    pause_note: pauseActive ? row.pause_note : null,
    next_opening_at,
    preorders: row.preorders,
    order_types: { pickup: row.pickup, delivery: row.delivery, dine_in: row.dine_in },
    order_statuses: [...row.order_statuses, ...finalOrderStatuses],
    lead_times: { pickup_minutes: row.pickup_minutes, delivery_minutes: row.delivery_minutes },
    busy: busyActive ? busy : null,
    min_order: row.min_order,
    always_open: row.always_open,
    opening_hours: row.opening_hours,
    delivery_hours: row.delivery_hours,
    closures,
    contact: { phone: row.phone, email: row.email, website: row.website },
    address: addressOf(row.address_line, row.country),
    location: row.lat === null || row.lon === null ? null : { lat: row.lat, lon: row.lon },
    delivery_zones: row.delivery_zones,
  };
  return {
    store,
    livemode: row.livemode,
    plan: row.plan,
    country: row.country,
    look: {
      accentColor: row.accent_color,
      logo: row.logo_sizes as ImageSizes | null,
      cover: row.cover_sizes as ImageSizes | null,
    },
    menuVersion: row.menu_version ?? '0',
    endedBusy: busyActive ? null : busy,
  };
}

export async function getStore(ctx: Ctx): Promise<Store> {
  return (await loadStore(ctx, false)).store;
}

/**
 * The store with what else its read has of the restaurant: the plan (the dashboard shows the order
 * types it lacks), whether it is live and its tax country setting (placing an order), and the
 * storefront's look and menu version (what it keeps of the menu is kept under it).
 */
export async function getStoreAndRestaurant(ctx: Ctx): Promise<{
  store: Store;
  plan: Plan;
  livemode: boolean;
  country: string | null;
  look: StorefrontLook;
  menuVersion: string;
}> {
  const { store, plan, livemode, country, look, menuVersion } = await loadStore(ctx, false);
  return { store, plan, livemode, country, look, menuVersion };
}

/** The plans that include an order type, or null when every plan does. */
export function plansWithOrderType(type: OrderType): readonly Plan[] | null {
  const feature = orderTypeFeatures[type];
  return feature ? features[feature].plans : null;
}

/**
 * Minutes from an order to the earliest time it can be ready: the lead time of its type (dine-in
 * has none) plus busy mode's extra minutes while the store is busy. `store` as read (getStore), so
 * a busy period whose `until` has passed is already null.
 */
export function leadMinutes(store: Store, type: OrderType): number {
  const own =
    type === 'pickup'
      ? store.lead_times.pickup_minutes
      : type === 'delivery'
        ? store.lead_times.delivery_minutes
        : 0;
  return own + (store.busy?.extra_minutes ?? 0);
}

/** Fields of the Store that are settings (status and the pause have events of their own). */
const settingFields = [
  'preorders',
  'order_types',
  'order_statuses',
  'lead_times',
  'busy',
  'min_order',
  'always_open',
  'opening_hours',
  'delivery_hours',
  'closures',
  'contact',
  'address',
  'location',
  'delivery_zones',
] as const satisfies ReadonlyArray<keyof Store>;

/**
 * Records store.updated when any of `fields` changed since `before`: `changed` names the Store
 * fields that did, `previous` holds their earlier values (decisions.md, Events). Returns the
 * store after.
 */
async function recordUpdate(
  ctx: Ctx,
  before: LoadedStore,
  fields: ReadonlyArray<keyof Store> = settingFields,
): Promise<LoadedStore> {
  const after = await loadStore(ctx, false);
  const changed = fields.filter((field) => !isDeepStrictEqual(before.store[field], after.store[field]));
  if (changed.length > 0) {
    await record(ctx, 'store.updated', after, {
      changed,
      previous: Object.fromEntries(changed.map((field) => [field, before.store[field]])),
    });
  }
  return after;
}

async function record(ctx: Ctx, type: EventType, { store, livemode }: LoadedStore, extra = {}) {
  await recordEvent(ctx, {
    tenantId: store.id,
    type,
    connectionId: null,
    livemode,
    data: { object: store, ...extra },
  });
}

const hourMs = 60 * 60 * 1000;

/*
 * PATCH's `busy` as stored: null ends busy mode; a period replaces the one before, its `until` in
 * the future and at most 24 hours ahead (else 400 on `busy.until`). The schema has checked
 * `extra_minutes` (5 to 120, the table's check too) and that `until` is a timestamp with a zone.
 */
function busyColumns(busy: Exclude<StorePatch['busy'], undefined>, now: Date) {
  if (busy === null) return { busy_extra_minutes: null, busy_until: null };
  const until = parseTimestamp(busy.until);
  if (until === null)
    throw new ApiError('invalid_request', 'busy.until is no instant.', { param: 'busy.until' });
  if (until <= now)
    throw new ApiError('invalid_request', 'busy.until must be in the future.', { param: 'busy.until' });
  if (until.getTime() - now.getTime() > maxBusyHours * hourMs)
    throw new ApiError('invalid_request', `busy.until must be at most ${maxBusyHours} hours ahead.`, {
      param: 'busy.until',
    });
  return { busy_extra_minutes: busy.extra_minutes, busy_until: until };
}

/**
 * PATCH /store (the API sends its fields; the dashboard may send the owner's settings too): only
 * the sent fields change. Switching an order type on needs a plan that includes it (403
 * plan_required on `order_types.<type>`); switching off is always allowed.
 */
export async function updateStore(ctx: Ctx, patch: StorePatch | StoreSettingsPatch): Promise<Store> {
  const settings: StoreSettingsPatch = patch;
  if (settings.order_statuses !== undefined) checkOrderStatuses(settings.order_statuses);
  const busy = settings.busy === undefined ? undefined : busyColumns(settings.busy, ctx.clock.now());
  const zones = settings.delivery_zones === undefined ? undefined : storedZones(settings.delivery_zones);
  let before = await loadStore(ctx, true);
  // A busy period that ended by itself, not yet cleared by the worker, is announced before this
  // write replaces it: every period that ends by itself is reported once.
  if (busy !== undefined) before = await endBusy(ctx, before);
  const { plan } = before;
  for (const type of orderTypes) {
    const feature = orderTypeFeatures[type];
    if (feature && patch.order_types?.[type] === true && !before.store.order_types[type])
      requireFeature(plan, feature, `order_types.${type}`);
  }
  await ctx.db
    .updateTable('stores')
    .set({
      ...(settings.preorders === undefined ? {} : { preorders: settings.preorders }),
      ...settings.order_types,
      ...settings.lead_times,
      ...(settings.min_order === undefined ? {} : { min_order: settings.min_order }),
      ...(settings.order_statuses === undefined ? {} : { order_statuses: settings.order_statuses }),
      ...settings.contact,
      ...(settings.address_line === undefined ? {} : { address_line: settings.address_line }),
      ...(settings.location === undefined
        ? {}
        : { lat: settings.location?.lat ?? null, lon: settings.location?.lon ?? null }),
      ...(settings.default_table_seats === undefined
        ? {}
        : { default_table_seats: settings.default_table_seats }),
      ...(zones === undefined ? {} : { delivery_zones: JSON.stringify(zones) }),
      ...busy,
      updated_at: ctx.clock.now(),
    })
    .where('tenant_id', '=', before.store.id)
    .execute();
  return (await recordUpdate(ctx, before)).store;
}

function hoursOf(store: Store): StoreHours {
  return {
    object: 'store_hours',
    always_open: store.always_open,
    opening_hours: store.opening_hours,
    delivery_hours: store.delivery_hours,
  };
}

export async function getStoreHours(ctx: Ctx): Promise<StoreHours> {
  return hoursOf(await getStore(ctx));
}

/** Windows in a stable order: by weekday, then opening time. */
function sorted<T extends { open: string; weekday?: number }>(windows: readonly T[]): T[] {
  return [...windows].sort((a, b) => (a.weekday ?? 0) - (b.weekday ?? 0) || a.open.localeCompare(b.open));
}

/*
 * PUT /store/hours: the sent parts are replaced. always_open means no weekly schedule: switching
 * it on clears opening_hours, and sending it with opening hours is a 400.
 */
export async function putStoreHours(ctx: Ctx, input: StoreHoursInput): Promise<StoreHours> {
  if (input.always_open === true && (input.opening_hours?.length ?? 0) > 0)
    throw new ApiError('invalid_request', 'A store that is always open has no weekly opening hours.', {
      param: 'opening_hours',
    });
  const before = await loadStore(ctx, true);
  const openingHours = input.always_open === true ? [] : input.opening_hours;
  await ctx.db
    .updateTable('stores')
    .set({
      ...(input.always_open === undefined ? {} : { always_open: input.always_open }),
      ...(openingHours === undefined ? {} : { opening_hours: JSON.stringify(sorted(openingHours)) }),
      ...(input.delivery_hours === undefined
        ? {}
        : { delivery_hours: JSON.stringify(sorted(input.delivery_hours)) }),
      updated_at: ctx.clock.now(),
    })
    .where('tenant_id', '=', before.store.id)
    .execute();
  return hoursOf((await recordUpdate(ctx, before)).store);
}

export async function listClosures(ctx: Ctx): Promise<Closure[]> {
  return (await getStore(ctx)).closures;
}

function checkDate(date: string, today: string): void {
  const day = DateTime.fromISO(date, { zone: 'utc' });
  if (!day.isValid || day.toISODate() !== date)
    throw new ApiError('invalid_request', `${date} is not a date.`, { param: 'date' });
  if (date < today)
    throw new ApiError('invalid_request', `${date} is in the past: special days are today or later.`, {
      param: 'date',
    });
}

/*
 * POST /store/closures: a special day, upserted by date (created → true for 201). Today or later
 * (restaurant-local); closed all day (no hours) or open in one or two windows of its own; at
 * most 60 special days ahead (422 limit_exceeded).
 */
export async function upsertClosure(
  ctx: Ctx,
  input: ClosureInput,
): Promise<{ closure: Closure; created: boolean }> {
  const before = await loadStore(ctx, true);
  checkDate(input.date, localDate(before.store.timezone, ctx.clock.now()));
  const hours = input.hours ?? [];
  if (input.closed && hours.length > 0)
    throw new ApiError('invalid_request', 'A day closed all day has no hours.', { param: 'hours' });
  if (!input.closed && hours.length === 0)
    throw new ApiError(
      'invalid_request',
      'A special day that is not closed needs its hours (one or two windows).',
      {
        param: 'hours',
      },
    );
  const exists = before.store.closures.some((closure) => closure.date === input.date);
  if (!exists && before.store.closures.length >= maxSpecialDays)
    throw new ApiError(
      'limit_exceeded',
      `A restaurant can have at most ${maxSpecialDays} special days ahead.`,
    );
  const now = ctx.clock.now();
  const values = {
    closed: input.closed,
    hours: JSON.stringify(sorted(hours)),
    note: input.note ?? null,
    updated_at: now,
  };
  await ctx.db
    .insertInto('store_closures')
    .values({ tenant_id: before.store.id, date: input.date, ...values, created_at: now })
    .onConflict((oc) => oc.columns(['tenant_id', 'date']).doUpdateSet(values))
    .execute();
  const { store: after } = await recordUpdate(ctx, before);
  const closure = after.closures.find((c) => c.date === input.date) as Closure;
  return { closure, created: !exists };
}

/** DELETE /store/closures/{date}: an upcoming special day only (others are not found). */
export async function deleteClosure(
  ctx: Ctx,
  date: string,
): Promise<{ object: 'closure'; date: string; deleted: true }> {
  const before = await loadStore(ctx, true);
  if (!before.store.closures.some((closure) => closure.date === date))
    throw new ApiError('not_found', `No special day on ${date}.`);
  await ctx.db
    .deleteFrom('store_closures')
    .where('tenant_id', '=', before.store.id)
    .where('date', '=', date)
    .execute();
  await recordUpdate(ctx, before);
  return { object: 'closure', date, deleted: true };
}

/*
 * POST /store/pause: pauses taking orders, until `until` (a future instant) or until lifted.
 * Pausing a store that is not paused records store.paused; changing the pause of a paused store
 * records store.updated with the changed fields.
 */
export async function pauseStore(ctx: Ctx, input: PauseInput): Promise<Store> {
  const before = await loadStore(ctx, true);
  const now = ctx.clock.now();
  const until = input.until === undefined || input.until === null ? null : parseTimestamp(input.until);
  if (until === null && typeof input.until === 'string')
    throw new ApiError('invalid_request', 'until is no instant.', { param: 'until' });
  if (until !== null && until <= now)
    throw new ApiError('invalid_request', 'until must be in the future.', { param: 'until' });
  const note = input.note ?? null;
  if (note !== null && characterCount(note) > maxPauseNote)
    throw new ApiError('invalid_request', `note is longer than ${maxPauseNote} characters.`, {
      param: 'note',
    });
  await ctx.db
    .updateTable('stores')
    .set({ paused: true, paused_until: until, pause_note: note, updated_at: now })
    .where('tenant_id', '=', before.store.id)
    .execute();
  if (before.store.status === 'paused')
    return (await recordUpdate(ctx, before, ['paused_until', 'pause_note'])).store;
  const after = await loadStore(ctx, false);
  await record(ctx, 'store.paused', after);
  return after.store;
}

/**
 * Lifts the store's pause and records store.resumed; without a pause nothing changes. With
 * `endedOnly` only a pause whose `until` has passed (the worker's job: a pause ends by itself).
 */
async function liftPause(ctx: Ctx, endedOnly: boolean): Promise<Store> {
  const before = await loadStore(ctx, true);
  const now = ctx.clock.now();
  let lift = ctx.db
    .updateTable('stores')
    .set({ paused: false, paused_until: null, pause_note: null, updated_at: now })
    .where('tenant_id', '=', before.store.id)
    .where('paused', '=', true);
  if (endedOnly) lift = lift.where('paused_until', '<=', now);
  const lifted = await lift.executeTakeFirst();
  const after = await loadStore(ctx, false);
  if (lifted.numUpdatedRows > 0n) await record(ctx, 'store.resumed', after);
  return after.store;
}

/** DELETE /store/pause. */
export function resumeStore(ctx: Ctx): Promise<Store> {
  return liftPause(ctx, false);
}

/** Ends the pauses whose `until` has passed (worker job), each in a transaction of its own. */
export async function liftEndedPauses(db: Db, clock: Clock): Promise<number> {
  const ended = await db
    .selectFrom('stores')
    .select('tenant_id')
    .where('paused', '=', true)
    .where('paused_until', '<=', clock.now())
    .limit(100)
    .execute();
  for (const { tenant_id } of ended) {
    await writeTransaction(db, (trx) =>
      liftPause({ db: trx, clock, tenantId: tenant_id, actor: { kind: 'system' } }, true),
    );
  }
  return ended.length;
}

/**
 * Ends the store's busy period if its `until` has passed: clears it and records store.updated with
 * `changed` ["busy"] and `previous` the period (recordUpdate would see no change: the store has
 * shown it as null since `until`), by the system whoever's write comes across it: it ended by
 * itself. Answers the store after.
 */
async function endBusy(ctx: Ctx, before: LoadedStore): Promise<LoadedStore> {
  if (before.endedBusy === null) return before;
  await ctx.db
    .updateTable('stores')
    .set({ busy_extra_minutes: null, busy_until: null, updated_at: ctx.clock.now() })
    .where('tenant_id', '=', before.store.id)
    .execute();
  const after = await loadStore(ctx, false);
  await record({ ...ctx, actor: { kind: 'system' } }, 'store.updated', after, {
    changed: ['busy'],
    previous: { busy: before.endedBusy },
  });
  return after;
}

/**
 * Ends the busy periods whose `until` has passed (worker job: busy mode ends by itself), each in a
 * transaction of its own. Answers how many it ended.
 */
export async function clearEndedBusyPeriods(db: Db, clock: Clock): Promise<number> {
  const ended = await db
    .selectFrom('stores')
    .select('tenant_id')
    .where('busy_until', '<=', clock.now())
    .limit(100)
    .execute();
  let count = 0;
  for (const { tenant_id } of ended) {
    count += await writeTransaction(db, async (trx) => {
      const ctx: Ctx = { db: trx, clock, tenantId: tenant_id, actor: { kind: 'system' } };
      const before = await loadStore(ctx, true);
      if (before.endedBusy === null) return 0;
      await endBusy(ctx, before);
      return 1;
    });
  }
  return count;
}
