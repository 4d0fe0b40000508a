import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, type TestApp } from '../harness.ts';
import {
  assertOAuthError,
  corsHeaders,
  credentials,
  exchange,
  makeClient,
  meStatus,
  mintCode,
  post,
  redirectUri,
  refresh,
  setClientStatus,
} from './oauth-helpers.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const countTokens = async () => ({
  refresh: (await t.database.db.selectFrom('refresh_tokens').select('id').execute()).length,
  access: (await t.database.db.selectFrom('access_tokens').select('id').execute()).length,
  revokedAccess: (
    await t.database.db.selectFrom('access_tokens').select('id').where('revoked_at', 'is not', null).execute()
  ).length,
});

test('another method on the token and revocation endpoints: 405 with Allow, no-store too', async () => {
  for (const url of ['/oauth/token', '/oauth/revoke']) {
    const res = await t.app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'POST');
    assert.equal(res.headers['cache-control'], 'no-store');
  }
});

test('a code exchange answers exactly the spec’s body, no-store, and its access token works on /v1 with the consented scopes', async () => {
  const client = await makeClient(t);
  const res = await exchange(t, client, await mintCode(t, client, { scopes: ['menu:read', 'orders:read'] }));
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.deepEqual(corsHeaders(res), []);
  const body = res.json();
  const restaurant = await t.database.db
    .selectFrom('restaurants')
    .select(['name', 'slug'])
    .where('id', '=', client.restaurantId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(body, {
    access_token: body.access_token,
    token_type: 'Bearer',
    expires_in: 3600,
    refresh_token: body.refresh_token,
    scope: 'orders:read menu:read',
    connection_id: client.connectionId,
    tenant: { id: client.restaurantId, name: restaurant.name, slug: restaurant.slug },
  });
  assert.match(body.access_token, /^svc_at_[A-Za-z0-9_-]{65}$/);
  assert.match(body.refresh_token, /^svc_rt_[A-Za-z0-9_-]{65}$/);
  const me = await t.app.inject({ url: '/v1/me', headers: { authorization: `Bearer ${body.access_token}` } });
  assert.equal(me.statusCode, 200);
  assert.deepEqual(me.json().scopes, ['orders:read', 'menu:read']);
});

test('only hashes are stored: neither code nor tokens appear in the database', async () => {
  const client = await makeClient(t);
  const minted = await mintCode(t, client);
  const body = (await exchange(t, client, minted)).json();
  const dump = JSON.stringify([
    await t.database.db.selectFrom('authorization_codes').selectAll().execute(),
    await t.database.db.selectFrom('refresh_tokens').selectAll().execute(),
    await t.database.db.selectFrom('access_tokens').selectAll().execute(),
  ]);
  for (const secret of [minted.code, body.access_token, body.refresh_token])
    assert.ok(!dump.includes(secret));
});

test('a code is valid for 10 minutes', async () => {
  const client = await makeClient(t);
  const fresh = await mintCode(t, client);
  const stale = await mintCode(t, client);
  t.clock.advance(10 * 60 * 1000 - 1);
  assert.equal((await exchange(t, client, fresh)).statusCode, 200);
  t.clock.advance(1);
  assertOAuthError(await exchange(t, client, stale), 400, 'invalid_grant');
});

test('a code redeemed twice: invalid_grant, and everything issued with it is revoked', async () => {
  const client = await makeClient(t);
  const minted = await mintCode(t, client);
  const first = (await exchange(t, client, minted)).json();
  const refreshed = (await refresh(t, client, first.refresh_token)).json();
  assert.equal(await meStatus(t, refreshed.access_token), 200);

  assertOAuthError(await exchange(t, client, minted), 400, 'invalid_grant');
  assert.equal(await meStatus(t, first.access_token), 401);
  assert.equal(await meStatus(t, refreshed.access_token), 401);
  assertOAuthError(await refresh(t, client, refreshed.refresh_token), 400, 'invalid_grant');
  // The connection remains: a token made outside this family still works.
  assert.equal(await meStatus(t, client.token), 200);
});

test('redirect_uri must equal the one of the authorization request; the refused code stays usable', async () => {
  const client = await makeClient(t);
  const minted = await mintCode(t, client);
  for (const other of [`${redirectUri}/`, 'https://app.example.test/Callback', `${redirectUri}?x=1`]) {
    assertOAuthError(await exchange(t, client, minted, { redirect_uri: other }), 400, 'invalid_grant');
  }
  assert.equal((await exchange(t, client, minted)).statusCode, 200);
});

test('PKCE: a verifier not matching the challenge is invalid_grant; one of the wrong form is invalid_request', async () => {
  const client = await makeClient(t);
  const minted = await mintCode(t, client);
  const before = await countTokens();
  assertOAuthError(
    await exchange(t, client, minted, { code_verifier: 'x'.repeat(43) }),
    400,
    'invalid_grant',
  );
  assertOAuthError(
    await exchange(t, client, minted, { code_verifier: 'x'.repeat(42) }),
    400,
    'invalid_request',
  );
  assertOAuthError(
    await exchange(t, client, minted, { code_verifier: 'x'.repeat(129) }),
    400,
    'invalid_request',
  );
  assertOAuthError(
    await exchange(t, client, minted, { code_verifier: `${'x'.repeat(42)}!` }),
    400,
    'invalid_request',
  );
  assert.deepEqual(await countTokens(), before, 'a failed exchange issues nothing');
  assert.equal((await exchange(t, client, minted)).statusCode, 200);
});

test('verifiers of 43 and of 128 characters are accepted', async () => {
  const client = await makeClient(t);
  for (const verifier of ['a'.repeat(43), `${'A-._~'.repeat(25)}abc`]) {
    assert.equal(verifier.length === 43 || verifier.length === 128, true);
    const res = await exchange(t, client, await mintCode(t, client, { verifier }));
    assert.equal(res.statusCode, 200, res.body);
  }
});

test('missing parameters are invalid_request; an unknown grant_type is unsupported_grant_type', async () => {
  const client = await makeClient(t);
  const minted = await mintCode(t, client);
  const full = {
    grant_type: 'authorization_code',
    code: minted.code,
    redirect_uri: redirectUri,
    code_verifier: minted.verifier,
    ...credentials(client),
  };
  for (const name of ['grant_type', 'code', 'redirect_uri', 'code_verifier'] as const) {
    const { [name]: _left, ...form } = full;
    assertOAuthError(await post(t, '/oauth/token', form), 400, 'invalid_request');
  }
  // A parameter without a value counts as omitted.
  assertOAuthError(await post(t, '/oauth/token', { ...full, code: '' }), 400, 'invalid_request');
  for (const grantType of ['password', 'client_credentials', 'implicit']) {
    assertOAuthError(
      await post(t, '/oauth/token', { ...full, grant_type: grantType }),
      400,
      'unsupported_grant_type',
    );
  }
  assertOAuthError(
    await post(t, '/oauth/token', { grant_type: 'refresh_token', ...credentials(client) }),
    400,
    'invalid_request',
  );
  assert.equal((await post(t, '/oauth/token', full)).statusCode, 200);
});

test('an unknown code, a malformed one and another client’s are invalid_grant', async () => {
  const client = await makeClient(t);
  const other = await makeClient(t);
  const othersCode = await mintCode(t, other);
  assertOAuthError(
    await exchange(t, client, { code: `svc_ac_${'A'.repeat(43)}`, verifier: 'v'.repeat(43) }),
    400,
    'invalid_grant',
  );
  assertOAuthError(
    await exchange(t, client, { code: 'nonsense', verifier: 'v'.repeat(43) }),
    400,
    'invalid_grant',
  );
  assertOAuthError(await exchange(t, client, othersCode), 400, 'invalid_grant');
  // Not a redemption: the owner of the code can still use it.
  assert.equal((await exchange(t, other, othersCode)).statusCode, 200);
});

test('a code of an ended connection is invalid_grant', async () => {
  const client = await makeClient(t);
  const minted = await mintCode(t, client);
  const ended = await t.app.inject({
    method: 'DELETE',
    url: '/v1/connection',
    headers: { authorization: `Bearer ${client.token}` },
  });
  assert.equal(ended.statusCode, 200);
  assertOAuthError(await exchange(t, client, minted), 400, 'invalid_grant');
});

test('a suspended app gets unauthorized_client and 401 on /v1; its tokens are kept for when it is reinstated', async () => {
  const client = await makeClient(t);
  const pair = (await exchange(t, client, await mintCode(t, client))).json();
  const minted = await mintCode(t, client);
  await setClientStatus(t, client, 'suspended');
  assertOAuthError(await exchange(t, client, minted), 400, 'unauthorized_client');
  assertOAuthError(await refresh(t, client, pair.refresh_token), 400, 'unauthorized_client');
  assert.equal(await meStatus(t, pair.access_token), 401);

  await setClientStatus(t, client, 'approved');
  assert.equal(await meStatus(t, pair.access_token), 200);
  assert.equal((await refresh(t, client, pair.refresh_token)).statusCode, 200);
  assert.equal((await exchange(t, client, minted)).statusCode, 200);
});

test('a public app exchanges with client_id alone', async () => {
  const client = await makeClient(t, { type: 'public' });
  const res = await exchange(t, client, await mintCode(t, client));
  assert.equal(res.statusCode, 200, res.body);
  assert.equal((await refresh(t, client, res.json().refresh_token)).statusCode, 200);
});

test('a repeated parameter is invalid_request and changes nothing', async () => {
  const client = await makeClient(t);
  const minted = await mintCode(t, client);
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: minted.code,
    redirect_uri: redirectUri,
    code_verifier: minted.verifier,
    ...credentials(client),
  });
  for (const name of ['code', 'grant_type', 'client_id', 'unknown_extra']) {
    const repeated = new URLSearchParams(form);
    repeated.append(name, repeated.get(name) ?? 'x');
    if (name === 'unknown_extra') repeated.append(name, 'y');
    assertOAuthError(await post(t, '/oauth/token', repeated.toString()), 400, 'invalid_request');
  }
  assert.equal((await post(t, '/oauth/token', form.toString())).statusCode, 200);
});

test('the body may have 8 KB: one byte more is invalid_request', async () => {
  const client = await makeClient(t);
  const minted = await mintCode(t, client);
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: minted.code,
    redirect_uri: redirectUri,
    code_verifier: minted.verifier,
    ...credentials(client),
  }).toString();
  const padded = (bytes: number) => `${form}&pad=${'p'.repeat(bytes - form.length - 5)}`;
  assert.equal(Buffer.byteLength(padded(8193)), 8193);
  assertOAuthError(await post(t, '/oauth/token', padded(8193)), 400, 'invalid_request');
  const res = await post(t, '/oauth/token', padded(8192));
  assert.equal(res.statusCode, 200, res.body);
});

test('only form bodies: JSON, text, multipart or no body are invalid_request; a charset is fine', async () => {
  const client = await makeClient(t);
  const minted = await mintCode(t, client);
  const params = {
    grant_type: 'authorization_code',
    code: minted.code,
    redirect_uri: redirectUri,
    code_verifier: minted.verifier,
    ...credentials(client),
  };
  const form = new URLSearchParams(params).toString();
  for (const [type, payload] of [
    ['application/json', JSON.stringify(params)],
    ['text/plain', form],
    ['multipart/form-data; boundary=x', `--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--`],
  ] as const) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': type },
      payload,
    });
    assertOAuthError(res, 400, 'invalid_request');
  }
  assertOAuthError(await t.app.inject({ method: 'POST', url: '/oauth/token' }), 400, 'invalid_request');
  const res = await post(t, '/oauth/token', form, {
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
  });
  assert.equal(res.statusCode, 200, res.body);
});

test('no CORS: a preflight gets no approval, and no answer carries Access-Control headers', async () => {
  for (const url of ['/oauth/token', '/oauth/revoke']) {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.ok(res.statusCode >= 400, `${url}: ${res.statusCode}`);
    assert.deepEqual(corsHeaders(res), []);
  }
  const res = await post(
    t,
    '/oauth/token',
    { grant_type: 'authorization_code' },
    { headers: { origin: 'https://evil.example' } },
  );
  assert.deepEqual(corsHeaders(res), []);
});

test('a failure on our side is server_error (500) in the OAuth shape, and the exchange issues nothing', async () => {
  const client = await makeClient(t);
  const minted = await mintCode(t, client);
  const before = await countTokens();
  // The access token's insert fails, after the code was used up and the refresh token inserted.
  await sql`ALTER TABLE access_tokens RENAME TO access_tokens_away`.execute(t.database.db);
  try {
    assertOAuthError(await exchange(t, client, minted), 500, 'server_error');
  } finally {
    await sql`ALTER TABLE access_tokens_away RENAME TO access_tokens`.execute(t.database.db);
  }
  assert.deepEqual(await countTokens(), before);
  assert.equal((await exchange(t, client, minted)).statusCode, 200);
});
