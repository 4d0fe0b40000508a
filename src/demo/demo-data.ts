import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/client.ts';
import { createAccount } from '../domain/accounts/accounts.service.ts';
import { signUpDeveloper } from '../domain/accounts/developer-sign-up.ts';
import { createApp, setAppStatus } from '../domain/apps/apps.service.ts';
import { consentToApp } from '../domain/connections/connections.service.ts';
import { demoMenu, demoMenuSummary } from '../domain/menu/demo-menu.ts';
import { createRestaurant } from '../domain/restaurants/restaurants.service.ts';
import { type Clock, systemCtx } from '../domain/shared/context.ts';
import type { ImageFetcher } from '../domain/shared/image-fetcher.ts';
import { scopes } from '../domain/shared/scopes.ts';
import { demoFloor, demoFloorSummary } from './demo-floor.ts';
import { pictureDemoRestaurant } from './demo-photos.ts';
import { demoStore, demoStoreSummary } from './demo-store.ts';
import {
  type DemoConnectionTokens,
  demoDeveloperEmail,
  describeDemoTokens,
  issueDemoTokens,
} from './demo-tokens.ts';

export interface DemoData {
  owner: { email: string; password: string };
  restaurant: { id: string; name: string; slug: string };
  developer: { email: string; password: string };
  testRestaurant: { id: string; name: string; slug: string };
  app: { clientId: string; clientSecret: string; redirectUri: string };
  /** The app's token pairs: for the live restaurant (where guests order) and the test restaurant. */
  tokens: { live: DemoConnectionTokens; test: DemoConnectionTokens };
  /** The app's access token for the test restaurant (tokens.test.accessToken). */
  accessToken: string;
}

/**
 * On the first start of an empty database: an owner with a restaurant on the pro plan, and a
 * developer with an approved app connected to their test restaurant and to the owner's; both restaurants have the
 * same hours, special days, tables and areas, and menu; with `pictures`, the owner's restaurant
 * has its products' photos, logo and cover (demo-photos.ts). Returns what was created (passwords and secrets exist only here), or
 * null when the database already has accounts.
 */
export async function seedDemoData(
  db: Db,
  clock: Clock,
  pictures?: { keeper: ImageFetcher; baseUrl: string },
): Promise<DemoData | null> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(7272027)`.execute(trx);
    const any = await trx.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
    if (any) return null;
    const ctx = systemCtx(trx, clock);
    const password = () => randomBytes(9).toString('base64url');

    const ownerLogin = { email: 'owner@demo.servery.test', password: password() };
    const owner = await createAccount(ctx, { ...ownerLogin, name: 'Giulia Rossi' });
    const restaurant = await createRestaurant(ctx, {
      name: 'Trattoria Demo',
      timezone: 'Europe/Berlin',
      currency: 'EUR',
      country: 'DE',
      language: 'de',
      plan: 'pro',
      livemode: true,
      ownerIds: [owner.id],
    });
    await demoStore({ ...ctx, tenantId: restaurant.id }, restaurant.timezone);
    await demoFloor({ ...ctx, tenantId: restaurant.id });
    await demoMenu({ ...ctx, tenantId: restaurant.id });
    if (pictures)
      await pictureDemoRestaurant({ ...ctx, tenantId: restaurant.id }, pictures.keeper, pictures.baseUrl);

    // Signed up as any developer is: "Demo Developer Test Restaurant", with the demo menu.
    const developerLogin = { email: demoDeveloperEmail, password: password() };
    const { account: developer, restaurant: testRestaurant } = await signUpDeveloper(ctx, {
      ...developerLogin,
      name: 'Demo Developer',
    });
    await demoStore({ ...ctx, tenantId: testRestaurant.id }, testRestaurant.timezone);
    await demoFloor({ ...ctx, tenantId: testRestaurant.id });
    const redirectUri = 'http://127.0.0.1:8080/callback';
    const { app, clientSecret } = await createApp(ctx, {
      developerId: developer.id,
      name: 'Demo POS',
      type: 'confidential',
      redirectUris: [redirectUri],
      scopes,
    });
    await setAppStatus(ctx, app.clientId, 'approved');
    // Connected to the developer's test restaurant, and by its owner to the live restaurant, where
    // `servery demo guests` orders; a token pair for each, as `servery demo token` makes them.
    await consentToApp(ctx, { tenantId: testRestaurant.id, appId: app.id, scopes });
    await consentToApp(ctx, { tenantId: restaurant.id, appId: app.id, scopes });
    const { tokens } = await issueDemoTokens(ctx);
    const pairOf = (id: string) => {
      const pair = tokens.find((candidate) => candidate.restaurant.id === id);
      if (!pair) throw new Error(`the demo app has no tokens for restaurant ${id}`);
      return pair;
    };
    const [live, test] = [pairOf(restaurant.id), pairOf(testRestaurant.id)];
    return {
      owner: ownerLogin,
      restaurant: { id: restaurant.id, name: restaurant.name, slug: restaurant.slug },
      developer: developerLogin,
      testRestaurant: { id: testRestaurant.id, name: testRestaurant.name, slug: testRestaurant.slug },
      app: { clientId: app.clientId, clientSecret: clientSecret ?? '', redirectUri },
      tokens: { live, test },
      accessToken: test.accessToken,
    };
  });
}

export function describeDemoData(demo: DemoData, baseUrl: string): string {
  const { live, test } = demo.tokens;
  return [
    '',
    'Demo data created. These passwords and secrets are shown this once:',
    '',
    `  Restaurant owner   ${demo.owner.email}  password ${demo.owner.password}`,
    `                     owns "${demo.restaurant.name}" (pro plan, live)`,
    `  Developer          ${demo.developer.email}  password ${demo.developer.password}`,
    `                     test restaurant "${demo.testRestaurant.name}"`,
    `  Both restaurants   ${demoStoreSummary};`,
    `                     ${demoFloorSummary};`,
    `                     ${demoMenuSummary}`,
    `  App "Demo POS"     client_id ${demo.app.clientId}`,
    `                     client_secret ${demo.app.clientSecret}`,
    `                     redirect_uri ${demo.app.redirectUri} (approved, connected to both restaurants)`,
    '',
    '  The app’s tokens, a pair for each restaurant (access tokens are valid one hour):',
    ...describeDemoTokens([live, test], '    '),
    '  When they expire, fresh ones (without --restaurant: for each restaurant):',
    `    npm run servery -- demo token --restaurant ${live.restaurant.slug}`,
    '  or refresh as an app does (a refresh token works once; the answer has a new pair):',
    `    curl -u '${demo.app.clientId}:${demo.app.clientSecret}' -d grant_type=refresh_token -d refresh_token=${live.refreshToken} ${baseUrl}/oauth/token`,
    '',
    `  Try the API in "${test.restaurant.name}":`,
    `    curl -H 'Authorization: Bearer ${test.accessToken}' ${baseUrl}/v1/me`,
    `    curl -H 'Authorization: Bearer ${test.accessToken}' ${baseUrl}/v1/store`,
    `    curl -H 'Authorization: Bearer ${test.accessToken}' ${baseUrl}/v1/tables`,
    `    curl -H 'Authorization: Bearer ${test.accessToken}' ${baseUrl}/v1/menu`,
    `  The API's description: ${baseUrl}/v1/openapi.json`,
    '',
    `  Watch guests order at "${demo.restaurant.name}": in another terminal run`,
    '    npm run servery -- demo guests',
    `  and follow the orders as the app sees them, with the token of "${demo.restaurant.name}":`,
    `    curl -H 'Authorization: Bearer ${live.accessToken}' ${baseUrl}/v1/orders`,
    `  or on the kitchen's order board (sign in as the owner): ${baseUrl}/dashboard`,
    '',
  ].join('\n');
}
