import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { openLimiters } from '../../src/adapters/rate-limit-stores.ts';
import { buildApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { issueAccessToken } from '../../src/domain/connections/access-tokens.ts';
import { setSubscriptionActive } from '../../src/domain/restaurants/restaurants.service.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { sha256 } from '../../src/domain/shared/ids.ts';
import { apiRoute } from '../../src/http/api-v1/api-route.ts';
import { errorResponses } from '../../src/http/api-v1/error-responses.ts';
import {
  bearer,
  buildTestApp,
  makeTenant,
  type Tenant,
  type TestApp,
  TestClock,
  testBaseUrl,
  tokenFor,
} from '../harness.ts';
import { eventually, settled } from '../waiting.ts';

/** An operation that needs a scope, for the 403s of a valid token. */
const scopedRoute = apiRoute({
  method: 'GET',
  url: '/test/reports-only',
  auth: { scopes: ['reports:read'] },
  schema: {
    operationId: 'testReportsOnly',
    summary: 'needs reports:read',
    tags: ['Test'],
    response: {
      200: Type.Object({ ok: Type.Boolean() }, { description: 'Done.' }),
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: async () => ({ ok: true }),
});

let t: TestApp;
before(async () => {
  t = await buildTestApp({ extraApiRoutes: [scopedRoute] });
});
after(() => t.close());

let addresses = 0;
/** An IP address no other test of this file sends from: each test counts its own requests. */
const freshAddress = () => `10.0.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;
/** An address no other run sends from either (Redis is shared by every test run on the machine). */
const randomAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`;

type Res = Awaited<ReturnType<FastifyInstance['inject']>>;

function get(url: string, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1', app = t.app) {
  return app.inject({ method: 'GET', url, headers, remoteAddress });
}

function rateHeaders(res: Res) {
  return {
    limit: res.headers['ratelimit-limit'],
    remaining: res.headers['ratelimit-remaining'],
    reset: res.headers['ratelimit-reset'],
    retryAfter: res.headers['retry-after'],
  };
}

/**
 * Asserts that `seconds` (a RateLimit-Reset or Retry-After) is what is left of a window of
 * `windowSeconds` that began with a request sent at `since` (Date.now()) or later: at most the
 * window, at least what is left of it by now. The windows run on real time: a busy machine leaves
 * less of them.
 */
function assertWindowLeft(seconds: unknown, windowSeconds: number, since: number, what: string) {
  const left = windowSeconds - (Date.now() - since) / 1000;
  const value = Number(seconds);
  assert.ok(
    value <= windowSeconds && value >= Math.ceil(left),
    `${what}: ${String(seconds)} s, with at most ${left} s of the ${windowSeconds} s window left`,
  );
}

function assertRateLimited(res: Res, what: string) {
  assert.equal(res.statusCode, 429, `${what}: ${res.body}`);
  const { error } = res.json();
  assert.equal(error.code, 'rate_limited', what);
  assert.equal(error.request_id, res.headers['x-request-id'], what);
  assert.match(String(res.headers['retry-after']), /^\d+$/, what);
}

/** Sends `n` requests to GET /v1/me with `token`, one after another: the answers come in counting order. */
async function spend(token: string, n: number, app = t.app): Promise<Res[]> {
  const answers: Res[] = [];
  for (let i = 0; i < n; i++) answers.push(await get('/v1/me', bearer(token), '127.0.0.1', app));
  return answers;
}

describe('per connection: 120 requests per window', () => {
  test('requests arriving together are counted as if one after another: 120 served, each with its own remaining', async () => {
    const tenant = await makeTenant(t.ctx);
    const answers = await Promise.all(Array.from({ length: 130 }, () => get('/v1/me', bearer(tenant.token))));
    const served = answers.filter((res) => res.statusCode === 200);
    assert.equal(served.length, 120);
    assert.deepEqual(
      served.map((res) => Number(res.headers['ratelimit-remaining'])).sort((a, b) => a - b),
      Array.from({ length: 120 }, (_, i) => i),
    );
    for (const res of answers.filter((res) => res.statusCode !== 200)) assertRateLimited(res, 'past 120');
  });

  test('every answer to a valid token carries RateLimit-Limit, -Remaining and -Reset, errors too', async () => {
    const tenant = await makeTenant(t.ctx, { plan: 'premium' });
    const since = Date.now();
    const answers = [
      await get('/v1/me', bearer(tenant.token)),
      await get('/v1/me?unknown=1', bearer(tenant.token)),
      await t.app.inject({
        method: 'DELETE',
        url: '/v1/connection',
        headers: { ...bearer(tenant.token), 'content-type': 'application/json' },
        payload: '{"unexpected":1}',
      }),
    ];
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      [200, 400, 400],
    );
    answers.forEach((res, i) => {
      const headers = rateHeaders(res);
      assert.equal(headers.limit, '120');
      assert.equal(headers.remaining, String(119 - i));
      assertWindowLeft(headers.reset, 60, since, 'RateLimit-Reset');
      assert.equal(headers.retryAfter, undefined, 'Retry-After only on 429');
    });
    assert.deepEqual(answers[0]?.json().rate_limit, { limit: 120, window_seconds: 60 });

    // The 403s of a valid token count and carry the headers as well.
    const unscoped = await get(
      '/v1/test/reports-only',
      bearer(await tokenFor(t.ctx, tenant, ['orders:read'])),
    );
    assert.equal(unscoped.json().error.code, 'insufficient_scope');
    assert.equal(rateHeaders(unscoped).remaining, '116');
    await setSubscriptionActive(t.ctx, tenant.restaurantId, false);
    const inactive = await get('/v1/test/reports-only', bearer(tenant.token));
    assert.equal(inactive.json().error.code, 'account_inactive');
    assert.equal(rateHeaders(inactive).remaining, '115');
  });

  test('the 121st request of a connection in its window → 429 rate_limited with Retry-After; other connections go on', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await makeTenant(t.ctx);
    const narrow = await tokenFor(t.ctx, tenant, ['orders:read']);
    // Two tokens of one connection share its limit.
    const since = Date.now();
    const answers = [...(await spend(tenant.token, 60)), ...(await spend(narrow, 60))];
    assert.ok(answers.every((res) => res.statusCode === 200));
    assert.equal(rateHeaders(answers[119] as Res).remaining, '0');

    for (const token of [tenant.token, narrow]) {
      const res = await get('/v1/me', bearer(token));
      assertRateLimited(res, 'over the limit');
      const headers = rateHeaders(res);
      assert.equal(headers.limit, '120');
      assert.equal(headers.remaining, '0');
      assert.equal(headers.retryAfter, headers.reset);
      assertWindowLeft(headers.retryAfter, 60, since, 'Retry-After');
    }
    const bystander = await get('/v1/me', bearer(other.token));
    assert.equal(bystander.statusCode, 200);
    assert.equal(rateHeaders(bystander).remaining, '119');
  });

  test('requests that reach no operation do not count: unknown paths, other methods, the API descriptions', async () => {
    const tenant = await makeTenant(t.ctx);
    const answers = [
      await get('/v1/nothing-here', bearer(tenant.token)),
      await t.app.inject({ method: 'POST', url: '/v1/me', headers: bearer(tenant.token) }),
      await get('/v1/openapi.json', bearer(tenant.token)),
    ];
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      [404, 405, 200],
    );
    for (const res of answers) assert.equal(res.headers['ratelimit-limit'], undefined);
    assert.equal(rateHeaders(await get('/v1/me', bearer(tenant.token))).remaining, '119');
  });
});

describe('per IP address: requests without a known token', () => {
  const unknownToken = `svc_at_${'u'.repeat(43)}`;

  test('30 a minute get 401; the 31st gets 429 rate_limited with Retry-After, whatever the form of the missing token', async () => {
    const address = freshAddress();
    const kinds = [{}, { authorization: 'Basic dXNlcjpwYXNz' }, bearer('svc_at_short'), bearer(unknownToken)];
    const since = Date.now();
    for (let i = 0; i < 30; i++) {
      const res = await get('/v1/me', kinds[i % kinds.length], address);
      assert.equal(res.statusCode, 401, `request ${i + 1}: ${res.body}`);
      assert.equal(res.headers['retry-after'], undefined);
      assert.equal(res.headers['ratelimit-limit'], undefined, 'no connection, no connection limit');
    }
    for (const headers of kinds) {
      const res = await get('/v1/me', headers, address);
      assertRateLimited(res, JSON.stringify(headers));
      assertWindowLeft(res.headers['retry-after'], 60, since, 'Retry-After');
      assert.equal(res.headers['www-authenticate'], undefined);
    }
    // Another address is counted on its own.
    assert.equal((await get('/v1/me', bearer(unknownToken), freshAddress())).statusCode, 401);
  });

  test('a valid token is served from an address over the limit; an expired or revoked one still gets 401', async () => {
    const address = freshAddress();
    for (let i = 0; i < 31; i++) await get('/v1/me', bearer(unknownToken), address);
    assertRateLimited(await get('/v1/me', bearer(unknownToken), address), 'over the limit');

    const tenant = await makeTenant(t.ctx);
    assert.equal((await get('/v1/me', bearer(tenant.token), address)).statusCode, 200);
    for (const token of [await expiredToken(tenant), await revokedToken(tenant)]) {
      const res = await get('/v1/me', bearer(token), address);
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.json().error.code, 'unauthorized');
    }
  });

  test('expired and revoked tokens never count against the address', async () => {
    const address = freshAddress();
    const tenant = await makeTenant(t.ctx);
    const expired = await expiredToken(tenant);
    const revoked = await revokedToken(tenant);
    for (let i = 0; i < 40; i++) {
      const res = await get('/v1/me', bearer(i % 2 === 0 ? expired : revoked), address);
      assert.equal(res.statusCode, 401, `request ${i + 1}: ${res.body}`);
    }
    for (let i = 0; i < 30; i++) {
      assert.equal((await get('/v1/me', bearer(unknownToken), address)).statusCode, 401, `unknown ${i + 1}`);
    }
    assertRateLimited(await get('/v1/me', bearer(unknownToken), address), 'the 31st unknown');
  });

  test('requests without a token to no operation (unknown paths, the API descriptions) do not count', async () => {
    const address = freshAddress();
    for (let i = 0; i < 20; i++) {
      assert.equal((await get('/v1/nothing-here', {}, address)).statusCode, 404);
      assert.equal((await get('/v1/openapi.json', {}, address)).statusCode, 200);
    }
    for (let i = 0; i < 30; i++) assert.equal((await get('/v1/me', {}, address)).statusCode, 401);
    assertRateLimited(await get('/v1/me', {}, address), 'the 31st');
  });
});

/** Where the limits may count: the database's store (memory on PGlite, a table on PostgreSQL), and Redis. */
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const stores = [
  { name: process.env.DATABASE_URL ? 'PostgreSQL' : 'memory', redisUrl: null },
  { name: 'Redis', redisUrl },
];

for (const store of stores) {
  describe(`counting in ${store.name}`, () => {
    test('a window is fixed from its first request; refused requests do not prolong it; the next starts afresh', async () => {
      // A window of 2 s and a limit of 3 instead of 60 s and 120: the same rules, without waiting a minute.
      const limiters = await openLimiters(
        { db: t.database.db, redisUrl: store.redisUrl },
        { points: 3, durationSeconds: 2 },
      );
      const app = await buildApp({
        config: { baseUrl: testBaseUrl },
        db: t.database.db,
        clock: t.clock,
        limiters,
      });
      try {
        // The window runs on real time (in every store). Should the machine be so busy that it
        // ended before the test had looked at it (the answers below are read only after that is
        // known), the test looks again with a fresh connection.
        await eventually('a window the test could follow to its end', async () => {
          const tenant = await makeTenant(t.ctx);
          const me = () => get('/v1/me', bearer(tenant.token), '127.0.0.1', app);
          const began = Date.now();
          const first = await me();
          const firstAnswered = Date.now();
          // Into the window's second second.
          await sleep(1100);
          const second = await me();
          const third = await me();
          const refused: Res[] = [];
          for (let i = 0; i < 5; i++) refused.push(await me());
          // The window began with the first request, at `began` or later: if its first second or
          // its whole length has passed since, what the answers say is no rule's.
          if (firstAnswered - began >= 1000 || Date.now() - began >= 2000) return false;
          assert.deepEqual(rateHeaders(first), {
            limit: '3',
            remaining: '2',
            reset: '2',
            retryAfter: undefined,
          });
          // A sliding window would say 2 again.
          assert.deepEqual(rateHeaders(second), {
            limit: '3',
            remaining: '1',
            reset: '1',
            retryAfter: undefined,
          });
          assert.equal(third.statusCode, 200);
          refused.forEach((res, i) => {
            assertRateLimited(res, `refused ${i}`);
            assert.equal(rateHeaders(res).retryAfter, '1');
          });
          // Until the window has surely ended (it began before the first answer), and a little.
          await sleep(Math.max(0, firstAnswered + 2000 + 100 - Date.now()));
          const freshSent = Date.now();
          const fresh = await me();
          if (Date.now() - freshSent >= 1000) return false;
          assert.equal(fresh.statusCode, 200, fresh.body);
          assert.deepEqual(rateHeaders(fresh), {
            limit: '3',
            remaining: '2',
            reset: '2',
            retryAfter: undefined,
          });
          return true;
        });
      } finally {
        await app.close();
        await limiters.close();
      }
    });

    test('peek tells where a key stands without counting; reset forgets its count', async () => {
      const limiters = await openLimiters({ db: t.database.db, redisUrl: store.redisUrl });
      try {
        const limiter = limiters.createLimiter({ keyPrefix: 'test-peek', points: 2, durationSeconds: 60 });
        const key = randomUUID();
        assert.deepEqual(await limiter.peek(key), {
          allowed: true,
          limit: 2,
          remaining: 2,
          resetSeconds: 60,
        });
        const since = Date.now();
        assert.equal((await limiter.consume(key)).remaining, 1);
        const peeked = await limiter.peek(key);
        assertWindowLeft(peeked.resetSeconds, 60, since, 'peek');
        assert.deepEqual(
          { ...peeked, resetSeconds: 60 },
          { allowed: true, limit: 2, remaining: 1, resetSeconds: 60 },
        );
        assert.equal((await limiter.consume(key)).allowed, true);
        assert.equal((await limiter.peek(key)).allowed, false);
        assert.equal((await limiter.consume(key)).allowed, false);
        await limiter.reset(key);
        const afresh = Date.now();
        const consumed = await limiter.consume(key);
        assertWindowLeft(consumed.resetSeconds, 60, afresh, 'a fresh window');
        assert.deepEqual(
          { ...consumed, resetSeconds: 60 },
          { allowed: true, limit: 2, remaining: 1, resetSeconds: 60 },
        );
      } finally {
        await limiters.close();
      }
    });
  });
}

test('with REDIS_URL, two processes share each limit in Redis', async () => {
  // Two apps with their own Redis connections: what two processes would have.
  const apps = [
    await buildApp({ config: { baseUrl: testBaseUrl, redisUrl }, db: t.database.db, clock: t.clock }),
    await buildApp({ config: { baseUrl: testBaseUrl, redisUrl }, db: t.database.db, clock: t.clock }),
  ] as const;
  try {
    await assertSharedLimits(apps[0], apps[1]);
  } finally {
    for (const app of apps) await app.close();
  }
});

test('a Redis that cannot be reached stops the start; one lost later loosens the limits instead of failing requests', async () => {
  await assert.rejects(
    buildApp({ config: { baseUrl: testBaseUrl, redisUrl: 'redis://127.0.0.1:1' }, db: t.database.db }),
    /cannot connect to Redis at REDIS_URL/,
  );

  // A relay to Redis that the test cuts: Redis going away under a running service.
  const redis = new URL(redisUrl);
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    const upstream = connect(Number(redis.port || 6379), redis.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const { port } = relay.address() as AddressInfo;
  // The limits as the service opens them, with a log that tells when Redis was found gone.
  let redisLost = () => {};
  const lost = new Promise<void>((resolve) => {
    redisLost = resolve;
  });
  const limiters = await openLimiters({
    db: t.database.db,
    redisUrl: `redis://127.0.0.1:${port}`,
    log: { warn: () => redisLost() },
  });
  const app = await buildApp({
    config: { baseUrl: testBaseUrl, redisUrl: `redis://127.0.0.1:${port}` },
    db: t.database.db,
    clock: t.clock,
    limiters,
  });
  try {
    const tenant = await makeTenant(t.ctx);
    await spend(tenant.token, 100, app);
    relay.close();
    for (const socket of sockets) socket.destroy();
    await settled('the Redis connection seen gone', lost);
    // Counted in this process alone from now on: a fresh count, but still a limit.
    const answers = await spend(tenant.token, 120, app);
    assert.ok(answers.every((res) => res.statusCode === 200));
    assert.deepEqual(
      answers.slice(0, 2).map((res) => rateHeaders(res).remaining),
      ['119', '118'],
    );
    assertRateLimited(await get('/v1/me', bearer(tenant.token), '127.0.0.1', app), 'the 121st');
  } finally {
    await app.close();
    await limiters.close();
    relay.close();
  }
});

test('settings: REDIS_URL is a redis:// or rediss:// URL, refused otherwise without repeating it', () => {
  assert.equal(loadConfig({}).redisUrl, null);
  assert.equal(loadConfig({ REDIS_URL: 'rediss://:pw@cache:6380/2' }).redisUrl, 'rediss://:pw@cache:6380/2');
  for (const value of ['http://:hunter2@cache:6379', 'cache:6379']) {
    assert.throws(
      () => loadConfig({ REDIS_URL: value }),
      (error: Error) => error instanceof ConfigError && !error.message.includes('hunter2'),
    );
  }
});

test('with PostgreSQL, two processes on one database share each limit', {
  skip: !process.env.DATABASE_URL,
}, async () => {
  assert.ok(t.database.url);
  // A second pool and app on the same database: what a second process would have.
  const second = await openDatabase({ url: t.database.url });
  const other = await buildApp({ config: { baseUrl: testBaseUrl }, db: second.db, clock: t.clock });
  try {
    await assertSharedLimits(t.app, other);
  } finally {
    await other.close();
    await second.close();
  }
});

/** A connection's requests and an address's requests without a token, half to each app, count together. */
async function assertSharedLimits(one: FastifyInstance, two: FastifyInstance): Promise<void> {
  const tenant = await makeTenant(t.ctx);
  const answers = [...(await spend(tenant.token, 60, one)), ...(await spend(tenant.token, 60, two))];
  assert.ok(answers.every((res) => res.statusCode === 200));
  assert.equal(rateHeaders(answers[119] as Res).remaining, '0');
  assertRateLimited(await get('/v1/me', bearer(tenant.token), '127.0.0.1', one), 'first app');
  assertRateLimited(await get('/v1/me', bearer(tenant.token), '127.0.0.1', two), 'second app');

  const address = randomAddress();
  for (let i = 0; i < 30; i++) {
    assert.equal((await get('/v1/me', {}, address, i % 2 === 0 ? one : two)).statusCode, 401);
  }
  assertRateLimited(await get('/v1/me', {}, address, two), 'the 31st, on the second app');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function expiredToken(tenant: Tenant): Promise<string> {
  const anHourAgo = new TestClock(new Date(t.clock.now().getTime() - 3600 * 1000));
  const { token } = await issueAccessToken(systemCtx(t.database.db, anHourAgo), {
    tenantId: tenant.restaurantId,
    connectionId: tenant.connectionId,
    scopes: ['orders:read'],
  });
  return token;
}

async function revokedToken(tenant: Tenant): Promise<string> {
  const token = await tokenFor(t.ctx, tenant, ['orders:read']);
  await t.database.db
    .updateTable('access_tokens')
    .set({ revoked_at: t.clock.now() })
    .where('token_hash', '=', sha256(token))
    .execute();
  return token;
}
