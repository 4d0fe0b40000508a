import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { sha256 } from '../../src/domain/shared/ids.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import {
  assertOAuthError,
  exchange,
  firstPair,
  makeClient,
  meStatus,
  mintCode,
  post,
  refresh,
} from './oauth-helpers.ts';

/*
 * Tokens and codes name their restaurant (docs/scale-out.md, docs/api-decisions.md): the prefix,
 * 22 characters of the restaurant's id, 43 random. Those of the older form (the prefix and 43
 * characters) issued before stay good.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/** The restaurant id a value of the new form carries after its prefix. */
function named(value: string): string {
  const hex = Buffer.from(value.slice(7, 29), 'base64url').toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Gives a stored token or code the older form: a new value of prefix and 43 characters, stored hashed. */
async function toOlderForm(table: 'access_tokens' | 'refresh_tokens', value: string): Promise<string> {
  const older = `${value.slice(0, 7)}${randomBytes(32).toString('base64url')}`;
  const changed = await t.database.db
    .updateTable(table)
    .set({ token_hash: sha256(older) })
    .where('token_hash', '=', sha256(value))
    .executeTakeFirst();
  assert.equal(changed.numUpdatedRows, 1n);
  return older;
}

test('codes, access and refresh tokens name the restaurant they are for', async () => {
  const [one, two] = [await makeClient(t), await makeClient(t)];
  for (const client of [one, two]) {
    const minted = await mintCode(t, client);
    assert.match(minted.code, /^svc_ac_[A-Za-z0-9_-]{65}$/);
    assert.equal(named(minted.code), client.restaurantId);
    const res = await exchange(t, client, minted);
    assert.equal(res.statusCode, 200, res.body);
    const pair = res.json();
    assert.equal(named(pair.access_token), client.restaurantId);
    assert.equal(named(pair.refresh_token), client.restaurantId);
    const rotated = (await refresh(t, client, pair.refresh_token)).json();
    assert.equal(named(rotated.access_token), client.restaurantId);
    assert.equal(named(rotated.refresh_token), client.restaurantId);
  }
});

test('another restaurant’s id put into a token or code finds nothing', async () => {
  const [client, other] = [await makeClient(t), await makeClient(t)];
  const pair = await firstPair(t, client);
  const otherId = (await firstPair(t, other)).access_token.slice(7, 29);
  const swap = (value: string) => `${value.slice(0, 7)}${otherId}${value.slice(29)}`;
  assert.equal(await meStatus(t, swap(pair.access_token)), 401);
  assertOAuthError(await refresh(t, client, swap(pair.refresh_token)), 400, 'invalid_grant');
  const minted = await mintCode(t, client);
  assertOAuthError(await exchange(t, client, { ...minted, code: swap(minted.code) }), 400, 'invalid_grant');
  // The real ones still work: nothing was used up by the swapped ones.
  assert.equal(await meStatus(t, pair.access_token), 200);
  assert.equal((await refresh(t, client, pair.refresh_token)).statusCode, 200);
  assert.equal((await exchange(t, client, minted)).statusCode, 200);
});

test('tokens and codes of the older form, issued before, are still accepted', async () => {
  const client = await makeClient(t);
  const pair = await firstPair(t, client);
  const access = await toOlderForm('access_tokens', pair.access_token);
  const refreshToken = await toOlderForm('refresh_tokens', pair.refresh_token);
  assert.match(access, /^svc_at_[A-Za-z0-9_-]{43}$/);
  assert.equal(await meStatus(t, access), 200);

  const rotated = await refresh(t, client, refreshToken);
  assert.equal(rotated.statusCode, 200, rotated.body);
  assert.equal(named(rotated.json().refresh_token), client.restaurantId);
  // Used up: a second use outside the grace rule is refused and revokes the family, as always.
  t.clock.advance(120_000);
  assertOAuthError(await refresh(t, client, refreshToken), 400, 'invalid_grant');
  assert.equal(await meStatus(t, rotated.json().access_token), 401);

  const minted = await mintCode(t, client);
  const olderCode = `svc_ac_${randomBytes(32).toString('base64url')}`;
  await t.database.db
    .updateTable('authorization_codes')
    .set({ code_hash: sha256(olderCode) })
    .where('code_hash', '=', sha256(minted.code))
    .execute();
  const exchanged = await exchange(t, client, { ...minted, code: olderCode });
  assert.equal(exchanged.statusCode, 200, exchanged.body);

  const second = await firstPair(t, client);
  const olderAccess = await toOlderForm('access_tokens', second.access_token);
  const revoked = await post(t, '/oauth/revoke', {
    token: olderAccess,
    client_id: client.clientId,
    client_secret: client.secret ?? '',
  });
  assert.equal(revoked.statusCode, 200);
  assert.equal(await meStatus(t, olderAccess), 401);
  const olderRefresh = await toOlderForm('refresh_tokens', second.refresh_token);
  await post(t, '/oauth/revoke', {
    token: olderRefresh,
    client_id: client.clientId,
    client_secret: client.secret ?? '',
  });
  assertOAuthError(await refresh(t, client, olderRefresh), 400, 'invalid_grant');
});
