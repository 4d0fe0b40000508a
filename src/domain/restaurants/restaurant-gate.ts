import type { Ctx, Role } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';

const notFound = (restaurantId: string) => new ApiError('not_found', `No restaurant ${restaurantId}.`);

/**
 * The one gate to a restaurant: the ctx acting in restaurant `restaurantId`, when its actor may:
 * - a signed-in account whose role there is one of `roles` (the role goes into the actor);
 * - the service itself (the operator's CLI, jobs).
 * For anyone else (another restaurant's owner, staff where only owners may act, strangers) the
 * restaurant is not found, exactly as an unknown one. An app's connection never comes here: its
 * token names its restaurant.
 */
export async function actInRestaurant(ctx: Ctx, restaurantId: string, roles: readonly Role[]): Promise<Ctx> {
  if (!isUuid(restaurantId)) throw notFound(restaurantId);
  const { actor } = ctx;
  if (actor.kind === 'system') {
    const found = await ctx.db
      .selectFrom('restaurants')
      .select('id')
      .where('id', '=', restaurantId)
      .executeTakeFirst();
    if (!found) throw notFound(restaurantId);
    return { ...ctx, tenantId: found.id };
  }
  if (actor.kind !== 'account' || roles.length === 0) throw notFound(restaurantId);
  const member = await ctx.db
    .selectFrom('restaurant_members')
    .select('role')
    .where('tenant_id', '=', restaurantId)
    .where('account_id', '=', actor.accountId)
    .where('role', 'in', roles)
    .executeTakeFirst();
  if (!member) throw notFound(restaurantId);
  return { ...ctx, tenantId: restaurantId, actor: { ...actor, role: member.role } };
}

/** The gate's answer as a value: the ctx in the restaurant, or null where it is not found. */
export async function restaurantCtxOrNull(
  ctx: Ctx,
  restaurantId: string,
  roles: readonly Role[],
): Promise<Ctx | null> {
  try {
    return await actInRestaurant(ctx, restaurantId, roles);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return null;
    throw error;
  }
}

/**
 * The restaurant the ctx acts in, its row locked when `lock` (writes of one restaurant's settings
 * run one after the other).
 */
export async function currentRestaurant(
  ctx: Ctx,
  lock = false,
): Promise<{ id: string; name: string; livemode: boolean; timezone: string }> {
  if (ctx.tenantId === null) throw new Error('no restaurant: pass the ctx through actInRestaurant first');
  const query = ctx.db
    .selectFrom('restaurants')
    .select(['id', 'name', 'livemode', 'timezone'])
    .where('id', '=', ctx.tenantId);
  return (lock ? query.forUpdate() : query).executeTakeFirstOrThrow();
}
