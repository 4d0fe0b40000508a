import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bearer, buildTestApp, makeTenant, type TestApp, tokenFor } from '../harness.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

test('DELETE /connection revokes every token of the connection, the caller’s too, and nothing else', async () => {
  const tenant = await makeTenant(t.ctx);
  const second = await tokenFor(t.ctx, tenant, ['orders:read']);
  const bystander = await makeTenant(t.ctx);

  const res = await t.app.inject({ method: 'DELETE', url: '/v1/connection', headers: bearer(tenant.token) });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { object: 'connection', id: tenant.connectionId, revoked: true });

  for (const token of [tenant.token, second]) {
    const after = await t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(token) });
    assert.equal(after.statusCode, 401);
    assert.equal(after.json().error.code, 'unauthorized');
  }
  const again = await t.app.inject({
    method: 'DELETE',
    url: '/v1/connection',
    headers: bearer(tenant.token),
  });
  assert.equal(again.statusCode, 401);

  const connection = await t.database.db
    .selectFrom('connections')
    .select('ended_at')
    .where('id', '=', tenant.connectionId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(connection.ended_at, t.clock.now());
  const live = await t.database.db
    .selectFrom('access_tokens')
    .select('id')
    .where('connection_id', '=', tenant.connectionId)
    .where('revoked_at', 'is', null)
    .execute();
  assert.equal(live.length, 0);

  assert.equal(
    (await t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(bystander.token) })).statusCode,
    200,
  );
});

test('tokens are stored hashed, never in plain', async () => {
  const tenant = await makeTenant(t.ctx);
  const rows = await t.database.db
    .selectFrom('access_tokens')
    .select('token_hash')
    .where('connection_id', '=', tenant.connectionId)
    .execute();
  assert.equal(rows.length, 1);
  assert.notEqual(rows[0]?.token_hash, tenant.token);
  assert.match(rows[0]?.token_hash ?? '', /^[0-9a-f]{64}$/);
  assert.match(tenant.token, /^svc_at_[A-Za-z0-9_-]{65}$/);
});
