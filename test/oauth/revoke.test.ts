import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildTestApp, type TestApp } from '../harness.ts';
import {
  assertOAuthError,
  basicAuth,
  credentials,
  firstPair,
  makeClient,
  meStatus,
  type OAuthClient,
  post,
  refresh,
} from './oauth-helpers.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

async function revoke(client: OAuthClient, form: Record<string, string>) {
  const res = await post(t, '/oauth/revoke', { ...credentials(client), ...form });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.body, '');
  assert.equal(res.headers['cache-control'], 'no-store');
}

test('revoking a refresh token revokes its whole family; the connection remains', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client);
  const next = (await refresh(t, client, first.refresh_token)).json();
  const other = await firstPair(t, client);
  await revoke(client, { token: next.refresh_token, token_type_hint: 'refresh_token' });
  assert.equal(await meStatus(t, first.access_token), 401);
  assert.equal(await meStatus(t, next.access_token), 401);
  assertOAuthError(await refresh(t, client, next.refresh_token), 400, 'invalid_grant');
  // Another family of the same connection, and the connection itself, are untouched.
  assert.equal(await meStatus(t, other.access_token), 200);
  assert.equal((await refresh(t, client, other.refresh_token)).statusCode, 200);
});

test('revoking an access token revokes only it', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client);
  await revoke(client, { token: first.access_token });
  assert.equal(await meStatus(t, first.access_token), 401);
  const next = await refresh(t, client, first.refresh_token);
  assert.equal(next.statusCode, 200);
  assert.equal(await meStatus(t, next.json().access_token), 200);
});

test('the kind is told by the token’s form, not by the hint', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client);
  await revoke(client, { token: first.access_token, token_type_hint: 'refresh_token' });
  assert.equal(await meStatus(t, first.access_token), 401);
  await revoke(client, { token: first.refresh_token, token_type_hint: 'access_token' });
  assertOAuthError(await refresh(t, client, first.refresh_token), 400, 'invalid_grant');
});

test('unknown, malformed, already revoked and other clients’ tokens: 200, nothing changes', async () => {
  const client = await makeClient(t);
  const other = await makeClient(t);
  const first = await firstPair(t, client);
  const others = await firstPair(t, other);
  await revoke(client, { token: `svc_rt_${'A'.repeat(43)}` });
  await revoke(client, { token: `svc_at_${'A'.repeat(43)}` });
  await revoke(client, { token: 'whatever' });
  await revoke(client, { token: others.refresh_token });
  await revoke(client, { token: others.access_token });
  assert.equal(await meStatus(t, others.access_token), 200);
  assert.equal((await refresh(t, other, others.refresh_token)).statusCode, 200);
  await revoke(client, { token: first.access_token });
  await revoke(client, { token: first.access_token });
});

test('a public client revokes with its client_id; Basic works for a confidential one', async () => {
  const publicClient = await makeClient(t, { type: 'public' });
  const first = await firstPair(t, publicClient);
  await revoke(publicClient, { token: first.refresh_token });
  assert.equal(await meStatus(t, first.access_token), 401);

  const client = await makeClient(t);
  const pair = await firstPair(t, client);
  const res = await post(
    t,
    '/oauth/revoke',
    { token: pair.access_token },
    { headers: { authorization: basicAuth(client.clientId, client.secret ?? '') } },
  );
  assert.equal(res.statusCode, 200);
  assert.equal(await meStatus(t, pair.access_token), 401);
});

test('errors: no token, a bad hint, failed client authentication, malformed bodies; none revokes anything', async () => {
  const client = await makeClient(t);
  const first = await firstPair(t, client);
  const token = first.access_token;
  assertOAuthError(await post(t, '/oauth/revoke', credentials(client)), 400, 'invalid_request');
  assertOAuthError(
    await post(t, '/oauth/revoke', { ...credentials(client), token, token_type_hint: 'id_token' }),
    400,
    'invalid_request',
  );
  assertOAuthError(
    await post(t, '/oauth/revoke', { client_id: client.clientId, client_secret: 'svc_cs_wrong', token }),
    401,
    'invalid_client',
  );
  assertOAuthError(await post(t, '/oauth/revoke', { token }), 401, 'invalid_client');
  assertOAuthError(
    await post(
      t,
      '/oauth/revoke',
      { ...credentials(client), token },
      { headers: { authorization: basicAuth(client.clientId, client.secret ?? '') } },
    ),
    400,
    'invalid_request',
  );
  assertOAuthError(
    await post(
      t,
      '/oauth/revoke',
      `${new URLSearchParams({ ...credentials(client), token })}&token=${token}`,
    ),
    400,
    'invalid_request',
  );
  const json = await t.app.inject({
    method: 'POST',
    url: '/oauth/revoke',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ ...credentials(client), token }),
  });
  assertOAuthError(json, 400, 'invalid_request');
  assertOAuthError(
    await post(
      t,
      '/oauth/revoke',
      `${new URLSearchParams({ ...credentials(client), token })}&pad=${'p'.repeat(8192)}`,
    ),
    400,
    'invalid_request',
  );
  assert.equal(await meStatus(t, token), 200);
});
