import { type Ctx, tenantOf } from '../shared/context.ts';
import { allCategories } from './categories.service.ts';
import type { Menu } from './menu.schema.ts';
import { viewerApp } from './menu-writes.ts';
import { allOptionGroups } from './option-groups.service.ts';
import { allProducts } from './products.service.ts';

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
