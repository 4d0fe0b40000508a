import type { Ctx } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';

/** Which restaurant: as one of its owners (dashboard) or as the operator (CLI: accountId null). */
export interface RestaurantRef {
  restaurantId: string;
  accountId: string | null;
}

/**
 * The restaurant `ref` names, its row locked when `lock` (writes of one restaurant's settings run
 * one after the other). A restaurant the account does not own (staff, strangers) is not found,
 * exactly as an unknown one.
 */
export async function ownedRestaurant(
  ctx: Ctx,
  ref: RestaurantRef,
  lock = false,
): Promise<{ id: string; livemode: boolean }> {
  const notFound = new ApiError('not_found', `No restaurant ${ref.restaurantId}.`);
  if (!isUuid(ref.restaurantId)) throw notFound;
  let query = ctx.db
    .selectFrom('restaurants as r')
    .select(['r.id', 'r.livemode'])
    .where('r.id', '=', ref.restaurantId);
  if (ref.accountId !== null) {
    const accountId = ref.accountId;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('restaurant_members as m')
          .select('m.account_id')
          .whereRef('m.tenant_id', '=', 'r.id')
          .where('m.account_id', '=', accountId)
          .where('m.role', '=', 'owner'),
      ),
    );
  }
  const restaurant = await (lock ? query.forUpdate() : query).executeTakeFirst();
  if (!restaurant) throw notFound;
  return restaurant;
}

/** The ctx acting in the restaurant `ref` names (see ownedRestaurant). */
export async function restaurantCtx(ctx: Ctx, ref: RestaurantRef): Promise<Ctx> {
  return { ...ctx, tenantId: (await ownedRestaurant(ctx, ref)).id };
}
