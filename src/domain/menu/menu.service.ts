import type { Ctx } from '../shared/context.ts';
import { allCategories } from './categories.service.ts';
import type { Menu, Option, OptionGroup } from './menu.schema.ts';
import { shownExternalId, tenantOf, viewerApp } from './menu-writes.ts';
import { allProducts } from './products.service.ts';

/** Every option group by position (ties by id), each with its options in order, sold-out ones included. */
async function allOptionGroups(ctx: Ctx, viewer: string | null): Promise<OptionGroup[]> {
  const tenantId = tenantOf(ctx);
  const groups = await ctx.db
    .selectFrom('menu_option_groups')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('position')
    .orderBy('id')
    .execute();
  const options = await ctx.db
    .selectFrom('menu_options')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('position')
    .orderBy('id')
    .execute();
  const byGroup = new Map<string, Option[]>();
  for (const row of options) {
    const option: Option = {
      object: 'option',
      id: row.id,
      external_id: shownExternalId(row, viewer),
      group_id: row.group_id,
      name: row.name,
      price_delta: row.price_delta,
      available: row.available,
      position: row.position,
      updated_at: row.updated_at,
    };
    byGroup.set(row.group_id, [...(byGroup.get(row.group_id) ?? []), option]);
  }
  return groups.map((row) => ({
    object: 'option_group',
    id: row.id,
    external_id: shownExternalId(row, viewer),
    name: row.name,
    min_select: row.min_select,
    max_select: row.max_select,
    position: row.position,
    product_id: row.product_id,
    options: byGroup.get(row.id) ?? [],
    updated_at: row.updated_at,
  }));
}

/** GET /menu: the whole menu in the restaurant's currency, each kind by position. */
export async function getMenu(ctx: Ctx): Promise<Menu> {
  const viewer = await viewerApp(ctx);
  const { currency } = await ctx.db
    .selectFrom('restaurants')
    .select('currency')
    .where('id', '=', tenantOf(ctx))
    .executeTakeFirstOrThrow();
  return {
    object: 'menu',
    currency,
    categories: await allCategories(ctx, viewer),
    products: await allProducts(ctx, viewer),
    option_groups: await allOptionGroups(ctx, viewer),
  };
}
