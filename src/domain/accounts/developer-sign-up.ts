import { demoMenu } from '../menu/demo-menu.ts';
import { createRestaurant, type Restaurant } from '../restaurants/restaurants.service.ts';
import type { Ctx } from '../shared/context.ts';
import { type Account, createAccount, type NewAccount } from './accounts.service.ts';

export interface DeveloperSignUp extends Omit<NewAccount, 'developer'> {
  /** Where the test restaurant is; by default in Berlin, in euros. */
  testRestaurant?: { timezone: string; currency: string; country: string };
}

const berlin = { timezone: 'Europe/Berlin', currency: 'EUR', country: 'DE' };

/**
 * A developer account and its test restaurant (livemode false, pro plan, owned by the developer),
 * as the console's sign-up, `servery developer create` and the demo data make them. The test
 * restaurant gets the demo's menu, so that the console's "Place a test order" works at once (an
 * empty menu has nothing to order). Run it in one transaction
 * (`ctx.db`): when the restaurant is refused, no account is left without one. Refusals are the
 * InputErrors of createAccount and createRestaurant.
 */
export async function signUpDeveloper(
  ctx: Ctx,
  input: DeveloperSignUp,
): Promise<{ account: Account; restaurant: Restaurant }> {
  const { testRestaurant = berlin, ...newAccount } = input;
  const account = await createAccount(ctx, { ...newAccount, developer: true });
  const label = (account.name ?? account.email.split('@')[0] ?? 'Developer').slice(0, 100);
  const restaurant = await createRestaurant(ctx, {
    name: `${label} Test Restaurant`,
    timezone: testRestaurant.timezone.trim(),
    currency: testRestaurant.currency.trim().toUpperCase(),
    country: testRestaurant.country.trim().toUpperCase(),
    plan: 'pro',
    livemode: false,
    ownerIds: [account.id],
  });
  await demoMenu({ ...ctx, tenantId: restaurant.id });
  return { account, restaurant };
}
