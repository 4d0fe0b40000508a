import type { Selectable } from 'kysely';
import type { AppsTable } from '../../db/schema.ts';
import type { Ctx } from '../shared/context.ts';
import { InputError } from '../shared/errors.ts';
import { newId, newSecret, sha256 } from '../shared/ids.ts';
import { isScope, type Scope } from '../shared/scopes.ts';
import { characterCount } from '../shared/text.ts';
import { classifyRedirectUri } from './redirect-uri.ts';

export const appTypes = ['confidential', 'public'] as const;
export type AppType = (typeof appTypes)[number];
export const appStatuses = ['pending', 'approved', 'rejected', 'suspended'] as const;
export type AppStatus = (typeof appStatuses)[number];

export interface NewApp {
  developerId: string;
  name: string;
  type: AppType;
  redirectUris: readonly string[];
  scopes: readonly string[];
  logoUrl?: string | null;
  website?: string | null;
}

export interface App {
  id: string;
  clientId: string;
  developerId: string;
  name: string;
  type: AppType;
  redirectUris: string[];
  scopes: Scope[];
  status: AppStatus;
}

function checkHttpsUrl(label: string, value: string | null | undefined): void {
  if (value == null) return;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {}
  if (url?.protocol !== 'https:' || characterCount(value) > 500)
    throw new InputError(`${label} must be an https URL of at most 500 characters`);
}

function check(input: NewApp): void {
  if (!input.name.trim() || characterCount(input.name) > 80)
    throw new InputError('the app name must have 1 to 80 characters');
  if (!appTypes.includes(input.type))
    throw new InputError(`the app type must be one of ${appTypes.join(', ')}`);
  if (input.redirectUris.length === 0 || input.redirectUris.length > 10) {
    throw new InputError('an app needs 1 to 10 redirect URIs');
  }
  for (const uri of input.redirectUris) {
    const result = classifyRedirectUri(uri);
    if ('problem' in result) throw new InputError(`redirect URI "${uri}" ${result.problem}`);
  }
  if (input.scopes.length === 0) throw new InputError('an app needs at least one scope');
  for (const scope of input.scopes) if (!isScope(scope)) throw new InputError(`unknown scope "${scope}"`);
  checkHttpsUrl('the logo', input.logoUrl);
  checkHttpsUrl('the website', input.website);
}

/** Registers an app (status pending). A confidential app gets its first client secret, shown only here. */
export async function createApp(ctx: Ctx, input: NewApp): Promise<{ app: App; clientSecret: string | null }> {
  check(input);
  const developer = await ctx.db
    .selectFrom('accounts')
    .select('developer')
    .where('id', '=', input.developerId)
    .executeTakeFirst();
  if (!developer?.developer) throw new InputError('apps are registered by a developer account');
  const app: App = {
    id: newId(),
    clientId: `svc_app_${newSecret('').slice(0, 24)}`,
    developerId: input.developerId,
    name: input.name.trim(),
    type: input.type,
    redirectUris: [...new Set(input.redirectUris)],
    scopes: [...new Set(input.scopes)] as Scope[],
    status: 'pending',
  };
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('apps')
    .values({
      id: app.id,
      client_id: app.clientId,
      developer_id: app.developerId,
      name: app.name,
      type: app.type,
      redirect_uris: app.redirectUris,
      scopes: app.scopes,
      logo_url: input.logoUrl ?? null,
      website: input.website ?? null,
      status: app.status,
      created_at: now,
    })
    .execute();
  let clientSecret: string | null = null;
  if (app.type === 'confidential') {
    clientSecret = newSecret('svc_cs_');
    await ctx.db
      .insertInto('app_secrets')
      .values({
        id: newId(),
        app_id: app.id,
        secret_hash: sha256(clientSecret),
        created_at: now,
        expires_at: null,
      })
      .execute();
  }
  return { app, clientSecret };
}

export async function setAppStatus(ctx: Ctx, clientId: string, status: AppStatus): Promise<App> {
  if (!appStatuses.includes(status))
    throw new InputError(`the status must be one of ${appStatuses.join(', ')}`);
  const row = await ctx.db
    .updateTable('apps')
    .set({ status })
    .where('client_id', '=', clientId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new InputError(`no app with client id ${clientId}`);
  return appOf(row);
}

/** How long a replaced client secret stays valid (spec: Clients). */
export const replacedSecretValidMs = 24 * 60 * 60 * 1000;

/**
 * A new client secret for a confidential app, returned only here and stored as its SHA-256
 * (spec: Clients):
 * - the current secrets (no expiry) stay valid for 24 more hours, so the app's servers can
 *   switch over; secrets already expiring keep their earlier expiry;
 * - a public app has no secret.
 * Concurrent calls for one app run one after the other (the app's row is locked), so an app never
 * ends up with two current secrets.
 */
export async function createClientSecret(
  ctx: Ctx,
  clientId: string,
): Promise<{ app: App; clientSecret: string; previousExpiresAt: Date | null }> {
  const row = await ctx.db
    .selectFrom('apps')
    .selectAll()
    .where('client_id', '=', clientId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new InputError(`no app with client id ${clientId}`);
  if (row.type !== 'confidential') throw new InputError('a public app has no client secret');
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + replacedSecretValidMs);
  const replaced = await ctx.db
    .updateTable('app_secrets')
    .set({ expires_at: expiresAt })
    .where('app_id', '=', row.id)
    .where('expires_at', 'is', null)
    .executeTakeFirst();
  const clientSecret = newSecret('svc_cs_');
  await ctx.db
    .insertInto('app_secrets')
    .values({
      id: newId(),
      app_id: row.id,
      secret_hash: sha256(clientSecret),
      created_at: now,
      expires_at: null,
    })
    .execute();
  return {
    app: appOf(row),
    clientSecret,
    previousExpiresAt: replaced.numUpdatedRows > 0n ? expiresAt : null,
  };
}

function appOf(row: Selectable<AppsTable>): App {
  return {
    id: row.id,
    clientId: row.client_id,
    developerId: row.developer_id,
    name: row.name,
    type: row.type,
    redirectUris: row.redirect_uris,
    scopes: row.scopes as Scope[],
    status: row.status,
  };
}
