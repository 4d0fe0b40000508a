import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Type from 'typebox';
import { claimKey } from '../../src/domain/idempotency/idempotency.store.ts';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import { ApiError } from '../../src/domain/shared/errors.ts';
import { sha256 } from '../../src/domain/shared/ids.ts';
import { apiRoute } from '../../src/http/api-v1/api-route.ts';
import { errorResponses } from '../../src/http/api-v1/error-responses.ts';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp, tokenFor } from '../harness.ts';

/*
 * The Idempotency-Key mechanism is shared by every POST of /v1. This test's own operation has a
 * real effect in the database (it creates a restaurant owned by the caller's owners), answers
 * with an error on request, and can take its time.
 */
const failures = new Map<string, number>();
const effectRoute = (url: string) =>
  apiRoute({
    method: 'POST',
    url,
    auth: { scopes: [] },
    schema: {
      operationId: `test${url}`,
      summary: 'an effect',
      tags: ['Test'],
      body: Type.Object(
        {
          name: Type.String(),
          fail_first: Type.Optional(Type.Integer()),
          fail_with: Type.Optional(Type.String()),
          delay_ms: Type.Optional(Type.Integer()),
        },
        { additionalProperties: false },
      ),
      response: {
        201: Type.Object(
          { object: Type.Literal('restaurant'), id: Type.String(), name: Type.String() },
          { description: 'The restaurant made.' },
        ),
        ...errorResponses(400, 401, 403, 409, 413, 422, 429, 500),
      },
    },
    handler: async (ctx, request, _auth, reply) => {
      const { name, fail_first: failFirst = 0, fail_with: failWith, delay_ms: delayMs = 0 } = request.body;
      const owners = await ctx.db
        .selectFrom('restaurant_members')
        .select('account_id')
        .where('tenant_id', '=', ctx.tenantId as string)
        .execute();
      const restaurant = await createRestaurant(ctx, {
        name,
        timezone: 'Europe/Berlin',
        currency: 'EUR',
        plan: 'starter',
        livemode: true,
        ownerIds: owners.map((o) => o.account_id),
      });
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const failed = failures.get(name) ?? 0;
      if (failWith && failed < failFirst) {
        failures.set(name, failed + 1);
        if (failWith === 'crash') throw new Error('boom');
        throw new ApiError(failWith as never, `failing with ${failWith}`);
      }
      reply.code(201);
      return { object: 'restaurant', id: restaurant.id, name: restaurant.name };
    },
  });

let t: TestApp;
let tenant: Tenant;
let currentToken: string;
before(async () => {
  t = await buildTestApp({
    extraApiRoutes: [effectRoute('/test/effects'), effectRoute('/test/other-effects')],
  });
  tenant = await makeTenant(t.ctx);
  currentToken = tenant.token;
});

/** Moves the clock; access tokens live an hour, so the test goes on with a fresh one. */
async function advance(ms: number): Promise<void> {
  t.clock.advance(ms);
  currentToken = await tokenFor(t.ctx, tenant, ['orders:read']);
}
after(() => t.close());

function send(body: object, key?: string, token = currentToken) {
  return t.app.inject({
    method: 'POST',
    url: '/v1/test/effects',
    headers: {
      ...bearer(token),
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    payload: JSON.stringify(body),
  });
}

async function effects(name: string): Promise<number> {
  const rows = await t.database.db.selectFrom('restaurants').select('id').where('name', '=', name).execute();
  return rows.length;
}

describe('Idempotency-Key', () => {
  test('a replay returns the first response with Idempotent-Replayed: true, and one effect', async () => {
    const first = await send({ name: 'Replay' }, 'key-replay');
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await send({ name: 'Replay' }, 'key-replay');
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.notEqual(again.headers['x-request-id'], first.headers['x-request-id']);
    assert.equal(await effects('Replay'), 1);
  });

  test('without a key every request has its effect', async () => {
    await send({ name: 'No key' });
    await send({ name: 'No key' });
    assert.equal(await effects('No key'), 2);
  });

  test('the same key with another body or path → 422 idempotency_key_reused, nothing done', async () => {
    await send({ name: 'Reuse' }, 'key-reuse');
    const res = await send({ name: 'Reuse 2' }, 'key-reuse');
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.code, 'idempotency_key_reused');
    assert.equal(await effects('Reuse 2'), 0);
    const otherPath = await t.app.inject({
      method: 'POST',
      url: '/v1/test/other-effects',
      headers: {
        ...bearer(currentToken),
        'content-type': 'application/json',
        'idempotency-key': 'key-reuse',
      },
      payload: JSON.stringify({ name: 'Reuse' }),
    });
    assert.equal(otherPath.statusCode, 422);
  });

  test('keys belong to one connection: another connection may use the same key', async () => {
    const other = await makeTenant(t.ctx);
    await send({ name: 'Per connection' }, 'key-shared');
    const res = await send({ name: 'Per connection' }, 'key-shared', other.token);
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers['idempotent-replayed'], undefined);
    assert.equal(await effects('Per connection'), 2);
  });

  test('a key is 1 to 255 printable characters, else 400 and nothing done', async () => {
    assert.equal((await send({ name: 'Long key' }, 'k'.repeat(255))).statusCode, 201);
    const long = await send({ name: 'Too long key' }, 'k'.repeat(256));
    assert.equal(long.statusCode, 400);
    assert.equal(long.json().error.code, 'invalid_request');
    assert.equal(long.json().error.param, 'Idempotency-Key');
    assert.equal((await send({ name: 'Too long key' }, '')).statusCode, 400);
    assert.equal((await send({ name: 'Too long key' }, 'schlüssel')).statusCode, 400);
    assert.equal(await effects('Too long key'), 0);
  });

  test('while the first request runs → 409 idempotency_in_progress; after 2 minutes the key is free', async () => {
    // The first request started (in another process) and never finished.
    await claimKey(
      t.database.db,
      {
        tenantId: tenant.restaurantId,
        connectionId: tenant.connectionId,
        key: 'key-running',
        method: 'POST',
        path: '/v1/test/effects',
        bodyHash: sha256(JSON.stringify({ name: 'Running' })),
      },
      t.clock.now(),
    );
    const busy = await send({ name: 'Running' }, 'key-running');
    assert.equal(busy.statusCode, 409);
    assert.equal(busy.json().error.code, 'idempotency_in_progress');
    await advance(119_000);
    assert.equal((await send({ name: 'Running' }, 'key-running')).statusCode, 409);
    assert.equal(await effects('Running'), 0);
    await advance(1_000);
    const taken = await send({ name: 'Running' }, 'key-running');
    assert.equal(taken.statusCode, 201);
    assert.equal(taken.headers['idempotent-replayed'], undefined);
    assert.equal((await send({ name: 'Running' }, 'key-running')).headers['idempotent-replayed'], 'true');
    assert.equal(await effects('Running'), 1);
  });

  test('5xx and 409 conflict answers are not kept: the retry runs (and its effect is rolled back the first time)', async () => {
    const crash = await send({ name: 'Crash', fail_first: 1, fail_with: 'crash' }, 'key-crash');
    assert.equal(crash.statusCode, 500);
    assert.equal(await effects('Crash'), 0);
    const retry = await send({ name: 'Crash', fail_first: 1, fail_with: 'crash' }, 'key-crash');
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.headers['idempotent-replayed'], undefined);

    const conflict = await send({ name: 'Conflict', fail_first: 1, fail_with: 'conflict' }, 'key-conflict');
    assert.equal(conflict.json().error.code, 'conflict');
    const retried = await send({ name: 'Conflict', fail_first: 1, fail_with: 'conflict' }, 'key-conflict');
    assert.equal(retried.statusCode, 201);
    assert.equal(await effects('Conflict'), 1);
  });

  test('other error answers are kept and replayed', async () => {
    const body = { name: 'Refused', fail_first: 5, fail_with: 'invalid_transition' };
    const first = await send(body, 'key-refused');
    assert.equal(first.statusCode, 409);
    const again = await send(body, 'key-refused');
    assert.equal(again.statusCode, 409);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().error.code, 'invalid_transition');
    assert.equal(again.json().error.request_id, again.headers['x-request-id']);
    assert.equal(failures.get('Refused'), 1);
  });

  test('a key is kept 24 hours', async () => {
    await send({ name: 'Day' }, 'key-day');
    await advance(24 * 3600 * 1000 - 1000);
    assert.equal((await send({ name: 'Day' }, 'key-day')).headers['idempotent-replayed'], 'true');
    await advance(1000);
    const fresh = await send({ name: 'Day two' }, 'key-day');
    assert.equal(fresh.statusCode, 201);
    assert.equal(fresh.headers['idempotent-replayed'], undefined);
    assert.equal(await effects('Day two'), 1);
  });

  test('concurrent identical requests have one effect', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => send({ name: 'Concurrent', delay_ms: 50 }, 'key-concurrent')),
    );
    assert.equal(await effects('Concurrent'), 1);
    const firsts = answers.filter(
      (res) => res.statusCode === 201 && res.headers['idempotent-replayed'] === undefined,
    );
    assert.equal(firsts.length, 1);
    for (const res of answers) {
      if (res === firsts[0]) continue;
      const replayed =
        res.statusCode === 201 &&
        res.headers['idempotent-replayed'] === 'true' &&
        res.body === firsts[0]?.body;
      const busy = res.statusCode === 409 && res.json().error.code === 'idempotency_in_progress';
      assert.ok(replayed || busy, `${res.statusCode} ${res.body}`);
    }
  });
});
