import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { consentToApp } from '../../src/domain/connections/connections.service.ts';
import { sha256 } from '../../src/domain/shared/ids.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import {
  assertOAuthError,
  firstPair,
  makeClient,
  meStatus,
  refresh,
  setClientStatus,
} from './oauth-helpers.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const second = 1000;
const day = 24 * 3600 * second;

async function refreshed(client: Awaited<ReturnType<typeof makeClient>>, token: string, extra = {}) {
  const res = await refresh(t, client, token, extra);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['cache-control'], 'no-store');
  return res.json();
}

test('a refresh returns a new pair in the spec’s shape, which works', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client);
  const next = await refreshed(client, first.refresh_token);
  assert.deepEqual(Object.keys(next), [
    'access_token',
    'token_type',
    'expires_in',
    'refresh_token',
    'scope',
    'connection_id',
    'tenant',
  ]);
  assert.equal(next.token_type, 'Bearer');
  assert.equal(next.expires_in, 3600);
  assert.equal(next.scope, first.scope);
  assert.equal(next.connection_id, client.connectionId);
  assert.deepEqual(next.tenant, first.tenant);
  assert.notEqual(next.refresh_token, first.refresh_token);
  assert.notEqual(next.access_token, first.access_token);
  assert.equal(await meStatus(t, next.access_token), 200);
  assert.equal((await refresh(t, client, next.refresh_token)).statusCode, 200);
});

test('grace rule: the old token again within 60 s, the first response’s refresh token unused → a fresh pair; the first pair is revoked', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client);
  const lost = await refreshed(client, first.refresh_token);
  t.clock.advance(60 * second);
  const retry = await refreshed(client, first.refresh_token);
  assert.equal(await meStatus(t, lost.access_token), 401);
  assertOAuthError(await refresh(t, client, lost.refresh_token), 400, 'invalid_grant');
  // The fresh pair is the live one, and the family was not revoked.
  assert.equal(await meStatus(t, retry.access_token), 200);
  const after = await refreshed(client, retry.refresh_token);
  assert.equal(await meStatus(t, after.access_token), 200);
});

test('reuse after 60 s revokes the whole family', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client);
  const next = await refreshed(client, first.refresh_token);
  t.clock.advance(60 * second + 1);
  assertOAuthError(await refresh(t, client, first.refresh_token), 400, 'invalid_grant');
  assert.equal(await meStatus(t, next.access_token), 401);
  assert.equal(await meStatus(t, first.access_token), 401);
  assertOAuthError(await refresh(t, client, next.refresh_token), 400, 'invalid_grant');
  // Only the family: the connection and its other tokens remain.
  assert.equal(await meStatus(t, client.token), 200);
});

test('reuse within 60 s once the first response’s refresh token was used revokes the whole family', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client);
  const next = await refreshed(client, first.refresh_token);
  const third = await refreshed(client, next.refresh_token);
  t.clock.advance(10 * second);
  assertOAuthError(await refresh(t, client, first.refresh_token), 400, 'invalid_grant');
  assert.equal(await meStatus(t, third.access_token), 401);
  assertOAuthError(await refresh(t, client, third.refresh_token), 400, 'invalid_grant');
});

test('reuse within 60 s once the first response’s refresh token was revoked revokes the whole family', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client);
  const next = await refreshed(client, first.refresh_token);
  await t.database.db
    .updateTable('refresh_tokens')
    .set({ revoked_at: t.clock.now() })
    .where('token_hash', '=', sha256(next.refresh_token))
    .execute();
  assertOAuthError(await refresh(t, client, first.refresh_token), 400, 'invalid_grant');
  assert.equal(await meStatus(t, next.access_token), 401);
});

test('scope narrows only the new access token; the refresh token keeps every scope of the family', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client, { scopes: ['orders:read', 'menu:read', 'store:read'] });
  const narrow = await refreshed(client, first.refresh_token, { scope: 'store:read orders:read' });
  assert.equal(narrow.scope, 'orders:read store:read');
  const me = await t.app.inject({
    url: '/v1/me',
    headers: { authorization: `Bearer ${narrow.access_token}` },
  });
  assert.deepEqual(me.json().scopes, ['orders:read', 'store:read']);
  const wide = await refreshed(client, narrow.refresh_token);
  assert.equal(wide.scope, 'orders:read menu:read store:read');
});

test('a scope beyond the family’s or unknown is invalid_scope, and the refresh token stays unused', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client, { scopes: ['orders:read'] });
  for (const scope of ['menu:read', 'orders:read menu:write', 'orders:admin', 'orders:read  ']) {
    assertOAuthError(await refresh(t, client, first.refresh_token, { scope }), 400, 'invalid_scope');
  }
  // Not a use: a minute later it is no reuse either.
  t.clock.advance(61 * second);
  await refreshed(client, first.refresh_token);
});

test('consent again with fewer scopes: a refresh gives only those the connection still has', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client, { scopes: ['orders:read', 'menu:read'] });
  await consentToApp(t.ctx, { tenantId: client.restaurantId, appId: client.appId, scopes: ['menu:read'] });
  const next = await refreshed(client, first.refresh_token);
  assert.equal(next.scope, 'menu:read');
  assertOAuthError(
    await refresh(t, client, next.refresh_token, { scope: 'orders:read' }),
    400,
    'invalid_scope',
  );
});

test('a refresh token lives 180 days from its last use', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client);
  t.clock.advance(180 * day - 1);
  const next = await refreshed(client, first.refresh_token);
  t.clock.advance(180 * day - 1);
  const later = await refreshed(client, next.refresh_token);
  t.clock.advance(180 * day);
  assertOAuthError(await refresh(t, client, later.refresh_token), 400, 'invalid_grant');
});

test('after DELETE /connection a refresh is invalid_grant', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client);
  const ended = await t.app.inject({
    method: 'DELETE',
    url: '/v1/connection',
    headers: { authorization: `Bearer ${first.access_token}` },
  });
  assert.equal(ended.statusCode, 200);
  assertOAuthError(await refresh(t, client, first.refresh_token), 400, 'invalid_grant');
  // A new consent makes a new connection; the old family stays dead.
  await consentToApp(t.ctx, { tenantId: client.restaurantId, appId: client.appId, scopes: ['orders:read'] });
  assertOAuthError(await refresh(t, client, first.refresh_token), 400, 'invalid_grant');
});

test('another client’s refresh token, an unknown or a malformed one is invalid_grant and revokes nothing', async () => {
  const client = await makeClient(t);
  const other = await makeClient(t);
  const first = await firstPair(t, client);
  assertOAuthError(await refresh(t, other, first.refresh_token), 400, 'invalid_grant');
  assertOAuthError(await refresh(t, client, `svc_rt_${'A'.repeat(43)}`), 400, 'invalid_grant');
  assertOAuthError(await refresh(t, client, 'svc_rt_short'), 400, 'invalid_grant');
  assertOAuthError(await refresh(t, client, first.access_token), 400, 'invalid_grant');
  assert.equal(await meStatus(t, first.access_token), 200);
  await refreshed(client, first.refresh_token);
});

test('a suspended app: unauthorized_client, the refresh token is not used up', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client);
  await setClientStatus(t, client, 'suspended');
  assertOAuthError(await refresh(t, client, first.refresh_token), 400, 'unauthorized_client');
  assert.equal(await meStatus(t, first.access_token), 401);
  t.clock.advance(120 * second);
  await setClientStatus(t, client, 'approved');
  await refreshed(client, first.refresh_token);
});

test('a refused grace retry (bad scope) revokes nothing: the first response’s pair stays live', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client, { scopes: ['orders:read'] });
  const lost = await refreshed(client, first.refresh_token);
  assertOAuthError(
    await refresh(t, client, first.refresh_token, { scope: 'menu:read' }),
    400,
    'invalid_scope',
  );
  assert.equal(await meStatus(t, lost.access_token), 200);
  await refreshed(client, lost.refresh_token);
});
