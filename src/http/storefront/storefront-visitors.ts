import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/client.ts';
import { type Clock, systemCtx } from '../../domain/shared/context.ts';
import type { Limiters } from '../../domain/shared/limits.ts';
import type { Plan } from '../../domain/shared/scopes.ts';
import { Sessions, storefrontPreviewSessions } from '../shared/sessions.ts';
import { byRestaurantHost } from './storefront-host.ts';

export interface StorefrontRestaurant {
  id: string;
  name: string;
  slug: string;
  livemode: boolean;
  language: string;
  plan: Plan;
}

/*
 * Whose storefront a request reaches (its pages and its guest API alike): the restaurant of the
 * slug; a test restaurant has no guests, so only its own members opening it from the console (the
 * storefront preview cookie, storefrontPreviewSessions, which carries the console session) find
 * it, at `/s/{slug}` only: never on a host of its own. Everyone else finds nothing.
 */
export function storefrontVisitors(db: Db, clock: Clock, limiters: Limiters, secure: boolean) {
  const previews = new Sessions(systemCtx(db, clock), limiters, storefrontPreviewSessions, secure);
  return async function restaurantOf(
    request: FastifyRequest,
    slug: string,
  ): Promise<StorefrontRestaurant | null> {
    const restaurant = await db
      .selectFrom('restaurants')
      .select(['id', 'name', 'slug', 'livemode', 'language', 'plan'])
      .where('slug', '=', slug)
      .executeTakeFirst();
    if (!restaurant || restaurant.livemode) return restaurant ?? null;
    if (byRestaurantHost(request)) return null;
    const account = await previews.signedInAccount(request);
    const member =
      account !== null &&
      (await db
        .selectFrom('restaurant_members')
        .select('account_id')
        .where('tenant_id', '=', restaurant.id)
        .where('account_id', '=', account)
        .executeTakeFirst());
    return member ? restaurant : null;
  };
}
