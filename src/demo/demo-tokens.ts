import { createHash, randomBytes } from 'node:crypto';
import { redeemAuthorizationCode } from '../domain/oauth/authorization-code-grant.ts';
import { issueAuthorizationCode } from '../domain/oauth/authorization-codes.ts';
import type { Ctx } from '../domain/shared/context.ts';
import { InputError } from '../domain/shared/errors.ts';
import type { Scope } from '../domain/shared/scopes.ts';

/** The demo developer, whose first app is the demo app ("Demo POS"). */
export const demoDeveloperEmail = 'developer@demo.servery.test';

/** The demo app's fresh tokens for one restaurant it is connected to. */
export interface DemoConnectionTokens {
  restaurant: { id: string; name: string; slug: string; livemode: boolean };
  connectionId: string;
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  scope: string;
}

export interface DemoTokens {
  app: { clientId: string; name: string };
  /** The demo restaurant (live, where guests order) first, then the developer's test restaurant. */
  tokens: DemoConnectionTokens[];
}

/*
 * Fresh tokens for the demo app's connections, the way an app gets them: an authorization code
 * for the connection's consented scopes, redeemed at once with its PKCE verifier. So each pair
 * is a token family of its own that the token endpoint refreshes, rotates and revokes like any
 * other, and only the tokens' hashes are stored.
 * - no demo data (no app of the demo developer) → refused;
 * - the demo app suspended → refused (its tokens would not work);
 * - `restaurantSlug`: only that restaurant, which must exist and have the app connected.
 */
export async function issueDemoTokens(
  ctx: Ctx,
  options: { restaurantSlug?: string } = {},
): Promise<DemoTokens> {
  const app = await ctx.db
    .selectFrom('apps as a')
    .innerJoin('accounts as d', 'd.id', 'a.developer_id')
    .select(['a.id', 'a.client_id', 'a.name', 'a.type', 'a.status', 'a.redirect_uris'])
    .where((eb) => eb(eb.fn('lower', ['d.email']), '=', demoDeveloperEmail))
    .orderBy('a.created_at')
    .orderBy('a.id')
    .executeTakeFirst();
  if (!app)
    throw new InputError(
      'this database has no demo data: it is created on the first start of an empty database (DEMO_DATA on)',
    );
  if (app.status === 'suspended')
    throw new InputError(
      `the demo app "${app.name}" is suspended: reinstate it first (servery app approve ${app.client_id})`,
    );
  const slug = options.restaurantSlug;
  if (slug !== undefined) {
    const restaurant = await ctx.db
      .selectFrom('restaurants')
      .select('id')
      .where('slug', '=', slug)
      .executeTakeFirst();
    if (!restaurant) throw new InputError(`no restaurant with the slug "${slug}"`);
  }
  const connections = await ctx.db
    .selectFrom('connections as c')
    .innerJoin('restaurants as r', 'r.id', 'c.tenant_id')
    .select(['c.id', 'c.scopes', 'r.id as tenant_id', 'r.name', 'r.slug', 'r.livemode'])
    .where('c.app_id', '=', app.id)
    .where('c.ended_at', 'is', null)
    .$if(slug !== undefined, (query) => query.where('r.slug', '=', slug as string))
    .orderBy('r.livemode', 'desc')
    .orderBy('r.created_at')
    .execute();
  if (connections.length === 0)
    throw new InputError(
      slug === undefined
        ? `the demo app "${app.name}" is connected to no restaurant`
        : `the demo app "${app.name}" is not connected to "${slug}"`,
    );
  const redirectUri = app.redirect_uris[0] as string;
  const client = { appId: app.id, clientId: app.client_id, type: app.type, status: app.status };
  const tokens: DemoConnectionTokens[] = [];
  for (const connection of connections) {
    const verifier = randomBytes(32).toString('base64url');
    const code = await issueAuthorizationCode(ctx, {
      tenantId: connection.tenant_id,
      connectionId: connection.id,
      appId: app.id,
      scopes: connection.scopes as Scope[],
      redirectUri,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
    });
    const outcome = await redeemAuthorizationCode(ctx, client, {
      code,
      redirectUri,
      codeVerifier: verifier,
    });
    if ('refused' in outcome) throw outcome.refused;
    const { issued } = outcome;
    tokens.push({
      restaurant: {
        id: connection.tenant_id,
        name: connection.name,
        slug: connection.slug,
        livemode: connection.livemode,
      },
      connectionId: connection.id,
      accessToken: issued.access_token,
      refreshToken: issued.refresh_token,
      expiresIn: issued.expires_in,
      scope: issued.scope,
    });
  }
  return { app: { clientId: app.client_id, name: app.name }, tokens };
}

/** The demo restaurant's slug ("Trattoria Demo"), where `servery demo guests` orders by default. */
export const demoRestaurantSlug = 'trattoria-demo';

/** What a restaurant is to the demo, beside its tokens: where guests' orders arrive, or the developer's tests. */
export function demoRestaurantRole(restaurant: { slug: string; livemode: boolean }): string {
  if (!restaurant.livemode) return 'the developer’s test restaurant: no guests, test orders from the console';
  const guests = restaurant.slug === demoRestaurantSlug ? '' : ` --slug ${restaurant.slug}`;
  return `the demo’s guest orders arrive here (npm run servery -- demo guests${guests})`;
}

/**
 * The tokens, labelled by restaurant, for the first start's notice and `servery demo token`;
 * each line indented by `indent`.
 */
export function describeDemoTokens(tokens: readonly DemoConnectionTokens[], indent: string): string[] {
  return tokens.flatMap(({ restaurant, accessToken, refreshToken }) => [
    `${indent}"${restaurant.name}" (${restaurant.slug}, ${restaurant.livemode ? 'live' : 'test'}): ${demoRestaurantRole(restaurant)}`,
    `${indent}  access_token   ${accessToken}`,
    `${indent}  refresh_token  ${refreshToken}`,
  ]);
}
