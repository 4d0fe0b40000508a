import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import { buildTestApp, call, json, newAccount, signInTo, type TestApp } from '../harness.ts';

let t: TestApp;
let owner: { id: string; email: string };
let cookie: string;
before(async () => {
  t = await buildTestApp({ config: { webhooksAllowInsecure: false } });
  owner = await newAccount(t, false);
  cookie = await signInTo(t.app, 'dashboard', owner.email);
});
after(() => t.close());

let serial = 0;
async function newRestaurant(plan: 'starter' | 'pro' = 'pro'): Promise<string> {
  serial += 1;
  const restaurant = await createRestaurant(t.ctx, {
    name: `Dashboard store ${serial} ${process.pid}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    country: 'DE',
    plan,
    livemode: true,
    ownerIds: [owner.id],
  });
  return restaurant.id;
}
const storeUrl = (id: string) => `/dashboard/api/restaurants/${id}/store`;

const updatedEvents = async (restaurantId: string) =>
  (
    await t.database.db
      .selectFrom('events')
      .select('data')
      .where('tenant_id', '=', restaurantId)
      .where('type', '=', 'store.updated')
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((row) => row.data as { changed: string[]; previous: Record<string, unknown> });

test('an owner changes the settings only owners have; order_statuses changes record store.updated', async () => {
  const id = await newRestaurant();
  const res = await call(t.app, 'PATCH', storeUrl(id), cookie, {
    min_order: 1200,
    order_statuses: ['pending', 'preparing', 'ready'],
    contact: { phone: '+49 30 555', website: 'https://example.test' },
    address_line: '10115 Berlin',
    location: { lat: 52.5, lon: 13.4 },
    default_table_seats: 2,
    lead_times: { delivery_minutes: 60 },
  });
  assert.equal(res.statusCode, 200, res.body);
  const store = json(res);
  assert.equal(store.min_order, 1200);
  assert.deepEqual(store.order_statuses, ['pending', 'preparing', 'ready', 'completed', 'cancelled']);
  assert.deepEqual(store.contact, { phone: '+49 30 555', email: null, website: 'https://example.test' });
  assert.deepEqual(store.address, {
    line: '10115 Berlin',
    postal_code: '10115',
    city: 'Berlin',
    country: 'DE',
  });
  assert.deepEqual(store.location, { lat: 52.5, lon: 13.4 });
  const [event] = await updatedEvents(id);
  assert.deepEqual(event?.changed, [
    'order_statuses',
    'lead_times',
    'min_order',
    'contact',
    'address',
    'location',
  ]);
  assert.deepEqual(event?.previous.order_statuses, [
    'pending',
    'confirmed',
    'preparing',
    'ready',
    'completed',
    'cancelled',
  ]);
  const seats = await t.database.db
    .selectFrom('stores')
    .select('default_table_seats')
    .where('tenant_id', '=', id)
    .executeTakeFirstOrThrow();
  assert.equal(seats.default_table_seats, 2);
  assert.deepEqual(json(await call(t.app, 'GET', storeUrl(id), cookie)), store);
});

test('order statuses without pending: any of the four in order are accepted and stored', async () => {
  const id = await newRestaurant();
  const res = await call(t.app, 'PATCH', storeUrl(id), cookie, { order_statuses: ['confirmed', 'ready'] });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(json(res).order_statuses, ['confirmed', 'ready', 'completed', 'cancelled']);
  assert.deepEqual(json(await call(t.app, 'GET', storeUrl(id), cookie)).order_statuses, [
    'confirmed',
    'ready',
    'completed',
    'cancelled',
  ]);
  const row = await t.database.db
    .selectFrom('stores')
    .select('order_statuses')
    .where('tenant_id', '=', id)
    .executeTakeFirstOrThrow();
  assert.deepEqual(row.order_statuses, ['confirmed', 'ready'], 'stored without the final ones');
  const [event] = await updatedEvents(id);
  assert.deepEqual(event?.changed, ['order_statuses']);
  assert.deepEqual(event?.previous.order_statuses, [
    'pending',
    'confirmed',
    'preparing',
    'ready',
    'completed',
    'cancelled',
  ]);
  const ready = await call(t.app, 'PATCH', storeUrl(id), cookie, { order_statuses: ['ready'] });
  assert.equal(ready.statusCode, 200, ready.body);
  assert.deepEqual(json(ready).order_statuses, ['ready', 'completed', 'cancelled']);
});

test('order statuses out of order, repeated, final or none: 400 and nothing changes; plans as in the API', async () => {
  const id = await newRestaurant('starter');
  const cases: Array<[string[], string]> = [
    [['pending', 'ready', 'preparing'], 'order_statuses'],
    [['ready', 'confirmed'], 'order_statuses'],
    [['pending', 'pending'], 'order_statuses'],
    [['confirmed', 'ready', 'ready'], 'order_statuses'],
    [['pending', 'completed'], 'order_statuses[1]'],
    [[], 'order_statuses'],
  ];
  for (const [statuses, param] of cases) {
    const res = await call(t.app, 'PATCH', storeUrl(id), cookie, { order_statuses: statuses });
    assert.equal(res.statusCode, 400, JSON.stringify(statuses));
    assert.equal(json(res).error.code, 'invalid_request');
    assert.equal(json(res).error.param, param, JSON.stringify(statuses));
  }
  assert.deepEqual(json(await call(t.app, 'GET', storeUrl(id), cookie)).order_statuses, [
    'pending',
    'confirmed',
    'preparing',
    'ready',
    'completed',
    'cancelled',
  ]);
  const dineIn = await call(t.app, 'PATCH', storeUrl(id), cookie, { order_types: { dine_in: true } });
  assert.equal(dineIn.statusCode, 403);
  assert.equal(json(dineIn).error.code, 'plan_required');
  assert.deepEqual(await updatedEvents(id), []);
});

test('hours, special days and the pause through the dashboard', async () => {
  const id = await newRestaurant();
  const hours = await call(t.app, 'PUT', `${storeUrl(id)}/hours`, cookie, {
    opening_hours: [{ weekday: 0, open: '10:00', close: '22:00' }],
  });
  assert.equal(hours.statusCode, 200, hours.body);
  assert.equal(json(await call(t.app, 'GET', storeUrl(id), cookie)).status, 'open', 'Monday 11:00 in Berlin');
  const closure = await call(t.app, 'POST', `${storeUrl(id)}/closures`, cookie, {
    date: '2026-11-02',
    closed: true,
  });
  assert.equal(closure.statusCode, 201);
  assert.equal(json(await call(t.app, 'GET', storeUrl(id), cookie)).status, 'closed');
  assert.equal(json(await call(t.app, 'GET', `${storeUrl(id)}/closures`, cookie)).data.length, 1);
  const removed = await call(t.app, 'DELETE', `${storeUrl(id)}/closures/2026-11-02`, cookie);
  assert.equal(json(removed).deleted, true);
  const paused = await call(t.app, 'POST', `${storeUrl(id)}/pause`, cookie, { note: 'Staff meeting' });
  assert.equal(json(paused).status, 'paused');
  const resumed = await call(t.app, 'DELETE', `${storeUrl(id)}/pause`, cookie);
  assert.equal(json(resumed).status, 'open');
});

test('another account, staff included, finds no store', async () => {
  const id = await newRestaurant();
  const staff = await newAccount(t, false);
  await t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: id, account_id: staff.id, role: 'staff', created_at: t.clock.now() })
    .execute();
  const theirs = await signInTo(t.app, 'dashboard', staff.email);
  for (const [method, url] of [
    ['GET', storeUrl(id)],
    ['PATCH', storeUrl(id)],
    ['POST', `${storeUrl(id)}/pause`],
  ] as const) {
    const res = await call(t.app, method, url, theirs, method === 'GET' ? undefined : {});
    assert.equal(res.statusCode, 404, `${method} ${url}`);
  }
  const stranger = await call(t.app, 'GET', storeUrl('00000000-0000-7000-8000-000000000000'), cookie);
  assert.equal(stranger.statusCode, 404);
});
