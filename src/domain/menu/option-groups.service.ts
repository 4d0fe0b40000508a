import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid, newId } from '../shared/ids.ts';
import { inPageOrder, type PageRange } from '../shared/paging.ts';
import { checkedText } from '../store/floor-input.ts';
import {
  type Deleted,
  maxGroupName,
  type OptionGroup,
  type OptionGroupInput,
  type OptionGroupPatch,
  optionGroupFields,
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
  updateOrder,
  viewerApp,
} from './menu-writes.ts';
import { dropGroup, type GroupRow, groupsOf, withOptions } from './option-group-rows.ts';
import { optionGroupIdsOf, optionGroupsChanged } from './products.service.ts';

/*
 * Option groups (spec: Option group), as categories are written (menu-writes.ts), and:
 * - min_select 0 to 20, max_select 1 to 20, min_select not above max_select (else 400 on min_select);
 * - product_id: the one product the group belongs to (one of the restaurant's, else 400 on it), or
 *   null: shared, used by the products that link it (their option_group_ids);
 * - a group's updated_at moves with its own fields only, not with its options; the products using it
 *   (its product and the products linking it) move their updated_at with it, and record
 *   menu.product.updated when their option_group_ids changed (products.service.ts).
 */

export const noOptionGroup = (id: string) =>
  new ApiError('not_found', `This restaurant has no option group ${id}.`);

export interface OptionGroupFilters {
  /** The caller's own external_id. */
  external_id?: string;
  /** Changed after this instant (exclusive). */
  updated_since?: Date;
}

/** The groups matching `filters`, least recently changed first, after `page.after`. */
export async function listOptionGroups(
  ctx: Ctx,
  filters: OptionGroupFilters,
  page: PageRange,
): Promise<OptionGroup[]> {
  const viewer = await viewerApp(ctx);
  let query = groupsOf(ctx);
  if (filters.external_id !== undefined) {
    if (viewer === null) return [];
    query = query.where('external_id', '=', filters.external_id).where('external_id_app_id', '=', viewer);
  }
  if (filters.updated_since !== undefined) query = query.where('updated_at', '>', filters.updated_since);
  return withOptions(ctx, await inPageOrder(query, updateOrder, page).execute(), viewer);
}

/** Every group by position (ties by id), each with its options, for the menu. */
export async function allOptionGroups(ctx: Ctx, viewer: string | null): Promise<OptionGroup[]> {
  return withOptions(ctx, await groupsOf(ctx).orderBy('position').orderBy('id').execute(), viewer);
}

async function groupOf(ctx: Ctx, row: GroupRow, viewer: string | null): Promise<OptionGroup> {
  return (await withOptions(ctx, [row], viewer))[0] as OptionGroup;
}

export async function getOptionGroup(ctx: Ctx, id: string): Promise<OptionGroup> {
  const row = await groupsOf(ctx).where('id', '=', knownId(id, noOptionGroup)).executeTakeFirst();
  if (!row) throw noOptionGroup(id);
  return groupOf(ctx, row, await viewerApp(ctx));
}

/** A product for a group: one of the restaurant's (else 400 on product_id). */
async function checkProductForGroup(ctx: Ctx, productId: string): Promise<void> {
  const found = isUuid(productId)
    ? await ctx.db
        .selectFrom('menu_products')
        .select('id')
        .where('tenant_id', '=', tenantOf(ctx))
        .where('id', '=', productId)
        .forKeyShare()
        .executeTakeFirst()
    : undefined;
  if (!found)
    throw new ApiError('invalid_request', `This restaurant has no product ${productId}.`, {
      param: 'product_id',
    });
}

function checkSelectRange(min: number, max: number): void {
  if (min > max)
    throw new ApiError('invalid_request', `min_select (${min}) must not be above max_select (${max}).`, {
      param: 'min_select',
    });
}

/** The products whose option_group_ids hold the group: its own product and those linking it. */
async function productsUsing(ctx: Ctx, group: GroupRow): Promise<string[]> {
  const links = await ctx.db
    .selectFrom('menu_product_option_groups')
    .select('product_id')
    .where('tenant_id', '=', group.tenant_id)
    .where('group_id', '=', group.id)
    .execute();
  return [...(group.product_id === null ? [] : [group.product_id]), ...links.map((link) => link.product_id)];
}

/**
 * A new group; without a position, after the last one of its product (or of the shared groups).
 * Records menu.option_group.created; its product (if any) records menu.product.updated.
 */
export async function createOptionGroup(ctx: Ctx, input: OptionGroupInput): Promise<OptionGroup> {
  await lockMenu(ctx);
  const tenantId = tenantOf(ctx);
  const viewer = await viewerApp(ctx);
  const name = checkedText(input.name, 'name', maxGroupName);
  const minSelect = input.min_select ?? 0;
  const maxSelect = input.max_select ?? 1;
  checkSelectRange(minSelect, maxSelect);
  const productId = input.product_id ?? null;
  if (productId !== null) await checkProductForGroup(ctx, productId);
  const external = externalIdWrite(
    input.external_id,
    { external_id: null, external_id_app_id: null },
    viewer,
  );
  await checkExternalIdFree(ctx, 'menu_option_groups', external, null);
  let position = input.position;
  if (position === undefined) {
    const { max } = await ctx.db
      .selectFrom('menu_option_groups')
      .select((eb) => eb.fn.max('position').as('max'))
      .where('tenant_id', '=', tenantId)
      .where((eb) => (productId === null ? eb('product_id', 'is', null) : eb('product_id', '=', productId)))
      .executeTakeFirstOrThrow();
    position = nextPosition(max);
  }
  const before = await optionGroupIdsOf(ctx, productId === null ? [] : [productId]);
  const now = ctx.clock.now();
  const row = await orTaken(
    ctx.db
      .insertInto('menu_option_groups')
      .values({
        tenant_id: tenantId,
        id: newId(),
        ...external,
        product_id: productId,
        name,
        min_select: minSelect,
        max_select: maxSelect,
        position,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
    external.external_id,
  );
  const group = await groupOf(ctx, row, viewer);
  await recordMenuEvent(ctx, 'menu.option_group.created', group);
  await optionGroupsChanged(ctx, before);
  return group;
}

/**
 * Changes the sent fields. A write that changes nothing keeps updated_at and records nothing;
 * otherwise menu.option_group.updated with changed and previous, and the products using the group
 * (before or after) move their updated_at. A shared group given a product_id leaves the products
 * linking it; a product's group made shared (null) leaves its product until a product links it.
 */
export async function updateOptionGroup(ctx: Ctx, id: string, patch: OptionGroupPatch): Promise<OptionGroup> {
  await lockMenu(ctx);
  const viewer = await viewerApp(ctx);
  const current = await groupsOf(ctx)
    .where('id', '=', knownId(id, noOptionGroup))
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!current) throw noOptionGroup(id);
  const productId = patch.product_id === undefined ? current.product_id : patch.product_id;
  if (productId !== null && productId !== current.product_id) await checkProductForGroup(ctx, productId);
  const next: GroupRow = {
    ...current,
    ...externalIdWrite(patch.external_id, current, viewer),
    name: patch.name === undefined ? current.name : checkedText(patch.name, 'name', maxGroupName),
    min_select: patch.min_select ?? current.min_select,
    max_select: patch.max_select ?? current.max_select,
    position: patch.position ?? current.position,
    product_id: productId,
  };
  checkSelectRange(next.min_select, next.max_select);
  const before = await groupOf(ctx, current, viewer);
  const changed: string[] = changedFields(
    optionGroupFields.filter((field) => field !== 'external_id'),
    before,
    { ...before, ...next, external_id: before.external_id },
  );
  if (externalIdChanged(current, next)) changed.unshift('external_id');
  if (changed.length === 0) return before;
  if (externalIdChanged(current, next))
    await checkExternalIdFree(ctx, 'menu_option_groups', next, current.id);
  const users = await productsUsing(ctx, current);
  if (next.product_id !== null && !users.includes(next.product_id)) users.push(next.product_id);
  const usedBefore = await optionGroupIdsOf(ctx, users);
  const row = await orTaken(
    ctx.db
      .updateTable('menu_option_groups')
      .set({
        external_id: next.external_id,
        external_id_app_id: next.external_id_app_id,
        name: next.name,
        min_select: next.min_select,
        max_select: next.max_select,
        position: next.position,
        product_id: next.product_id,
        updated_at: ctx.clock.now(),
      })
      .where('tenant_id', '=', current.tenant_id)
      .where('id', '=', current.id)
      .returningAll()
      .executeTakeFirstOrThrow(),
    next.external_id,
  );
  // A group belongs to one product or is shared: one with a product is linked by no other.
  if (row.product_id !== null)
    await ctx.db
      .deleteFrom('menu_product_option_groups')
      .where('tenant_id', '=', row.tenant_id)
      .where('group_id', '=', row.id)
      .execute();
  const group = await groupOf(ctx, row, viewer);
  await recordMenuEvent(ctx, 'menu.option_group.updated', group, {
    changed,
    previous: Object.fromEntries(changed.map((field) => [field, before[field as keyof OptionGroup]])),
  });
  await optionGroupsChanged(ctx, usedBefore);
  return group;
}

/**
 * Deletes the group and its options: each option records menu.option.deleted, the products using
 * the group record menu.product.updated (option_group_ids), then menu.option_group.deleted carries
 * the group as it was, options included.
 */
export async function deleteOptionGroup(ctx: Ctx, id: string): Promise<Deleted<'option_group'>> {
  await lockMenu(ctx);
  const viewer = await viewerApp(ctx);
  const current = await groupsOf(ctx)
    .where('id', '=', knownId(id, noOptionGroup))
    .forUpdate()
    .executeTakeFirst();
  if (!current) throw noOptionGroup(id);
  const usedBefore = await optionGroupIdsOf(ctx, await productsUsing(ctx, current));
  const group = await dropGroup(ctx, current, viewer);
  await optionGroupsChanged(ctx, usedBefore);
  await recordMenuEvent(ctx, 'menu.option_group.deleted', group);
  return { object: 'option_group', id: current.id, deleted: true };
}
