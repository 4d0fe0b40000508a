import { sql } from 'kysely';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import {
  type AvailabilityEntry,
  type AvailabilityInput,
  type AvailabilityUpdate,
  maxAvailabilityEntries,
} from './availability.schema.ts';
import type { Option, Product } from './menu.schema.ts';
import { changedFields, lockMenu, recordMenuEvents, viewerApp } from './menu-writes.ts';
import { optionOf, optionsOf } from './option-group-rows.ts';
import { productsWithIds } from './products.service.ts';
import { type SoldOutState, soldOutState } from './sold-out-until.ts';

type Kind = AvailabilityEntry['type'];
const tableOf = { product: 'menu_products', option: 'menu_options' } as const;

interface StoredRow extends SoldOutState {
  id: string;
  external_id: string | null;
  external_id_app_id: string | null;
}

interface Change {
  kind: Kind;
  id: string;
  before: SoldOutState;
  after: SoldOutState;
}

/*
 * POST /menu/availability (decisions.md, Menu; docs/api-decisions.md, Menu), one transaction:
 * - at most 500 entries (more: 422 limit_exceeded); the menu lock first, as every menu write;
 * - each entry names one of the restaurant's products or options by `id` or by the caller's own
 *   `external_id`, exactly one of the two (else a 400 on `entries[i].id`); a name of nothing (another
 *   restaurant's object, another app's external_id, the other type) is a 400 on the field used, and
 *   an object named again a 400 on the later entry: nothing changes;
 * - `available` and `until` follow the sold-out rules (sold-out-until.ts), a 400 on `entries[i].until`;
 * - the named objects are read in one query per type and the changed ones written in one statement
 *   per type, updated_at now; each records its menu.*.updated with `changed` and `previous`, all
 *   recorded together in the entries' order. An entry that changes nothing keeps updated_at and
 *   records nothing (counted as unchanged).
 */
export async function updateAvailability(ctx: Ctx, input: AvailabilityInput): Promise<AvailabilityUpdate> {
  const { entries } = input;
  if (entries.length > maxAvailabilityEntries)
    throw new ApiError(
      'limit_exceeded',
      `At most ${maxAvailabilityEntries} entries per request, not ${entries.length}: split them.`,
      { param: 'entries' },
    );
  await lockMenu(ctx);
  const viewer = await viewerApp(ctx);
  const now = ctx.clock.now();
  const stored = {
    product: await storedRows(ctx, 'product', entries, viewer),
    option: await storedRows(ctx, 'option', entries, viewer),
  };
  const named = new Set<string>();
  const changes: Change[] = [];
  for (const [index, entry] of entries.entries()) {
    const at = `entries[${index}]`;
    if ((entry.id === undefined) === (entry.external_id === undefined))
      throw new ApiError('invalid_request', `${at} names its object by exactly one of id and external_id.`, {
        param: `${at}.id`,
      });
    const key = entry.id === undefined ? 'external_id' : 'id';
    const row = stored[entry.type][key].get(entry[key] as string);
    if (!row)
      throw new ApiError('invalid_request', `This restaurant has no ${entry.type} ${entry[key]}.`, {
        param: `${at}.${key}`,
      });
    if (named.has(`${entry.type}:${row.id}`))
      throw new ApiError('invalid_request', `${at} names a ${entry.type} an earlier entry names.`, {
        param: `${at}.${key}`,
      });
    named.add(`${entry.type}:${row.id}`);
    const after = soldOutState(row, { available: entry.available, until: entry.until }, now, `${at}.until`);
    if (changedOf(row, after).length > 0) changes.push({ kind: entry.type, id: row.id, before: row, after });
  }
  await writeChanges(ctx, 'product', changes, now);
  await writeChanges(ctx, 'option', changes, now);
  await recordChanges(ctx, changes, viewer);
  return {
    object: 'availability_update',
    updated: changes.length,
    unchanged: entries.length - changes.length,
  };
}

/**
 * The objects of `kind` the entries name, read in one query, by id and by external_id (only
 * `viewer`'s own values name anything).
 */
async function storedRows(
  ctx: Ctx,
  kind: Kind,
  entries: readonly AvailabilityEntry[],
  viewer: string | null,
): Promise<Record<'id' | 'external_id', Map<string, StoredRow>>> {
  const ofKind = entries.filter((entry) => entry.type === kind);
  const ids = ofKind.flatMap((entry) => (entry.id === undefined ? [] : [entry.id]));
  const externalIds = ofKind.flatMap((entry) => (entry.external_id === undefined ? [] : [entry.external_id]));
  const rows = await namedRows(ctx, kind, ids, viewer === null ? [] : externalIds, viewer);
  return {
    id: new Map(rows.map((row) => [row.id, row])),
    external_id: new Map(
      rows.flatMap((row) =>
        row.external_id !== null && row.external_id_app_id === viewer ? [[row.external_id, row]] : [],
      ),
    ),
  };
}

async function namedRows(
  ctx: Ctx,
  kind: Kind,
  ids: readonly string[],
  externalIds: readonly string[],
  viewer: string | null,
): Promise<StoredRow[]> {
  if (ids.length === 0 && externalIds.length === 0) return [];
  return ctx.db
    .selectFrom(tableOf[kind])
    .select(['id', 'external_id', 'external_id_app_id', 'available', 'unavailable_until'])
    .where('tenant_id', '=', tenantOf(ctx))
    .where((eb) =>
      eb.or([
        ...(ids.length > 0 ? [eb('id', 'in', [...ids])] : []),
        ...(externalIds.length > 0
          ? [eb.and([eb('external_id', 'in', [...externalIds]), eb('external_id_app_id', '=', viewer)])]
          : []),
      ]),
    )
    .execute();
}

/** The resource fields that differ, in the resource's order. */
function changedOf(before: SoldOutState, after: SoldOutState): (keyof SoldOutState)[] {
  return changedFields(['available', 'unavailable_until'] as const, before, after);
}

/** The changes of `kind` in one statement: each row its own values, updated_at `now`. */
async function writeChanges(ctx: Ctx, kind: Kind, changes: readonly Change[], now: Date): Promise<void> {
  const rows = changes
    .filter((change) => change.kind === kind)
    .map((change) => ({ id: change.id, ...change.after }));
  if (rows.length === 0) return;
  await sql`
    UPDATE ${sql.table(tableOf[kind])} AS o
    SET available = v.available, unavailable_until = v.unavailable_until, updated_at = ${now}
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS v(id uuid, available boolean, unavailable_until timestamptz)
    WHERE o.tenant_id = ${tenantOf(ctx)} AND o.id = v.id
  `.execute(ctx.db);
}

/** menu.product.updated / menu.option.updated for each change, in the entries' order. */
async function recordChanges(ctx: Ctx, changes: readonly Change[], viewer: string | null): Promise<void> {
  const ofKind = (kind: Kind) => changes.filter((change) => change.kind === kind).map((change) => change.id);
  const products = new Map<string, Product | Option>(
    (await productsWithIds(ctx, ofKind('product'), viewer)).map((product) => [product.id, product]),
  );
  const optionIds = ofKind('option');
  const options = new Map<string, Product | Option>(
    optionIds.length === 0
      ? []
      : (await optionsOf(ctx).where('id', 'in', optionIds).execute()).map((row) => [
          row.id,
          optionOf(row, viewer),
        ]),
  );
  await recordMenuEvents(
    ctx,
    changes.map((change) => {
      const object = (change.kind === 'product' ? products : options).get(change.id);
      if (!object) throw new Error(`the changed ${change.kind} ${change.id} is gone`);
      const changed = changedOf(change.before, change.after);
      return {
        type: `menu.${change.kind}.updated` as const,
        object,
        changed,
        previous: Object.fromEntries(changed.map((field) => [field, change.before[field]])),
      };
    }),
  );
}
