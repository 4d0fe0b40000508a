import type { Selectable } from 'kysely';
import type { MenuCategoriesTable } from '../../db/schema.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { inPageOrder, type PageRange } from '../shared/paging.ts';
import { checkedText } from '../store/floor-input.ts';
import {
  type Category,
  type CategoryInput,
  type CategoryPatch,
  categoryFields,
  type Deleted,
  maxCategoryName,
} from './menu.schema.ts';
import {
  changedFields,
  checkExternalIdFree,
  externalIdChanged,
  externalIdWrite,
  knownId,
  lockMenu,
  nextPosition,
  orTaken,
  recordMenuEvent,
  shownExternalId,
  updateOrder,
  viewerApp,
} from './menu-writes.ts';
import { moveProductsOutOf } from './products.service.ts';

const noCategory = (id: string) => new ApiError('not_found', `This restaurant has no category ${id}.`);

export function categoryOf(row: Selectable<MenuCategoriesTable>, viewer: string | null): Category {
  return {
    object: 'category',
    id: row.id,
    external_id: shownExternalId(row, viewer),
    name: row.name,
    position: row.position,
    tax_class: row.tax_class,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function categoriesOf(ctx: Ctx) {
  return ctx.db.selectFrom('menu_categories').selectAll().where('tenant_id', '=', tenantOf(ctx));
}

export interface CategoryFilters {
  /** The caller's own external_id. */
  external_id?: string;
  /** Changed after this instant (exclusive). */
  updated_since?: Date;
}

/** The categories matching `filters`, least recently changed first, after `page.after`. */
export async function listCategories(
  ctx: Ctx,
  filters: CategoryFilters,
  page: PageRange,
): Promise<Category[]> {
  const viewer = await viewerApp(ctx);
  let query = categoriesOf(ctx);
  if (filters.external_id !== undefined) {
    // Another app's values are invisible: a filter finds only the caller's own.
    if (viewer === null) return [];
    query = query.where('external_id', '=', filters.external_id).where('external_id_app_id', '=', viewer);
  }
  if (filters.updated_since !== undefined) query = query.where('updated_at', '>', filters.updated_since);
  return (await inPageOrder(query, updateOrder, page).execute()).map((row) => categoryOf(row, viewer));
}

/** Every category by position (ties by id), for the menu. */
export async function allCategories(ctx: Ctx, viewer: string | null): Promise<Category[]> {
  const rows = await categoriesOf(ctx).orderBy('position').orderBy('id').execute();
  return rows.map((row) => categoryOf(row, viewer));
}

export async function getCategory(ctx: Ctx, id: string): Promise<Category> {
  const row = await categoriesOf(ctx).where('id', '=', knownId(id, noCategory)).executeTakeFirst();
  if (!row) throw noCategory(id);
  return categoryOf(row, await viewerApp(ctx));
}

/** A new category; without a position, after the last one. Records menu.category.created. */
export async function createCategory(ctx: Ctx, input: CategoryInput): Promise<Category> {
  await lockMenu(ctx);
  const tenantId = tenantOf(ctx);
  const viewer = await viewerApp(ctx);
  const name = checkedText(input.name, 'name', maxCategoryName);
  const external = externalIdWrite(
    input.external_id,
    { external_id: null, external_id_app_id: null },
    viewer,
  );
  await checkExternalIdFree(ctx, 'menu_categories', external, null);
  let position = input.position;
  if (position === undefined) {
    const { max } = await ctx.db
      .selectFrom('menu_categories')
      .select((eb) => eb.fn.max('position').as('max'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    position = nextPosition(max);
  }
  const now = ctx.clock.now();
  const row = await orTaken(
    ctx.db
      .insertInto('menu_categories')
      .values({
        tenant_id: tenantId,
        id: newId(),
        ...external,
        name,
        position,
        tax_class: input.tax_class ?? null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
    external.external_id,
  );
  const category = categoryOf(row, viewer);
  await recordMenuEvent(ctx, 'menu.category.created', category);
  return category;
}

/**
 * Changes the sent fields (null clears external_id and tax_class). A write that changes nothing
 * keeps updated_at and records nothing; otherwise menu.category.updated with changed and previous.
 */
export async function updateCategory(ctx: Ctx, id: string, patch: CategoryPatch): Promise<Category> {
  await lockMenu(ctx);
  const viewer = await viewerApp(ctx);
  const current = await categoriesOf(ctx)
    .where('id', '=', knownId(id, noCategory))
    .forUpdate()
    .executeTakeFirst();
  if (!current) throw noCategory(id);
  const external = externalIdWrite(patch.external_id, current, viewer);
  const next: Selectable<MenuCategoriesTable> = {
    ...current,
    ...external,
    name: patch.name === undefined ? current.name : checkedText(patch.name, 'name', maxCategoryName),
    position: patch.position ?? current.position,
    tax_class: patch.tax_class === undefined ? current.tax_class : patch.tax_class,
  };
  const before = categoryOf(current, viewer);
  const changed = changedFields(
    categoryFields.filter((field) => field !== 'external_id'),
    before,
    categoryOf(next, viewer),
  );
  if (externalIdChanged(current, next)) changed.unshift('external_id');
  if (changed.length === 0) return before;
  if (externalIdChanged(current, external))
    await checkExternalIdFree(ctx, 'menu_categories', external, current.id);
  const row = await orTaken(
    ctx.db
      .updateTable('menu_categories')
      .set({
        external_id: next.external_id,
        external_id_app_id: next.external_id_app_id,
        name: next.name,
        position: next.position,
        tax_class: next.tax_class,
        updated_at: ctx.clock.now(),
      })
      .where('tenant_id', '=', current.tenant_id)
      .where('id', '=', current.id)
      .returningAll()
      .executeTakeFirstOrThrow(),
    external.external_id,
  );
  const category = categoryOf(row, viewer);
  await recordMenuEvent(ctx, 'menu.category.updated', category, {
    changed,
    previous: Object.fromEntries(changed.map((field) => [field, before[field]])),
  });
  return category;
}

/**
 * Deletes the category. Its products move to no category first (each changed product records
 * menu.product.updated), then menu.category.deleted carries the category as it was.
 */
export async function deleteCategory(ctx: Ctx, id: string): Promise<Deleted<'category'>> {
  await lockMenu(ctx);
  const viewer = await viewerApp(ctx);
  const current = await categoriesOf(ctx)
    .where('id', '=', knownId(id, noCategory))
    .forUpdate()
    .executeTakeFirst();
  if (!current) throw noCategory(id);
  await moveProductsOutOf(ctx, current.id);
  await ctx.db
    .deleteFrom('menu_categories')
    .where('tenant_id', '=', current.tenant_id)
    .where('id', '=', current.id)
    .execute();
  await recordMenuEvent(ctx, 'menu.category.deleted', categoryOf(current, viewer));
  return { object: 'category', id: current.id, deleted: true };
}
