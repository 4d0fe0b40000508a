import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildTestApp, call, developerSession, makeTenant, type TestApp } from '../harness.ts';

/* Every event keeps who made the change it reports (events.actor): the audit trail. */
let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const newestActor = async (restaurantId: string) =>
  (
    await t.database.db
      .selectFrom('events')
      .select('actor')
      .where('tenant_id', '=', restaurantId)
      .where('type', '=', 'store.updated')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
  ).actor;

test('a change through the API is the connection’s', async () => {
  const tenant = await makeTenant(t.ctx);
  const response = await t.app.inject({
    method: 'PATCH',
    url: '/v1/store',
    headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
    payload: { preorders: true },
  });
  assert.equal(response.statusCode, 200, response.body);
  assert.deepEqual(await newestActor(tenant.restaurantId), { kind: 'connection', id: tenant.connectionId });
});

test('a change in the dashboard is the signed-in owner’s, with the role', async () => {
  const tenant = await makeTenant(t.ctx);
  const cookie = await developerSession(t, tenant, 'dashboard');
  const response = await call(
    t.app,
    'PATCH',
    `/dashboard/api/restaurants/${tenant.restaurantId}/store`,
    cookie,
    {
      preorders: true,
    },
  );
  assert.equal(response.statusCode, 200, response.body);
  const owner = await t.database.db
    .selectFrom('apps')
    .select('developer_id')
    .where('id', '=', tenant.appId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(await newestActor(tenant.restaurantId), {
    kind: 'account',
    id: owner.developer_id,
    role: 'owner',
  });
});
