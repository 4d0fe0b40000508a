import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { type AppType, setAppStatus } from '../../src/domain/apps/apps.service.ts';
import { issueAuthorizationCode } from '../../src/domain/oauth/authorization-codes.ts';
import type { TokenResponse } from '../../src/domain/oauth/token-response.schema.ts';
import { newId, newSecret, sha256 } from '../../src/domain/shared/ids.ts';
import type { Scope } from '../../src/domain/shared/scopes.ts';
import { makeTenant, type Tenant, type TestApp } from '../harness.ts';

export const redirectUri = 'https://app.example.test/callback';

/** A connected restaurant with its app's credentials: a known client secret for confidential apps. */
export interface OAuthClient extends Tenant {
  type: AppType;
  secret: string | null;
}

/** makeTenant (an approved app, consented to), plus a client secret the test knows. */
export async function makeClient(
  t: TestApp,
  options: { type?: AppType; scopes?: readonly Scope[] } = {},
): Promise<OAuthClient> {
  const type = options.type ?? 'confidential';
  const tenant = await makeTenant(t.ctx, {
    appType: type,
    ...(options.scopes ? { scopes: options.scopes } : {}),
  });
  const secret = type === 'confidential' ? await addSecret(t, tenant.appId, null) : null;
  return { ...tenant, type, secret };
}

/** Another client secret of the app (as the console's rotation makes, with an end for the old one). */
export async function addSecret(
  t: TestApp,
  appId: string,
  expiresAt: Date | null,
  secret = newSecret('svc_cs_'),
): Promise<string> {
  await t.database.db
    .insertInto('app_secrets')
    .values({
      id: newId(),
      app_id: appId,
      secret_hash: sha256(secret),
      created_at: t.clock.now(),
      expires_at: expiresAt,
    })
    .execute();
  return secret;
}

export async function setClientStatus(t: TestApp, client: OAuthClient, status: 'suspended' | 'approved') {
  await setAppStatus(t.ctx, client.clientId, status);
}

/** A PKCE pair: a verifier of 43 to 128 characters and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** What the consent page does after the owner pressed Connect: a code for the client's connection. */
export async function mintCode(
  t: TestApp,
  client: OAuthClient,
  options: { scopes?: readonly Scope[]; verifier?: string } = {},
): Promise<{ code: string; verifier: string }> {
  const verifier = options.verifier ?? pkce().verifier;
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const code = await issueAuthorizationCode(t.ctx, {
    tenantId: client.restaurantId,
    connectionId: client.connectionId,
    appId: client.appId,
    scopes: options.scopes ?? ['orders:read', 'menu:read', 'store:read'],
    redirectUri,
    codeChallenge: challenge,
  });
  return { code, verifier };
}

/** The client's credentials as the body carries them (client_secret_post, or none when public). */
export function credentials(client: OAuthClient): Record<string, string> {
  return client.secret === null
    ? { client_id: client.clientId }
    : { client_id: client.clientId, client_secret: client.secret };
}

export function basicAuth(clientId: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replaceAll('%20', '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}

let addressSerial = 0;
/** A fresh client address, so one test's failed authentications do not count against another's. */
export function freshAddress(): string {
  addressSerial += 1;
  return `10.0.${Math.floor(addressSerial / 250)}.${(addressSerial % 250) + 1}`;
}

export function post(
  t: TestApp,
  url: '/oauth/token' | '/oauth/revoke',
  form: Record<string, string> | string,
  options: { headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    payload: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
    remoteAddress: options.remoteAddress ?? freshAddress(),
  });
}

/** Exchanges a code; the response of the token endpoint. */
export function exchange(
  t: TestApp,
  client: OAuthClient,
  minted: { code: string; verifier: string },
  extra: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return post(t, '/oauth/token', {
    grant_type: 'authorization_code',
    code: minted.code,
    redirect_uri: redirectUri,
    code_verifier: minted.verifier,
    ...credentials(client),
    ...extra,
  });
}

export function refresh(
  t: TestApp,
  client: OAuthClient,
  refreshToken: string,
  extra: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return post(t, '/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...credentials(client),
    ...extra,
  });
}

/** A code exchanged: the first pair of a new family. */
export async function firstPair(
  t: TestApp,
  client: OAuthClient,
  options: { scopes?: readonly Scope[] } = {},
): Promise<TokenResponse> {
  const res = await exchange(t, client, await mintCode(t, client, options));
  if (res.statusCode !== 200) throw new Error(`exchange failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** The status of GET /v1/me with an access token: 200 while it is good, 401 once not. */
export async function meStatus(t: TestApp, accessToken: string): Promise<number> {
  const res = await t.app.inject({
    method: 'GET',
    url: '/v1/me',
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return res.statusCode;
}

/**
 * An OAuth error answer: the status, exactly `{error, error_description}`, `Cache-Control:
 * no-store`, no CORS header, and WWW-Authenticate with invalid_client.
 */
export function assertOAuthError(res: LightMyRequestResponse, status: number, error: string): void {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json() as Record<string, unknown>;
  assert.deepEqual(Object.keys(body), ['error', 'error_description']);
  assert.equal(body.error, error);
  assert.equal(typeof body.error_description, 'string');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(
    res.headers['www-authenticate'],
    error === 'invalid_client' ? 'Basic realm="servery"' : undefined,
  );
  assert.deepEqual(corsHeaders(res), []);
}

export function corsHeaders(res: LightMyRequestResponse): string[] {
  return Object.keys(res.headers).filter((name) => name.startsWith('access-control-'));
}
