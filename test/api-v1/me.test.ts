import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp, tokenFor } from '../harness.ts';

let t: TestApp;
let tenant: Tenant;
before(async () => {
  t = await buildTestApp();
  tenant = await makeTenant(t.ctx, { plan: 'premium', livemode: false });
});
after(() => t.close());

test('GET /me returns the connection exactly as the spec lists it', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(tenant.token) });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  const restaurant = await t.database.db
    .selectFrom('restaurants')
    .selectAll()
    .where('id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
  const connection = await t.database.db
    .selectFrom('connections')
    .selectAll()
    .where('id', '=', tenant.connectionId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(body, {
    object: 'connection',
    id: tenant.connectionId,
    livemode: false,
    app: { client_id: tenant.clientId, name: body.app.name },
    tenant: {
      id: tenant.restaurantId,
      name: restaurant.name,
      slug: restaurant.slug,
      timezone: 'Europe/Berlin',
      currency: 'EUR',
      country: 'DE',
    },
    scopes: [
      'orders:read',
      'orders:write',
      'menu:read',
      'menu:write',
      'store:read',
      'store:write',
      'reservations:read',
      'reservations:write',
      'reports:read',
    ],
    plan: 'premium',
    rate_limit: { limit: 120, window_seconds: 60 },
    created_at: connection.created_at.toISOString(),
  });
  assert.match(body.app.name, /^App /);
  assert.match(body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test('GET /me shows the scopes of a narrowed token, not those of the connection', async () => {
  const narrow = await tokenFor(t.ctx, tenant, ['orders:read']);
  const res = await t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(narrow) });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json().scopes, ['orders:read']);
});

test('a restaurant without a country reports country null', async () => {
  await t.database.db
    .updateTable('restaurants')
    .set({ country: null })
    .where('id', '=', tenant.restaurantId)
    .execute();
  const res = await t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(tenant.token) });
  assert.equal(res.json().tenant.country, null);
});

test('requests arriving together each get their own connection, never another’s', async () => {
  // Made one after another: on Citus restaurants and apps made at once can meet in a distributed
  // deadlock (reference tables), which a request's transaction runs again but the test's helper
  // does not; it is not what this test is about.
  const tenants = [tenant];
  for (let n = 0; n < 3; n++) tenants.push(await makeTenant(t.ctx));
  const revoked = await makeTenant(t.ctx);
  await t.database.db
    .updateTable('access_tokens')
    .set({ revoked_at: t.clock.now() })
    .where('connection_id', '=', revoked.connectionId)
    .execute();
  const calls = Array.from({ length: 40 }, (_, i) => {
    const caller = i % 5 === 4 ? revoked : tenants[i % 5];
    return {
      caller,
      response: t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(caller?.token ?? '') }),
    };
  });
  for (const { caller, response } of calls) {
    const res = await response;
    if (caller === revoked) {
      assert.equal(res.statusCode, 401);
    } else {
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().id, caller?.connectionId);
      assert.equal(res.json().tenant.id, caller?.restaurantId);
    }
  }
});
