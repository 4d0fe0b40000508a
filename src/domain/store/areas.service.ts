import type { Selectable } from 'kysely';
import type { StoreAreasTable } from '../../db/schema.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid, newId } from '../shared/ids.ts';
import { creationOrder, inPageOrder, type PageRange } from '../shared/paging.ts';
import { checkedText } from './floor-input.ts';
import {
  type Area,
  type AreaInput,
  type AreaPatch,
  type DashboardArea,
  maxAreaName,
} from './table.schema.ts';

const noArea = (id: string) => new ApiError('not_found', `This restaurant has no area ${id}.`);

function areaOf(row: Selectable<StoreAreasTable>): DashboardArea {
  return {
    object: 'area',
    id: row.id,
    name: row.name,
    bookable_online: row.bookable_online,
    created_at: row.created_at,
  };
}

/** The Area resource of the public API. */
export function publicArea({ object, id, name, bookable_online }: DashboardArea): Area {
  return { object, id, name, bookable_online };
}

/** The areas in creation order after `page.after`: up to `page.limit`, or all without one. */
export async function listAreas(ctx: Ctx, page: PageRange): Promise<DashboardArea[]> {
  const query = ctx.db.selectFrom('store_areas').selectAll().where('tenant_id', '=', tenantOf(ctx));
  return (await inPageOrder(query, creationOrder, page).execute()).map(areaOf);
}

export async function createArea(ctx: Ctx, input: AreaInput): Promise<DashboardArea> {
  const row = await ctx.db
    .insertInto('store_areas')
    .values({
      tenant_id: tenantOf(ctx),
      id: newId(),
      name: checkedText(input.name, 'name', maxAreaName),
      ...(input.bookable_online === undefined ? {} : { bookable_online: input.bookable_online }),
      created_at: ctx.clock.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return areaOf(row);
}

/** Changes the sent fields. */
export async function updateArea(ctx: Ctx, areaId: string, patch: AreaPatch): Promise<DashboardArea> {
  const name = patch.name === undefined ? undefined : checkedText(patch.name, 'name', maxAreaName);
  const row = await ctx.db
    .updateTable('store_areas')
    .set({
      ...(name === undefined ? {} : { name }),
      ...(patch.bookable_online === undefined ? {} : { bookable_online: patch.bookable_online }),
    })
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', knownId(areaId))
    .returningAll()
    .executeTakeFirst();
  if (!row) throw noArea(areaId);
  return areaOf(row);
}

/** Deletes the area; its tables stay, without an area (the foreign key sets their area_id null). */
export async function deleteArea(ctx: Ctx, areaId: string): Promise<void> {
  const deleted = await ctx.db
    .deleteFrom('store_areas')
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', knownId(areaId))
    .executeTakeFirst();
  if (deleted.numDeletedRows === 0n) throw noArea(areaId);
}

/**
 * Checks that a table may be put in the area: one of this restaurant's (else 400 on `area_id`:
 * the area is a field of the table being written, not the object addressed). The row is locked
 * against deletion until the write commits.
 */
export async function checkAreaForTable(ctx: Ctx, areaId: string): Promise<void> {
  const area = isUuid(areaId)
    ? await ctx.db
        .selectFrom('store_areas')
        .select('id')
        .where('tenant_id', '=', tenantOf(ctx))
        .where('id', '=', areaId)
        .forKeyShare()
        .executeTakeFirst()
    : undefined;
  if (!area)
    throw new ApiError('invalid_request', `This restaurant has no area ${areaId}.`, { param: 'area_id' });
}

/** An area id that is no UUID names no area (and must not reach the uuid column). */
function knownId(areaId: string): string {
  if (!isUuid(areaId)) throw noArea(areaId);
  return areaId;
}
