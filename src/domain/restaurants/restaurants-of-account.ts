import type { Ctx } from '../shared/context.ts';

export interface AccountRestaurant {
  id: string;
  name: string;
  slug: string;
  livemode: boolean;
  role: 'owner' | 'staff';
}

/** An account's memberships: on Citus every shard is asked (sign-in and the restaurant picker, seldom). */
function membership(ctx: Ctx, accountId: string) {
  return ctx.db
    .selectFrom('restaurant_members as m')
    .innerJoin('restaurants as r', 'r.id', 'm.tenant_id')
    .select(['r.id', 'r.name', 'r.slug', 'r.livemode', 'm.role'])
    .where('m.account_id', '=', accountId);
}

/** The restaurants an account is an owner or staff member of, with its role, by name. */
export function restaurantsOfAccount(ctx: Ctx, accountId: string): Promise<AccountRestaurant[]> {
  return membership(ctx, accountId).orderBy('r.name').orderBy('r.id').execute();
}

/** A developer's test restaurants: those they own that are not live. */
export async function testRestaurantsOf(ctx: Ctx, accountId: string): Promise<AccountRestaurant[]> {
  return membership(ctx, accountId)
    .where('m.role', '=', 'owner')
    .where('r.livemode', '=', false)
    .orderBy('r.name')
    .orderBy('r.id')
    .execute();
}
