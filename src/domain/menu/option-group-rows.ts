import type { Selectable } from 'kysely';
import type { MenuOptionGroupsTable, MenuOptionsTable } from '../../db/schema.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import type { Option, OptionGroup } from './menu.schema.ts';
import { recordMenuEvent, shownExternalId } from './menu-writes.ts';

/*
 * Option groups and options as resources, and removing a group with its options: what the group and
 * option services, the products (a product's own groups go with it) and GET /menu share.
 */

export type GroupRow = Selectable<MenuOptionGroupsTable>;
export type OptionRow = Selectable<MenuOptionsTable>;

export function optionOf(row: OptionRow, viewer: string | null): Option {
  return {
    object: 'option',
    id: row.id,
    external_id: shownExternalId(row, viewer),
    group_id: row.group_id,
    name: row.name,
    price_delta: row.price_delta,
    available: row.available,
    unavailable_until: row.unavailable_until,
    position: row.position,
    updated_at: row.updated_at,
  };
}

export function optionGroupOf(row: GroupRow, options: Option[], viewer: string | null): OptionGroup {
  return {
    object: 'option_group',
    id: row.id,
    external_id: shownExternalId(row, viewer),
    name: row.name,
    min_select: row.min_select,
    max_select: row.max_select,
    position: row.position,
    product_id: row.product_id,
    options,
    updated_at: row.updated_at,
  };
}

export function groupsOf(ctx: Ctx) {
  return ctx.db.selectFrom('menu_option_groups').selectAll().where('tenant_id', '=', tenantOf(ctx));
}

export function optionsOf(ctx: Ctx) {
  return ctx.db.selectFrom('menu_options').selectAll().where('tenant_id', '=', tenantOf(ctx));
}

/** The groups of `rows` (in their order), each with its options by position (ties by id), sold-out ones included. */
export async function withOptions(
  ctx: Ctx,
  rows: readonly GroupRow[],
  viewer: string | null,
): Promise<OptionGroup[]> {
  if (rows.length === 0) return [];
  const options = await optionsOf(ctx)
    .where(
      'group_id',
      'in',
      rows.map((row) => row.id),
    )
    .orderBy('position')
    .orderBy('id')
    .execute();
  const byGroup = new Map<string, Option[]>();
  for (const row of options)
    byGroup.set(row.group_id, [...(byGroup.get(row.group_id) ?? []), optionOf(row, viewer)]);
  return rows.map((row) => optionGroupOf(row, byGroup.get(row.id) ?? [], viewer));
}

/**
 * Deletes the group and its options: each option records menu.option.deleted (as it was, in order)
 * before the group goes. Answers the group as it was; the caller records menu.option_group.deleted.
 */
export async function dropGroup(ctx: Ctx, row: GroupRow, viewer: string | null): Promise<OptionGroup> {
  const [group] = await withOptions(ctx, [row], viewer);
  for (const option of (group as OptionGroup).options)
    await recordMenuEvent(ctx, 'menu.option.deleted', option);
  await ctx.db
    .deleteFrom('menu_options')
    .where('tenant_id', '=', row.tenant_id)
    .where('group_id', '=', row.id)
    .execute();
  await ctx.db
    .deleteFrom('menu_option_groups')
    .where('tenant_id', '=', row.tenant_id)
    .where('id', '=', row.id)
    .execute();
  return group as OptionGroup;
}

/** A product's own groups go before it: each group's options, then the group, record their deleted events. */
export async function dropGroupsOfProduct(ctx: Ctx, productId: string, viewer: string | null): Promise<void> {
  const rows = await groupsOf(ctx)
    .where('product_id', '=', productId)
    .orderBy('position')
    .orderBy('id')
    .forUpdate()
    .execute();
  for (const row of rows) {
    const group = await dropGroup(ctx, row, viewer);
    await recordMenuEvent(ctx, 'menu.option_group.deleted', group);
  }
}
