import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sha256 } from '../../src/domain/shared/ids.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import {
  credentials,
  exchange,
  firstPair,
  makeClient,
  meStatus,
  mintCode,
  post,
  refresh,
} from './oauth-helpers.ts';

/*
 * The grace and reuse rules decide on what other requests of the same family did: they hold only
 * if those requests cannot interleave. These tests run requests of one family at the same moment,
 * each in its own transaction on its own connection.
 */
const skip = process.env.DATABASE_URL
  ? false
  : 'PGlite has a single connection: its transactions never overlap, so there is no race to test';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/** Refresh and access tokens of a family that are neither used (refresh) nor revoked. */
async function liveTokens(refreshToken: string) {
  const { family_id } = await t.database.db
    .selectFrom('refresh_tokens')
    .select('family_id')
    .where('token_hash', '=', sha256(refreshToken))
    .executeTakeFirstOrThrow();
  const refreshTokens = await t.database.db
    .selectFrom('refresh_tokens')
    .select('token_hash')
    .where('family_id', '=', family_id)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .execute();
  const accessTokens = await t.database.db
    .selectFrom('access_tokens')
    .select('token_hash')
    .where('family_id', '=', family_id)
    .where('revoked_at', 'is', null)
    .execute();
  return {
    refresh: refreshTokens.map((row) => row.token_hash),
    access: accessTokens.map((row) => row.token_hash),
  };
}

test('concurrent refreshes of one token: one rotation, the rest under the grace rule; one pair stays live', {
  skip,
}, async () => {
  for (let round = 0; round < 5; round++) {
    const client = await makeClient(t);
    const first = await firstPair(t, client);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => refresh(t, client, first.refresh_token)),
    );
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      answers.map(() => 200),
      answers.map((res) => res.body).join('\n'),
    );
    const live = await liveTokens(first.refresh_token);
    assert.equal(live.refresh.length, 1, 'exactly one unused, unrevoked refresh token');
    const winner = answers
      .map((res) => res.json())
      .find((body) => live.refresh.includes(sha256(body.refresh_token)));
    assert.ok(winner);
    // The code's access token and the winner's; every other pair issued here was revoked.
    assert.deepEqual(
      new Set(live.access),
      new Set([sha256(first.access_token), sha256(winner.access_token)]),
    );
    assert.equal(await meStatus(t, winner.access_token), 200);
    assert.equal((await refresh(t, client, winner.refresh_token)).statusCode, 200);
  }
});

test('a reuse racing a legitimate refresh: whichever runs first, the whole family ends revoked', {
  skip,
}, async () => {
  for (let round = 0; round < 5; round++) {
    const client = await makeClient(t);
    const first = await firstPair(t, client);
    const next = (await refresh(t, client, first.refresh_token)).json();
    t.clock.advance(61 * 1000);
    const [reuse, rotation] = await Promise.all([
      refresh(t, client, first.refresh_token),
      refresh(t, client, next.refresh_token),
    ]);
    assert.equal(reuse.statusCode, 400);
    assert.ok([200, 400].includes(rotation.statusCode));
    assert.deepEqual(await liveTokens(first.refresh_token), { refresh: [], access: [] });
  }
});

test('a revocation racing refreshes of the family: whichever runs first, the whole family ends revoked', {
  skip,
}, async () => {
  for (let round = 0; round < 5; round++) {
    const client = await makeClient(t);
    const first = await firstPair(t, client);
    const [revocation, ...rotations] = await Promise.all([
      post(t, '/oauth/revoke', { token: first.refresh_token, ...credentials(client) }),
      ...Array.from({ length: 4 }, () => refresh(t, client, first.refresh_token)),
    ]);
    assert.equal(revocation?.statusCode, 200);
    for (const res of rotations) assert.ok([200, 400].includes(res.statusCode), res.body);
    assert.deepEqual(await liveTokens(first.refresh_token), { refresh: [], access: [] });
  }
});

test('concurrent redemptions of one code: one gets tokens, the others invalid_grant, and all is revoked', {
  skip,
}, async () => {
  for (let round = 0; round < 5; round++) {
    const client = await makeClient(t);
    const minted = await mintCode(t, client);
    const answers = await Promise.all(Array.from({ length: 5 }, () => exchange(t, client, minted)));
    const issued = answers.filter((res) => res.statusCode === 200);
    assert.equal(issued.length, 1, answers.map((res) => res.body).join('\n'));
    for (const res of answers.filter((res) => res.statusCode !== 200))
      assert.equal(res.json().error, 'invalid_grant');
    const body = issued[0]?.json();
    assert.equal(await meStatus(t, body.access_token), 401);
    assert.deepEqual(await liveTokens(body.refresh_token), { refresh: [], access: [] });
  }
});
