import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { consentToApp } from '../../src/domain/connections/connections.service.ts';
import { bearer, buildTestApp, makeTenant, type TestApp } from '../harness.ts';
import { queuedEmails } from '../worker/queued-emails.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const eventsOf = (tenantId: string) =>
  t.database.db.selectFrom('events').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute();
const mailsOf = (tenantId: string) => queuedEmails(t.database.db, { tenantId });

test('consent creates the connection (app.connected) and e-mails the owners', async () => {
  const tenant = await makeTenant(t.ctx, { scopes: ['orders:read'] });
  const [event] = await eventsOf(tenant.restaurantId);
  assert.ok(event);
  assert.equal(event.type, 'app.connected');
  assert.equal(event.connection_id, tenant.connectionId);
  assert.equal(event.livemode, true);
  const object = (event.data as { object: Record<string, unknown> }).object;
  assert.equal(object.id, tenant.connectionId);
  assert.deepEqual(object.scopes, ['orders:read']);
  const mails = await mailsOf(tenant.restaurantId);
  assert.equal(mails.length, 1);
  assert.match(mails[0]?.subject ?? '', /is now connected/);
  assert.match(mails[0]?.body ?? '', /see your orders/);
});

test('consenting again replaces the scopes: app.scopes_changed with the old ones; mail only for added scopes', async () => {
  const tenant = await makeTenant(t.ctx, { scopes: ['orders:read', 'menu:read'] });
  const fewer = await consentToApp(t.ctx, {
    tenantId: tenant.restaurantId,
    appId: tenant.appId,
    scopes: ['orders:read'],
  });
  assert.deepEqual(fewer, { connectionId: tenant.connectionId, scopes: ['orders:read'], created: false });
  const more = await consentToApp(t.ctx, {
    tenantId: tenant.restaurantId,
    appId: tenant.appId,
    scopes: ['orders:read', 'store:read'],
  });
  assert.equal(more.connectionId, tenant.connectionId);
  const same = await consentToApp(t.ctx, {
    tenantId: tenant.restaurantId,
    appId: tenant.appId,
    scopes: ['store:read', 'orders:read'],
  });
  assert.equal(same.created, false);

  const events = await eventsOf(tenant.restaurantId);
  assert.deepEqual(
    events.map((e) => [e.type, (e.data as { previous_scopes?: string[] }).previous_scopes]),
    [
      ['app.connected', undefined],
      ['app.scopes_changed', ['orders:read', 'menu:read']],
      ['app.scopes_changed', ['orders:read']],
    ],
  );
  const mails = await mailsOf(tenant.restaurantId);
  assert.equal(mails.length, 2);
  assert.match(mails[1]?.body ?? '', /store settings/);
  const me = await t.app.inject({ url: '/v1/me', headers: bearer(tenant.token) });
  assert.equal(me.statusCode, 200);
});

test('DELETE /connection records app.disconnected (reason app) and e-mails the owners; a new consent makes a new connection', async () => {
  const tenant = await makeTenant(t.ctx);
  const res = await t.app.inject({ method: 'DELETE', url: '/v1/connection', headers: bearer(tenant.token) });
  assert.equal(res.statusCode, 200);
  const last = (await eventsOf(tenant.restaurantId)).at(-1);
  assert.ok(last);
  assert.equal(last.type, 'app.disconnected');
  assert.equal((last.data as { reason: string }).reason, 'app');
  assert.match((await mailsOf(tenant.restaurantId)).at(-1)?.subject ?? '', /disconnected/);

  const again = await consentToApp(t.ctx, {
    tenantId: tenant.restaurantId,
    appId: tenant.appId,
    scopes: ['orders:read'],
  });
  assert.equal(again.created, true);
  assert.notEqual(again.connectionId, tenant.connectionId);
});

test('a test restaurant gets its events but no e-mail', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const res = await t.app.inject({ method: 'DELETE', url: '/v1/connection', headers: bearer(tenant.token) });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(
    (await eventsOf(tenant.restaurantId)).map((e) => [e.type, e.livemode]),
    [
      ['app.connected', false],
      ['app.disconnected', false],
    ],
  );
  assert.equal((await mailsOf(tenant.restaurantId)).length, 0);
});

test('a failed DELETE /connection records nothing', async () => {
  const tenant = await makeTenant(t.ctx);
  await t.app.inject({ method: 'DELETE', url: '/v1/connection', headers: bearer(tenant.token) });
  const before = (await eventsOf(tenant.restaurantId)).length;
  const res = await t.app.inject({ method: 'DELETE', url: '/v1/connection', headers: bearer(tenant.token) });
  assert.equal(res.statusCode, 401);
  assert.equal((await eventsOf(tenant.restaurantId)).length, before);
});

test('the event’s data.object is the Connection as GET /me writes it, key for key in the same order', async () => {
  const tenant = await makeTenant(t.ctx);
  const me = await t.app.inject({ url: '/v1/me', headers: bearer(tenant.token) });
  const feed = await t.app.inject({ url: '/v1/events', headers: bearer(tenant.token) });
  assert.equal(feed.statusCode, 200);
  const connected = feed.json().data.find((event: { type: string }) => event.type === 'app.connected');
  assert.ok(connected);
  const object = JSON.stringify(connected.data.object);
  assert.equal(object, me.body);
});
