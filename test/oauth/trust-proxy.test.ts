import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import { assertOAuthError, makeClient, post } from './oauth-helpers.ts';

/** The service behind a proxy at 10.0.0.5 (TRUST_PROXY=10.0.0.0/24). */
let t: TestApp;
before(async () => {
  t = await buildTestApp({ config: { trustProxy: loadConfig({ TRUST_PROXY: '10.0.0.0/24' }).trustProxy } });
});
after(() => t.close());

const proxy = '10.0.0.5';

test('behind a trusted proxy each client counts under its own address; others cannot pick theirs', async () => {
  const client = await makeClient(t);
  const wrong = {
    grant_type: 'refresh_token',
    refresh_token: 'x',
    client_id: client.clientId,
    client_secret: 'svc_cs_wrong',
  };
  const via = (forwardedFor: string, remoteAddress = proxy) =>
    post(t, '/oauth/token', wrong, { remoteAddress, headers: { 'x-forwarded-for': forwardedFor } });
  for (let i = 0; i < 20; i++) assertOAuthError(await via('203.0.113.1'), 401, 'invalid_client');
  assertOAuthError(await via('203.0.113.1'), 429, 'temporarily_unavailable');
  // Another client through the same proxy has its own count.
  assertOAuthError(await via('203.0.113.2'), 401, 'invalid_client');
  // A peer that is not a trusted proxy is counted under its own address, whatever it forwards.
  for (let i = 0; i < 20; i++)
    assertOAuthError(await via(`198.51.100.${i}`, '192.0.2.50'), 401, 'invalid_client');
  assertOAuthError(await via('198.51.100.99', '192.0.2.50'), 429, 'temporarily_unavailable');
});

test('TRUST_PROXY: off by default; addresses and CIDR ranges; anything else refused', () => {
  assert.equal(loadConfig({}).trustProxy, false);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, ::1' }).trustProxy, ['10.0.0.0/8', '::1']);
  for (const value of ['true', '2', 'proxy.internal', '10.0.0.0/33'])
    assert.throws(() => loadConfig({ TRUST_PROXY: value }), ConfigError, value);
});
