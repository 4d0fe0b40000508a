import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { getStore } from '../store/store.service.ts';
import type { PlacedOrder } from './order-placement.schema.ts';
import { placeOrder } from './order-placement.service.ts';

/*
 * The console's one-click test order in a developer's test restaurant: up to two products on sale
 * (each with the fewest options its groups require), pickup if offered (else delivery to a test
 * address), paid on site, so it exists at once and its events follow like a guest's. Placed by
 * the same rules as a guest's order except the hours. A live restaurant has no test orders (404).
 */
export async function placeTestOrder(ctx: Ctx): Promise<PlacedOrder> {
  const tenantId = tenantOf(ctx);
  const { livemode } = await ctx.db
    .selectFrom('restaurants')
    .select('livemode')
    .where('id', '=', tenantId)
    .executeTakeFirstOrThrow();
  if (livemode) throw new ApiError('not_found', 'Test orders are placed in test restaurants only.');
  const now = ctx.clock.now();
  const products = await ctx.db
    .selectFrom('menu_products')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('available', '=', true), eb('unavailable_until', '<=', now)]))
    .orderBy('position')
    .orderBy('id')
    .limit(2)
    .execute();
  if (products.length === 0)
    throw new ApiError('invalid_request', 'The test restaurant has no product on sale: add one to its menu.');
  const items = [];
  for (const product of products)
    items.push({
      product_id: product.id,
      quantity: 1,
      option_ids: await requiredOptions(ctx, product.id, now),
    });
  const { order_types } = await getStore(ctx);
  const delivery = !order_types.pickup && order_types.delivery;
  return placeOrder(
    ctx,
    {
      type: delivery ? 'delivery' : 'pickup',
      items,
      customer: { name: 'Test guest', phone: null },
      ...(delivery && { delivery: { address: 'Teststraße 1', postal_code: '10115', city: 'Berlin' } }),
      note: 'Test order from the developer console',
      payment_method: 'on_site',
    },
    { anyHour: true },
  );
}

/** The first options on sale of each group of the product, as many as the group requires. */
async function requiredOptions(ctx: Ctx, productId: string, now: Date): Promise<string[]> {
  const tenantId = tenantOf(ctx);
  const groups = await ctx.db
    .selectFrom('menu_option_groups as g')
    .leftJoin('menu_product_option_groups as l', (join) =>
      join.onRef('l.tenant_id', '=', 'g.tenant_id').onRef('l.group_id', '=', 'g.id'),
    )
    .select(['g.id', 'g.min_select'])
    .distinct()
    .where('g.tenant_id', '=', tenantId)
    .where('g.min_select', '>', 0)
    .where((eb) => eb.or([eb('g.product_id', '=', productId), eb('l.product_id', '=', productId)]))
    .execute();
  const chosen: string[] = [];
  for (const group of groups) {
    const options = await ctx.db
      .selectFrom('menu_options')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('group_id', '=', group.id)
      .where((eb) => eb.or([eb('available', '=', true), eb('unavailable_until', '<=', now)]))
      .orderBy('position')
      .orderBy('id')
      .limit(group.min_select)
      .execute();
    chosen.push(...options.map((option) => option.id));
  }
  return chosen;
}
