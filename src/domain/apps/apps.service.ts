import type { Selectable } from 'kysely';
import type { AppsTable } from '../../db/schema.ts';
import type { Ctx } from '../shared/context.ts';
import { ApiError, InputError } from '../shared/errors.ts';
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
  logoUrl: string | null;
  website: string | null;
  createdAt: Date;
}

/** What a developer may change of an app (its type and status stay). */
export type AppPatch = Partial<Pick<NewApp, 'name' | 'redirectUris' | 'scopes' | 'logoUrl' | 'website'>>;

function httpsUrlProblem(param: string, label: string, value: string | null | undefined): InputError[] {
  if (value == null) return [];
  const url = URL.parse(value);
  if (url?.protocol === 'https:' && characterCount(value) <= 500) return [];
  return [new InputError(`${label} must be an https URL of at most 500 characters`, { param })];
}

/*
 * What an app must be, on registering and on every change (the refusal's `param` is the field of
 * the console's forms and JSON API; `redirect_uris[i]` names one URI):
 * - a name of 1 to 80 characters; a type, confidential or public;
 * - 1 to 10 redirect URIs, each as classifyRedirectUri allows (spec: Redirect URIs);
 * - at least one scope, each one of the nine;
 * - logo and website optional, https.
 * Refused with every problem found, in the form's order (InputError.all), the first named.
 */
function check(input: Omit<NewApp, 'developerId'>): void {
  const problems: InputError[] = [];
  if (!input.name.trim() || characterCount(input.name) > 80)
    problems.push(new InputError('the app name must have 1 to 80 characters', { param: 'name' }));
  if (!appTypes.includes(input.type))
    problems.push(new InputError(`the app type must be one of ${appTypes.join(', ')}`, { param: 'type' }));
  if (input.redirectUris.length === 0 || input.redirectUris.length > 10)
    problems.push(new InputError('an app needs 1 to 10 redirect URIs', { param: 'redirect_uris' }));
  input.redirectUris.forEach((uri, index) => {
    const result = classifyRedirectUri(uri);
    if ('problem' in result)
      problems.push(
        new InputError(`redirect URI "${uri}" ${result.problem}`, { param: `redirect_uris[${index}]` }),
      );
  });
  if (input.scopes.length === 0)
    problems.push(new InputError('an app needs at least one scope', { param: 'scopes' }));
  const unknown = input.scopes.find((scope) => !isScope(scope));
  if (unknown !== undefined) problems.push(new InputError(`unknown scope "${unknown}"`, { param: 'scopes' }));
  problems.push(...httpsUrlProblem('logo_url', 'the logo', input.logoUrl));
  problems.push(...httpsUrlProblem('website', 'the website', input.website));
  const [first] = problems;
  if (first) throw new InputError(first.message, { param: first.param, all: problems });
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
    logoUrl: input.logoUrl ?? null,
    website: input.website ?? null,
    createdAt: ctx.clock.now(),
  };
  const now = app.createdAt;
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
      logo_url: app.logoUrl,
      website: app.website,
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

/** Which app, as its developer: another developer's app is not found, as an unknown one. */
export interface DeveloperAppRef {
  clientId: string;
  developerId: string;
}

/** The developer's app, its row locked when `lock` (writes of one app run one after the other). */
export async function findDeveloperApp(
  ctx: Ctx,
  ref: DeveloperAppRef,
  lock = false,
): Promise<Selectable<AppsTable>> {
  const query = ctx.db
    .selectFrom('apps')
    .selectAll()
    .where('client_id', '=', ref.clientId)
    .where('developer_id', '=', ref.developerId);
  const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
  if (!row) throw new ApiError('not_found', `No app with the client_id ${ref.clientId}.`);
  return row;
}

/*
 * Changes a developer's app with the checks of registering (check). A change of scopes applies to
 * consents from now on (an owner is asked for the app's scopes); existing connections keep what
 * their owner granted until the owner consents again (spec: connecting again replaces the scopes),
 * as the spec gives no way to widen or narrow a grant without the owner.
 */
export async function updateApp(ctx: Ctx, ref: DeveloperAppRef, patch: AppPatch): Promise<App> {
  const current = appOf(await findDeveloperApp(ctx, ref, true));
  const next = {
    name: patch.name ?? current.name,
    type: current.type,
    redirectUris: patch.redirectUris ?? current.redirectUris,
    scopes: patch.scopes ?? current.scopes,
    logoUrl: patch.logoUrl === undefined ? current.logoUrl : patch.logoUrl,
    website: patch.website === undefined ? current.website : patch.website,
  };
  check(next);
  const row = await ctx.db
    .updateTable('apps')
    .set({
      name: next.name.trim(),
      redirect_uris: [...new Set(next.redirectUris)],
      scopes: [...new Set(next.scopes)],
      logo_url: next.logoUrl,
      website: next.website,
    })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return appOf(row);
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

/** A new client secret for the developer's app (createClientSecret); another developer's app: not_found. */
export async function rotateClientSecret(ctx: Ctx, ref: DeveloperAppRef) {
  await findDeveloperApp(ctx, ref, true);
  return createClientSecret(ctx, ref.clientId);
}

export function appOf(row: Selectable<AppsTable>): App {
  return {
    id: row.id,
    clientId: row.client_id,
    developerId: row.developer_id,
    name: row.name,
    type: row.type,
    redirectUris: row.redirect_uris,
    scopes: row.scopes as Scope[],
    status: row.status,
    logoUrl: row.logo_url,
    website: row.website,
    createdAt: row.created_at,
  };
}
