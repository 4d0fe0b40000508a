import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consentToApp } from '../../src/domain/connections/connections.service.ts';
import { eventExample } from '../../src/domain/events/event-examples.ts';
import { type EventType, eventTypes } from '../../src/domain/events/events.store.ts';
import { scopes as allScopes, type Scope } from '../../src/domain/shared/scopes.ts';
import { createRestaurantWebhook } from '../../src/domain/webhooks/restaurant-webhooks.service.ts';
import { connectAnotherApp, record } from '../events/events-helpers.ts';
import {
  bearer,
  buildTestApp,
  call,
  developerSession,
  json,
  makeTenant,
  type Tenant,
  type TestApp,
} from '../harness.ts';
import { startReceiver, webhookFor } from './delivery-helpers.ts';

/*
 * A test event's data shows only what its receiver may see: the newest real event of a type the
 * connection's scopes show, app.* only of its own connection, else the type's example.
 */

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let consoleCookie: string | undefined;
before(async () => {
  t = await buildTestApp({ config: { webhooksAllowInsecure: true } });
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await t.close();
});

/** decisions.md, Events: the read scope each group of restaurant events needs. */
const readScopeOf: Record<string, Scope> = {
  order: 'orders:read',
  menu: 'menu:read',
  store: 'store:read',
  reservation: 'reservations:read',
};
const restaurantTypes = eventTypes.filter((type) => (type.split('.')[0] ?? '') in readScopeOf);

let serial = 0;
/** The app's webhook, at a path of the receiver of its own. */
async function withWebhook(tenant: Tenant): Promise<Tenant & { path: string }> {
  serial += 1;
  const path = `/ok/test-data-${serial}`;
  await webhookFor(t, tenant, `${receiver.base}${path}`);
  return { ...tenant, path };
}

/** Sends a test event of `type` from the console; returns the body the receiver got, and its envelope. */
async function sendTest(tenant: Tenant & { path: string }, type: EventType) {
  consoleCookie ??= await developerSession(t, tenant, 'console');
  const response = await call(
    t.app,
    'POST',
    `/console/api/apps/${tenant.clientId}/webhook/test`,
    consoleCookie,
    {
      type,
    },
  );
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(json(response).status, 'delivered');
  const got = receiver.received.filter((r) => r.path === tenant.path).at(-1);
  assert.ok(got);
  return { body: got.body, envelope: JSON.parse(got.body) };
}

/** The example data of a type as the receiver gets it, marked as a test. */
function exampleFor(type: EventType, tenant: Tenant): unknown {
  const own = { tenantId: tenant.restaurantId, connectionId: tenant.connectionId };
  return JSON.parse(JSON.stringify({ ...eventExample(type, own), test: true }));
}

describe('restaurant events: only with the type’s read scope', () => {
  for (const type of restaurantTypes) {
    test(type, async () => {
      const scope = readScopeOf[type.split('.')[0] ?? ''] as Scope;
      const without = await withWebhook(
        await makeTenant(t.ctx, { livemode: false, scopes: allScopes.filter((s) => s !== scope) }),
      );
      const reader = await withWebhook(await connectAnotherApp(t.ctx, without, [scope]));
      const older = { object: { object: 'real', note: 'REAL-DATA older' } };
      await record(t, without, type, older, { livemode: false });
      t.clock.advance(1000);
      const newest = {
        object: { object: 'real', note: 'REAL-DATA newest', phone: '+49 30 999' },
        changed: [],
      };
      await record(t, without, type, newest, { livemode: false });

      const hidden = await sendTest(without, type);
      assert.deepEqual(hidden.envelope.data, exampleFor(type, without));
      assert.ok(!hidden.body.includes('REAL-DATA'), 'nothing of the restaurant’s events');

      const shown = await sendTest(reader, type);
      assert.deepEqual(shown.envelope.data, { ...newest, test: true });
    });
  }

  test('with the scope and no event of the type yet: the example', async () => {
    const tenant = await withWebhook(await makeTenant(t.ctx, { livemode: false }));
    const { envelope } = await sendTest(tenant, 'order.cancelled');
    assert.deepEqual(envelope.data, exampleFor('order.cancelled', tenant));
    assert.equal(envelope.data.object.object, 'order');
    assert.equal(envelope.data.previous_status, 'pending');
  });
});

describe('app.* test events: only the app’s own connection', () => {
  test('another app’s newer connect, scope change and disconnect never show', async () => {
    const own = await withWebhook(await makeTenant(t.ctx, { livemode: false, scopes: ['orders:read'] }));
    const other = await connectAnotherApp(t.ctx, own, ['orders:read', 'menu:read']);
    await consentToApp(t.ctx, { tenantId: own.restaurantId, appId: other.appId, scopes: ['menu:read'] });
    const ended = await t.app.inject({
      method: 'DELETE',
      url: '/v1/connection',
      headers: bearer(other.token),
    });
    assert.equal(ended.statusCode, 200);
    const others = [other.connectionId, other.clientId];

    const connected = await sendTest(own, 'app.connected');
    assert.equal(connected.envelope.data.object.id, own.connectionId);
    assert.equal(connected.envelope.data.object.app.client_id, own.clientId);
    assert.deepEqual(connected.envelope.data.object.scopes, ['orders:read']);
    for (const type of ['app.scopes_changed', 'app.disconnected'] as const) {
      const { envelope } = await sendTest(own, type);
      assert.deepEqual(envelope.data, exampleFor(type, own));
      assert.equal(envelope.data.object.id, envelope.connection_id, 'the example is of its own connection');
    }
    for (const got of receiver.received.filter((r) => r.path === own.path))
      assert.ok(!others.some((value) => got.body.includes(value)), 'nothing of the other app');

    // Its own scope change shows, even when another app's is newer.
    await consentToApp(t.ctx, { tenantId: own.restaurantId, appId: own.appId, scopes: ['store:read'] });
    const third = await connectAnotherApp(t.ctx, own, ['orders:read']);
    await consentToApp(t.ctx, { tenantId: own.restaurantId, appId: third.appId, scopes: ['menu:read'] });
    const changed = await sendTest(own, 'app.scopes_changed');
    assert.equal(changed.envelope.data.object.id, own.connectionId);
    assert.deepEqual(changed.envelope.data.object.scopes, ['store:read']);
    assert.deepEqual(changed.envelope.data.previous_scopes, ['orders:read']);
    assert.ok(!changed.body.includes(third.connectionId));
  });
});

test('a restaurant’s own webhook: the restaurant’s newest event of the type, else the example', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  serial += 1;
  const path = `/ok/test-data-${serial}`;
  const { webhook } = await createRestaurantWebhook(
    { ...t.ctx, tenantId: tenant.restaurantId },
    {
      url: `${receiver.base}${path}`,
      events: ['*'],
      rules: { allowInsecure: true },
    },
  );
  const newest = {
    object: { object: 'store', id: tenant.restaurantId, name: 'Real name' },
    changed: ['name'],
  };
  await record(t, tenant, 'store.updated', newest, { livemode: false });
  const dashboard = await developerSession(t, tenant, 'dashboard');
  const url = `/dashboard/api/restaurants/${tenant.restaurantId}/webhooks/${webhook.id}/test`;
  for (const type of ['store.updated', 'menu.product.updated'] as const) {
    const response = await call(t.app, 'POST', url, dashboard, { type });
    assert.equal(json(response).status, 'delivered', response.body);
  }
  const [updated, product] = receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body));
  assert.deepEqual(updated.data, { ...newest, test: true });
  assert.equal(updated.connection_id, null);
  assert.deepEqual(product.data, exampleFor('menu.product.updated', tenant));
});
