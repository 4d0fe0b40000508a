import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildTestApp, type TestApp } from '../harness.ts';
import { assertOAuthError, credentials, exchange, makeClient, mintCode, post } from './oauth-helpers.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

function assertRetryAfter(res: { headers: Record<string, unknown> }): void {
  const seconds = Number(res.headers['retry-after']);
  assert.ok(
    Number.isInteger(seconds) && seconds >= 1 && seconds <= 60,
    `Retry-After ${res.headers['retry-after']}`,
  );
}

test('60 requests a minute per client; the 61st is temporarily_unavailable with Retry-After; other clients go on', async () => {
  const client = await makeClient(t);
  const other = await makeClient(t);
  const unknownToken = {
    grant_type: 'refresh_token',
    refresh_token: `svc_rt_${'A'.repeat(43)}`,
    ...credentials(client),
  };
  for (let i = 0; i < 60; i++)
    assertOAuthError(await post(t, '/oauth/token', unknownToken), 400, 'invalid_grant');
  const refused = await post(t, '/oauth/token', unknownToken);
  assertOAuthError(refused, 429, 'temporarily_unavailable');
  assertRetryAfter(refused);
  // A valid exchange of the same client is refused too, and issues nothing.
  const minted = await mintCode(t, client);
  assertOAuthError(await exchange(t, client, minted), 429, 'temporarily_unavailable');
  assert.equal((await exchange(t, other, await mintCode(t, other))).statusCode, 200);
});

test('20 failed client authentications a minute per address; then even good credentials wait; other addresses go on', async () => {
  const client = await makeClient(t);
  const address = '192.0.2.7';
  const wrong = {
    grant_type: 'refresh_token',
    refresh_token: 'x',
    client_id: client.clientId,
    client_secret: 'svc_cs_wrong',
  };
  for (let i = 0; i < 20; i++) {
    assertOAuthError(await post(t, '/oauth/token', wrong, { remoteAddress: address }), 401, 'invalid_client');
  }
  const refused = await post(t, '/oauth/token', wrong, { remoteAddress: address });
  assertOAuthError(refused, 429, 'temporarily_unavailable');
  assertRetryAfter(refused);
  const minted = await mintCode(t, client);
  const good = {
    grant_type: 'authorization_code',
    code: minted.code,
    redirect_uri: 'https://app.example.test/callback',
    code_verifier: minted.verifier,
    ...credentials(client),
  };
  assertOAuthError(
    await post(t, '/oauth/token', good, { remoteAddress: address }),
    429,
    'temporarily_unavailable',
  );
  assertOAuthError(
    await post(t, '/oauth/revoke', { ...credentials(client), token: 'x' }, { remoteAddress: address }),
    429,
    'temporarily_unavailable',
  );
  assert.equal((await post(t, '/oauth/token', good, { remoteAddress: '192.0.2.8' })).statusCode, 200);
});

test('failed authentications at the revocation endpoint count too', async () => {
  const client = await makeClient(t);
  const address = '192.0.2.9';
  const wrong = { client_id: client.clientId, client_secret: 'svc_cs_wrong', token: 'x' };
  for (let i = 0; i < 20; i++) {
    assertOAuthError(
      await post(t, '/oauth/revoke', wrong, { remoteAddress: address }),
      401,
      'invalid_client',
    );
  }
  assertOAuthError(
    await post(t, '/oauth/revoke', wrong, { remoteAddress: address }),
    429,
    'temporarily_unavailable',
  );
});

test('requests that fail to authenticate as a client do not use up its allowance', async () => {
  const client = await makeClient(t);
  for (let i = 0; i < 70; i++) {
    const wrong = {
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: client.clientId,
      client_secret: 'svc_cs_wrong',
    };
    assertOAuthError(await post(t, '/oauth/token', wrong), 401, 'invalid_client');
  }
  assert.equal((await exchange(t, client, await mintCode(t, client))).statusCode, 200);
});
