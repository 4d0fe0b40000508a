import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sha256 } from '../../src/domain/shared/ids.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import {
  addSecret,
  assertOAuthError,
  basicAuth,
  makeClient,
  mintCode,
  type OAuthClient,
  post,
  redirectUri,
} from './oauth-helpers.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/** A code exchange with the given client authentication (body parameters and headers). */
async function exchangeWith(
  client: OAuthClient,
  auth: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const minted = await mintCode(t, client);
  return post(
    t,
    '/oauth/token',
    {
      grant_type: 'authorization_code',
      code: minted.code,
      redirect_uri: redirectUri,
      code_verifier: minted.verifier,
      ...auth,
    },
    { headers },
  );
}

test('client_secret_basic and client_secret_post both authenticate a confidential app', async () => {
  const client = await makeClient(t);
  const secret = client.secret ?? '';
  assert.equal(
    (await exchangeWith(client, {}, { authorization: basicAuth(client.clientId, secret) })).statusCode,
    200,
  );
  assert.equal(
    (await exchangeWith(client, { client_id: client.clientId, client_secret: secret })).statusCode,
    200,
  );
  // Basic with the same client_id in the body too is still one method.
  const both = await exchangeWith(
    client,
    { client_id: client.clientId },
    { authorization: basicAuth(client.clientId, secret) },
  );
  assert.equal(both.statusCode, 200);
});

test('HTTP Basic credentials are form-urlencoded before base64 (RFC 6749 §2.3.1)', async () => {
  const client = await makeClient(t);
  const clientId = `${client.clientId}:é+ /%`;
  await t.database.db
    .updateTable('apps')
    .set({ client_id: clientId })
    .where('id', '=', client.appId)
    .execute();
  const oddSecret = await addSecret(t, client.appId, null, `svc_cs_${'s'.repeat(40)}:ü+ /%&=`);
  const renamed = { ...client, clientId };
  const encoded = await exchangeWith(renamed, {}, { authorization: basicAuth(clientId, oddSecret) });
  assert.equal(encoded.statusCode, 200, encoded.body);
  // Sent without the encoding, "+" would be read as a space and ":" would split early.
  const raw = `Basic ${Buffer.from(`${clientId}:${oddSecret}`).toString('base64')}`;
  assertOAuthError(await exchangeWith(renamed, {}, { authorization: raw }), 401, 'invalid_client');
});

test('two authentication methods in one request are invalid_request', async () => {
  const client = await makeClient(t);
  const secret = client.secret ?? '';
  const basic = { authorization: basicAuth(client.clientId, secret) };
  assertOAuthError(await exchangeWith(client, { client_secret: secret }, basic), 400, 'invalid_request');
  assertOAuthError(
    await exchangeWith(client, { client_id: client.clientId, client_secret: secret }, basic),
    400,
    'invalid_request',
  );
  const other = await makeClient(t);
  assertOAuthError(await exchangeWith(client, { client_id: other.clientId }, basic), 400, 'invalid_request');
});

test('failed client authentication is invalid_client (401, WWW-Authenticate: Basic)', async () => {
  const client = await makeClient(t);
  const publicClient = await makeClient(t, { type: 'public' });
  const secret = client.secret ?? '';
  const cases: Array<[string, OAuthClient, Record<string, string>, Record<string, string>]> = [
    ['wrong secret', client, { client_id: client.clientId, client_secret: `${secret}x` }, {}],
    ['wrong Basic secret', client, {}, { authorization: basicAuth(client.clientId, 'svc_cs_wrong') }],
    ['confidential app without secret', client, { client_id: client.clientId }, {}],
    ['unknown client', client, { client_id: 'svc_app_unknown', client_secret: secret }, {}],
    ['no client at all', client, {}, {}],
    [
      'public app sending a secret',
      publicClient,
      { client_id: publicClient.clientId, client_secret: secret },
      {},
    ],
    ['another app’s secret', publicClient, {}, { authorization: basicAuth(publicClient.clientId, secret) }],
    ['a Bearer header', client, { client_id: client.clientId }, { authorization: 'Bearer svc_at_x' }],
    ['malformed Basic', client, {}, { authorization: 'Basic !!!' }],
    [
      'Basic without secret',
      client,
      {},
      { authorization: `Basic ${Buffer.from(`${client.clientId}:`).toString('base64')}` },
    ],
  ];
  for (const [name, who, auth, headers] of cases) {
    const res = await exchangeWith(who, auth, headers);
    assert.equal(res.statusCode, 401, name);
    assertOAuthError(res, 401, 'invalid_client');
  }
});

test('secret rotation: the old secret works until its expires_at, the new one throughout', async () => {
  const client = await makeClient(t);
  const old = client.secret ?? '';
  // What the console's rotation does: a new secret, and 24 more hours for the old one.
  const rotated = await addSecret(t, client.appId, null);
  await t.database.db
    .updateTable('app_secrets')
    .set({ expires_at: new Date(t.clock.now().getTime() + 24 * 3600 * 1000) })
    .where('app_id', '=', client.appId)
    .where('secret_hash', '=', sha256(old))
    .execute();
  t.clock.advance(24 * 3600 * 1000 - 1);
  assert.equal(
    (await exchangeWith(client, { client_id: client.clientId, client_secret: old })).statusCode,
    200,
  );
  assert.equal(
    (await exchangeWith(client, { client_id: client.clientId, client_secret: rotated })).statusCode,
    200,
  );
  t.clock.advance(1);
  assertOAuthError(
    await exchangeWith(client, { client_id: client.clientId, client_secret: old }),
    401,
    'invalid_client',
  );
  assert.equal(
    (await exchangeWith(client, { client_id: client.clientId, client_secret: rotated })).statusCode,
    200,
  );
});
