import type { Ctx } from '../shared/context.ts';
import type { Scope } from '../shared/scopes.ts';
import { type App, appOf, type DeveloperAppRef, findDeveloperApp } from './apps.service.ts';

/** A developer's apps, by name (the console's home and its apps page). */
export async function appsOfDeveloper(ctx: Ctx, developerId: string): Promise<App[]> {
  const rows = await ctx.db
    .selectFrom('apps')
    .selectAll()
    .where('developer_id', '=', developerId)
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map(appOf);
}

/** A client secret that still works: the current one (no expiry) or a replaced one until it expires. */
export interface LiveClientSecret {
  createdAt: Date;
  expiresAt: Date | null;
}

/**
 * The developer's app with its client secrets that still work, newest first (only their dates:
 * a secret is stored as its hash and shown once, when made). Another developer's app: not_found.
 */
export async function developerApp(
  ctx: Ctx,
  ref: DeveloperAppRef,
): Promise<App & { clientSecrets: LiveClientSecret[] }> {
  const app = appOf(await findDeveloperApp(ctx, ref));
  const secrets = await ctx.db
    .selectFrom('app_secrets')
    .select(['created_at', 'expires_at'])
    .where('app_id', '=', app.id)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', ctx.clock.now())]))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return {
    ...app,
    clientSecrets: secrets.map((secret) => ({ createdAt: secret.created_at, expiresAt: secret.expires_at })),
  };
}

/** A restaurant connected to an app, as the app's developer sees it. */
export interface AppConnection {
  connectionId: string;
  restaurantId: string;
  restaurantName: string;
  scopes: Scope[];
  livemode: boolean;
  connectedAt: Date;
}

/**
 * The restaurants connected to the developer's app now (ended connections are gone), newest
 * first, with the scopes their owners granted. Another developer's app: not_found.
 */
export async function connectionsOfApp(ctx: Ctx, ref: DeveloperAppRef): Promise<AppConnection[]> {
  const app = await findDeveloperApp(ctx, ref);
  const rows = await ctx.db
    .selectFrom('connections as c')
    .innerJoin('restaurants as r', 'r.id', 'c.tenant_id')
    .select(['c.id', 'c.tenant_id', 'r.name', 'c.scopes', 'r.livemode', 'c.created_at'])
    .where('c.app_id', '=', app.id)
    .where('c.ended_at', 'is', null)
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id', 'desc')
    .execute();
  return rows.map((row) => ({
    connectionId: row.id,
    restaurantId: row.tenant_id,
    restaurantName: row.name,
    scopes: row.scopes as Scope[],
    livemode: row.livemode,
    connectedAt: row.created_at,
  }));
}
