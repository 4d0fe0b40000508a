import type { AppStatus, AppType } from '../apps/apps.service.ts';
import type { RedirectUriKind } from '../apps/redirect-uri.ts';
import type { Ctx } from '../shared/context.ts';

export interface ConsentingApp {
  developerId: string;
  type: AppType;
  status: AppStatus;
}

export interface ConsentRestaurant {
  id: string;
  name: string;
  livemode: boolean;
}

/*
 * The restaurants an account may connect an app to (spec: Authentication, Flow and Redirect URIs):
 * - only restaurants the account owns (staff may not connect);
 * - an app not yet approved: only its developer, with restaurants they own (their test restaurant
 *   among them); a rejected or suspended app: none;
 * - a confidential app asking for a loopback or custom-scheme redirect: only its developer's own
 *   test restaurant (livemode false).
 */
export async function restaurantsForConsent(
  ctx: Ctx,
  input: { accountId: string; app: ConsentingApp; redirectKind: RedirectUriKind },
): Promise<ConsentRestaurant[]> {
  const { app, accountId } = input;
  const isDeveloper = accountId === app.developerId;
  if (app.status === 'rejected' || app.status === 'suspended') return [];
  if (app.status === 'pending' && !isDeveloper) return [];
  const testOnly = onlyForTestRestaurant(app, input.redirectKind);
  if (testOnly && !isDeveloper) return [];
  // The account's restaurants: on Citus every shard is asked (a consent page, seldom).
  let query = ctx.db
    .selectFrom('restaurant_members as m')
    .innerJoin('restaurants as r', 'r.id', 'm.tenant_id')
    .select(['r.id', 'r.name', 'r.livemode'])
    .where('m.account_id', '=', accountId)
    .where('m.role', '=', 'owner');
  if (testOnly) query = query.where('r.livemode', '=', false);
  return query.orderBy('r.name').orderBy('r.id').execute();
}

/** A confidential app returning to a loopback or custom-scheme address: its developer's test restaurant only. */
export function onlyForTestRestaurant(
  app: Pick<ConsentingApp, 'type'>,
  redirectKind: RedirectUriKind,
): boolean {
  return app.type === 'confidential' && redirectKind !== 'https';
}
