import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import Type from 'typebox';
import { apiRoute } from '../../src/http/api-v1/api-route.ts';
import { errorResponses } from '../../src/http/api-v1/error-responses.ts';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp } from '../harness.ts';

/*
 * A write records its answer for its Idempotency-Key inside its transaction. When that
 * transaction then fails at COMMIT (a lost connection, as the database-fault tests cut it; here a
 * deferred constraint, which fails there every time), the recorded answer is gone with it: the
 * key must be freed on the way out like any 500's, so the client's retry with the same key runs
 * at once, instead of being told idempotency_in_progress until the 2-minute takeover.
 */
const attempts = new Map<string, number>();
const failingCommit = apiRoute({
  method: 'POST',
  url: '/test/failing-commit',
  auth: { scopes: [] },
  schema: {
    operationId: 'testFailingCommit',
    summary: 'a write whose first COMMIT fails',
    tags: ['Test'],
    body: Type.Object({ name: Type.String() }, { additionalProperties: false }),
    response: {
      201: Type.Object({ object: Type.Literal('effect'), name: Type.String() }, { description: 'Done.' }),
      ...errorResponses(400, 401, 403, 409, 413, 422, 429, 500),
    },
  },
  handler: async (ctx, request, _auth, reply) => {
    const { name } = request.body;
    const attempt = (attempts.get(name) ?? 0) + 1;
    attempts.set(name, attempt);
    await sql`INSERT INTO test_effects (name) VALUES (${name})`.execute(ctx.db);
    // The first time, a duplicate that the deferred constraint refuses at COMMIT only.
    if (attempt === 1) await sql`INSERT INTO test_effects (name) VALUES (${name})`.execute(ctx.db);
    reply.code(201);
    return { object: 'effect', name } as const;
  },
});

let t: TestApp;
let tenant: Tenant;
before(async () => {
  t = await buildTestApp({ extraApiRoutes: [failingCommit] });
  await sql`CREATE TABLE test_effects (name text, UNIQUE (name) DEFERRABLE INITIALLY DEFERRED)`.execute(
    t.database.db,
  );
  tenant = await makeTenant(t.ctx);
});
after(() => t.close());

const send = (name: string) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/test/failing-commit',
    headers: {
      ...bearer(tenant.token),
      'content-type': 'application/json',
      'idempotency-key': `key-${name}`,
    },
    payload: JSON.stringify({ name }),
  });

test('a write whose COMMIT failed frees its key: the retry with the same key runs at once, with one effect', async () => {
  const failed = await send('first');
  assert.equal(failed.statusCode, 500, failed.body);
  assert.equal(failed.json().error.code, 'server_error');
  const { count } = await t.database.db
    .selectFrom(sql`test_effects`.as('e'))
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  assert.equal(Number(count), 0, 'the failed COMMIT left nothing');

  const retried = await send('first');
  assert.equal(retried.statusCode, 201, retried.body);
  assert.equal(retried.headers['idempotent-replayed'], undefined, 'run again, not replayed');
  const replayed = await send('first');
  assert.equal(replayed.statusCode, 201);
  assert.equal(replayed.headers['idempotent-replayed'], 'true');
  assert.equal(attempts.get('first'), 2);
  const rows = await sql<{ name: string }>`SELECT name FROM test_effects`.execute(t.database.db);
  assert.deepEqual(rows.rows, [{ name: 'first' }]);
});
