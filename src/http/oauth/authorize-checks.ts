import type { AppStatus, AppType } from '../../domain/apps/apps.service.ts';
import { classifyRedirectUri, type RedirectUriKind } from '../../domain/apps/redirect-uri.ts';
import { InvalidRequest, InvalidScope, UnsupportedResponseType } from '../../domain/oauth/oauth-errors.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import { isScope, type Scope } from '../../domain/shared/scopes.ts';
import { characterCount } from '../../domain/shared/text.ts';
import { NoRedirect } from './authorize-errors.ts';

/*
 * The checks of an authorization request (spec: OAuth endpoints, Authorization request), in
 * order. The first ones decide whether the request may be answered at its redirect URI at all;
 * they throw NoRedirect (an error page). The others throw the OAuth error that goes back to the
 * app on its redirect URI.
 */

export type AuthorizeQuery = Readonly<Record<string, string | string[] | undefined>>;

export interface AuthorizingApp {
  id: string;
  developerId: string;
  name: string;
  logoUrl: string | null;
  website: string | null;
  type: AppType;
  status: AppStatus;
  scopes: string[];
  redirectUris: string[];
}

/*
 * - every parameter at most once: a repeated one may be read one way by the app and another by us
 */
export function checkNoRepeatedParameters(query: AuthorizeQuery): void {
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) throw new NoRedirect(`The app sent the parameter "${name}" more than once.`);
  }
}

/*
 * - client_id present and naming a registered app
 */
export async function checkClient(ctx: Ctx, query: AuthorizeQuery): Promise<AuthorizingApp> {
  const clientId = single(query.client_id);
  if (!clientId) throw new NoRedirect('The app did not say who it is (client_id is missing).');
  const row = await ctx.db
    .selectFrom('apps')
    .select([
      'id',
      'developer_id',
      'name',
      'logo_url',
      'website',
      'type',
      'status',
      'scopes',
      'redirect_uris',
    ])
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  if (!row) throw new NoRedirect('No app is registered with this client_id.');
  return {
    id: row.id,
    developerId: row.developer_id,
    name: row.name,
    logoUrl: row.logo_url,
    website: row.website,
    type: row.type,
    status: row.status,
    scopes: row.scopes,
    redirectUris: row.redirect_uris,
  };
}

/*
 * - redirect_uri present and registered for the app, compared character by character (no
 *   normalisation: case, encoding, trailing slashes all count);
 * - only the port of a loopback redirect may differ from the registered one (native apps listen
 *   on whatever port is free)
 */
export function checkRedirectUri(
  app: AuthorizingApp,
  query: AuthorizeQuery,
): { redirectUri: string; redirectKind: RedirectUriKind } {
  const redirectUri = single(query.redirect_uri);
  if (!redirectUri) throw new NoRedirect('The app did not say where to return to (redirect_uri is missing).');
  const registered = app.redirectUris.find((uri) => sameRedirectUri(uri, redirectUri));
  const kind = registered === undefined ? undefined : classifyRedirectUri(registered);
  if (!kind || !('kind' in kind)) throw new NoRedirect('The redirect_uri is not registered for this app.');
  return { redirectUri, redirectKind: kind.kind };
}

const loopbackUri = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(?::(\d{1,5}))?([/?].*)?$/s;

function sameRedirectUri(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const r = loopbackUri.exec(registered);
  const q = loopbackUri.exec(requested);
  if (!r || !q) return false;
  const port = q[2] === undefined ? 80 : Number(q[2]);
  return r[1] === q[1] && (r[3] ?? '') === (q[3] ?? '') && port >= 1 && port <= 65535;
}

/*
 * - a rejected or suspended app connects nowhere, and never gets a redirect
 */
export function checkAppActive(app: AuthorizingApp): void {
  if (app.status === 'rejected' || app.status === 'suspended') {
    throw new NoRedirect(`${app.name} cannot be connected at the moment: the app is ${app.status}.`);
  }
}

/*
 * Other errors go back to the app only if it is approved, or, before approval, when its
 * developer is signed in (they test it); anyone else could be sent anywhere by an app no one has
 * looked at.
 */
export function mayRedirect(app: AuthorizingApp, accountId: string | null): boolean {
  return app.status === 'approved' || (app.status === 'pending' && accountId === app.developerId);
}

/*
 * - response_type present and `code` (the only flow)
 */
export function checkResponseType(query: AuthorizeQuery): void {
  const responseType = single(query.response_type);
  if (!responseType) throw new InvalidRequest('response_type is missing.');
  if (responseType !== 'code') throw new UnsupportedResponseType('response_type must be code.');
}

/*
 * - state present (the app's guard against forged callbacks), at most 500 characters
 */
export function checkState(query: AuthorizeQuery): string {
  const state = single(query.state);
  if (!state) throw new InvalidRequest('state is missing.');
  if (characterCount(state) > 500) throw new InvalidRequest('state must have at most 500 characters.');
  return state;
}

/*
 * - code_challenge present: 43 characters of base64url, the SHA-256 of the verifier, no padding
 * - code_challenge_method present and S256 (PKCE is mandatory; `plain` is refused)
 */
export function checkPkce(query: AuthorizeQuery): string {
  const challenge = single(query.code_challenge);
  const method = single(query.code_challenge_method);
  if (!challenge) throw new InvalidRequest('code_challenge is missing (PKCE is required).');
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge))
    throw new InvalidRequest('code_challenge must be 43 characters of base64url (SHA-256 of the verifier).');
  if (!method) throw new InvalidRequest('code_challenge_method is missing; it must be S256.');
  if (method !== 'S256') throw new InvalidRequest('code_challenge_method must be S256.');
  return challenge;
}

/*
 * - scope absent: every scope the app registered
 * - otherwise space-separated, at least one, each a known scope that the app registered
 */
export function checkScope(app: AuthorizingApp, query: AuthorizeQuery): Scope[] {
  const scope = single(query.scope);
  if (scope === undefined) return app.scopes.filter(isScope);
  const requested = [...new Set(scope.split(' ').filter(Boolean))];
  if (requested.length === 0) throw new InvalidScope('scope is empty.');
  for (const name of requested) {
    if (!isScope(name)) throw new InvalidScope(`Unknown scope "${name}".`);
    if (!app.scopes.includes(name))
      throw new InvalidScope(`The app is not registered for the scope "${name}".`);
  }
  return requested as Scope[];
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
