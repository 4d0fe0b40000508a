import { randomBytes } from 'node:crypto';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid, newId } from '../shared/ids.ts';
import { creationOrder, inPageOrder, type PageRange } from '../shared/paging.ts';
import { checkAreaForTable } from './areas.service.ts';
import { checkedPartySize, checkedText } from './floor-input.ts';
import {
  type DashboardTable,
  maxLabel,
  type Table,
  type TableInput,
  type TablePatch,
} from './table.schema.ts';

const noTable = (id: string) => new ApiError('not_found', `This restaurant has no table ${id}.`);

/** A table's QR key: 128 random bits, short enough for a small code (base64url, 22 characters). */
function newQrKey(): string {
  return randomBytes(16).toString('base64url');
}

/** The restaurant's tables with the store's default size, which a table without its own takes. */
function tablesOf(ctx: Ctx) {
  return ctx.db
    .selectFrom('store_tables as t')
    .innerJoin('stores as s', 's.tenant_id', 't.tenant_id')
    .select([
      't.id',
      't.label',
      't.seats',
      't.area_id',
      't.bookable_online',
      't.min_party',
      't.qr_key',
      't.created_at',
      's.default_table_seats',
    ])
    .where('t.tenant_id', '=', tenantOf(ctx));
}

type TableRow = NonNullable<Awaited<ReturnType<ReturnType<typeof tablesOf>['executeTakeFirst']>>>;

function tableOf(row: TableRow): DashboardTable {
  return {
    object: 'table',
    id: row.id,
    label: row.label,
    seats: row.seats ?? row.default_table_seats,
    area_id: row.area_id,
    bookable_online: row.bookable_online,
    min_party: row.min_party,
    seats_is_default: row.seats === null,
    qr_key: row.qr_key,
    created_at: row.created_at,
  };
}

/** The Table resource of the public API: never the QR key. */
export function publicTable(table: DashboardTable): Table {
  const { object, id, label, seats, area_id, bookable_online, min_party } = table;
  return { object, id, label, seats, area_id, bookable_online, min_party };
}

/** The tables in creation order after `page.after`: up to `page.limit`, or all without one. */
export async function listTables(ctx: Ctx, page: PageRange): Promise<DashboardTable[]> {
  return (await inPageOrder(tablesOf(ctx), creationOrder, page, 't').execute()).map(tableOf);
}

async function loadTable(ctx: Ctx, tableId: string): Promise<DashboardTable> {
  const row = await tablesOf(ctx).where('t.id', '=', knownId(tableId)).executeTakeFirst();
  if (!row) throw noTable(tableId);
  return tableOf(row);
}

/**
 * The table's fields once checked:
 * - label: trimmed, not blank, at most 40 characters; seats and min_party: null or 1 to 200;
 * - area_id: null or one of the restaurant's areas (400 on area_id);
 * - a table is never kept for parties larger than it seats: min_party at most its seats (its own,
 *   else the default), refused on the field the write sent (min_party, else seats).
 */
async function checkedTable(
  ctx: Ctx,
  fields: { label: string; seats: number | null; area_id: string | null; min_party: number | null },
  sent: { area: boolean; minParty: boolean },
  defaultSeats: number,
) {
  const label = checkedText(fields.label, 'label', maxLabel);
  const seats = checkedPartySize(fields.seats, 'seats');
  const minParty = checkedPartySize(fields.min_party, 'min_party');
  if (sent.area && fields.area_id !== null) await checkAreaForTable(ctx, fields.area_id);
  const tableSeats = seats ?? defaultSeats;
  if (minParty !== null && minParty > tableSeats) {
    const param = sent.minParty ? 'min_party' : 'seats';
    throw new ApiError(
      'invalid_request',
      `min_party (${minParty}) is larger than the table's seats (${tableSeats}).`,
      { param },
    );
  }
  return { label, seats, area_id: fields.area_id, min_party: minParty };
}

/** The seats of a table whose own seats are not set: the store's default table size. */
export async function defaultSeatsOf(ctx: Ctx): Promise<number> {
  const store = await ctx.db
    .selectFrom('stores')
    .select('default_table_seats')
    .where('tenant_id', '=', tenantOf(ctx))
    .executeTakeFirstOrThrow();
  return store.default_table_seats;
}

/** Adds a table with a new QR key. */
export async function createTable(ctx: Ctx, input: TableInput): Promise<DashboardTable> {
  const fields = await checkedTable(
    ctx,
    {
      label: input.label,
      seats: input.seats ?? null,
      area_id: input.area_id ?? null,
      min_party: input.min_party ?? null,
    },
    { area: true, minParty: input.min_party !== undefined },
    await defaultSeatsOf(ctx),
  );
  const id = newId();
  await ctx.db
    .insertInto('store_tables')
    .values({
      tenant_id: tenantOf(ctx),
      id,
      ...fields,
      ...(input.bookable_online === undefined ? {} : { bookable_online: input.bookable_online }),
      qr_key: newQrKey(),
      created_at: ctx.clock.now(),
    })
    .execute();
  return loadTable(ctx, id);
}

/** Changes the sent fields (null: seats back to the default, no area, no minimum party). */
export async function updateTable(ctx: Ctx, tableId: string, patch: TablePatch): Promise<DashboardTable> {
  // Locked: the checks read the fields not sent, which must not change before this write commits.
  const current = await tablesOf(ctx)
    .where('t.id', '=', knownId(tableId))
    .forNoKeyUpdate('t')
    .executeTakeFirst();
  if (!current) throw noTable(tableId);
  const fields = await checkedTable(
    ctx,
    {
      label: patch.label ?? current.label,
      seats: patch.seats === undefined ? current.seats : patch.seats,
      area_id: patch.area_id === undefined ? current.area_id : patch.area_id,
      min_party: patch.min_party === undefined ? current.min_party : patch.min_party,
    },
    { area: patch.area_id !== undefined, minParty: patch.min_party !== undefined },
    current.default_table_seats,
  );
  await ctx.db
    .updateTable('store_tables')
    .set({
      ...fields,
      ...(patch.bookable_online === undefined ? {} : { bookable_online: patch.bookable_online }),
    })
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', current.id)
    .execute();
  return loadTable(ctx, current.id);
}

/** A new QR key for the table: codes printed with the old one stop working. */
export async function regenerateQrKey(ctx: Ctx, tableId: string): Promise<DashboardTable> {
  const updated = await ctx.db
    .updateTable('store_tables')
    .set({ qr_key: newQrKey() })
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', knownId(tableId))
    .executeTakeFirst();
  if (updated.numUpdatedRows === 0n) throw noTable(tableId);
  return loadTable(ctx, tableId);
}

export async function deleteTable(ctx: Ctx, tableId: string): Promise<void> {
  const deleted = await ctx.db
    .deleteFrom('store_tables')
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', knownId(tableId))
    .executeTakeFirst();
  if (deleted.numDeletedRows === 0n) throw noTable(tableId);
}

/** A table id that is no UUID names no table (and must not reach the uuid column). */
function knownId(tableId: string): string {
  if (!isUuid(tableId)) throw noTable(tableId);
  return tableId;
}
