import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import {
  bearer,
  buildTestApp,
  call,
  json,
  makeTenant,
  newAccount,
  signInTo,
  type TestApp,
} from '../harness.ts';

/* The dashboard's JSON API for a restaurant's tables and areas: its owners only, writes checked. */

let t: TestApp;
let owner: { id: string; email: string };
let cookie: string;
before(async () => {
  t = await buildTestApp();
  owner = await newAccount(t, false);
  cookie = await signInTo(t.app, 'dashboard', owner.email);
});
after(() => t.close());

let serial = 0;
async function newRestaurant(ownerIds = [owner.id]): Promise<string> {
  serial += 1;
  const restaurant = await createRestaurant(t.ctx, {
    name: `Floor restaurant ${serial}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    country: 'DE',
    plan: 'pro',
    livemode: true,
    ownerIds,
  });
  return restaurant.id;
}

const areasUrl = (restaurantId: string) => `/dashboard/api/restaurants/${restaurantId}/areas`;
const tablesUrl = (restaurantId: string) => `/dashboard/api/restaurants/${restaurantId}/tables`;

/** Every table and area row of the restaurant, as stored. */
const stored = (restaurantId: string) =>
  Promise.all([
    t.database.db
      .selectFrom('store_areas')
      .selectAll()
      .where('tenant_id', '=', restaurantId)
      .orderBy('id')
      .execute(),
    t.database.db
      .selectFrom('store_tables')
      .selectAll()
      .where('tenant_id', '=', restaurantId)
      .orderBy('id')
      .execute(),
  ]);

async function created(url: string, body: object) {
  const response = await call(t.app, 'POST', url, cookie, body);
  assert.equal(response.statusCode, 201, response.body);
  return json(response);
}

async function ok(method: 'GET' | 'PATCH' | 'POST' | 'DELETE', url: string, body?: object) {
  const response = await call(t.app, method, url, cookie, body);
  assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
  return json(response);
}

test('an owner adds, lists, changes and removes areas and tables, and renews a QR key', async () => {
  const restaurantId = await newRestaurant();
  const dining = await created(areasUrl(restaurantId), { name: 'Dining room' });
  assert.deepEqual(
    { ...dining, id: undefined },
    {
      object: 'area',
      id: undefined,
      name: 'Dining room',
      bookable_online: true,
      created_at: t.clock.now().toISOString(),
    },
  );
  const terrace = await created(areasUrl(restaurantId), { name: '  Terrace ', bookable_online: false });
  assert.equal(terrace.name, 'Terrace');
  assert.equal(terrace.bookable_online, false);

  t.clock.advance(1000);
  const window = await created(tablesUrl(restaurantId), { label: '1', seats: 2, area_id: dining.id });
  assert.deepEqual(
    { ...window, id: undefined, qr_key: undefined },
    {
      object: 'table',
      id: undefined,
      label: '1',
      seats: 2,
      area_id: dining.id,
      bookable_online: true,
      min_party: null,
      seats_is_default: false,
      qr_key: undefined,
      created_at: t.clock.now().toISOString(),
    },
  );
  assert.match(window.qr_key, /^[\w-]{22}$/);
  t.clock.advance(1000);
  const patio = await created(tablesUrl(restaurantId), { label: 'T1', area_id: terrace.id, min_party: 3 });
  assert.equal(patio.seats, 4);
  assert.equal(patio.seats_is_default, true);
  assert.notEqual(patio.qr_key, window.qr_key);

  const one = `${tablesUrl(restaurantId)}/${window.id}`;
  const defaulted = await ok('PATCH', one, { seats: null });
  assert.deepEqual([defaulted.seats, defaulted.seats_is_default, defaulted.label], [4, true, '1']);
  const changed = await ok('PATCH', one, {
    label: 'Window',
    seats: 6,
    area_id: terrace.id,
    bookable_online: false,
    min_party: 5,
  });
  assert.deepEqual(
    { ...changed, qr_key: undefined },
    {
      ...window,
      qr_key: undefined,
      label: 'Window',
      seats: 6,
      seats_is_default: false,
      area_id: terrace.id,
      bookable_online: false,
      min_party: 5,
    },
  );
  // Only what is sent changes.
  const cleared = await ok('PATCH', one, { area_id: null, min_party: null });
  assert.deepEqual(
    [cleared.label, cleared.seats, cleared.area_id, cleared.min_party, cleared.bookable_online],
    ['Window', 6, null, null, false],
  );
  const renamed = await ok('PATCH', `${areasUrl(restaurantId)}/${terrace.id}`, {
    name: 'Garden',
    bookable_online: true,
  });
  assert.deepEqual([renamed.name, renamed.bookable_online], ['Garden', true]);

  const renewed = await ok('POST', `${one}/qr-key`);
  assert.match(renewed.qr_key, /^[\w-]{22}$/);
  assert.notEqual(renewed.qr_key, window.qr_key);
  assert.deepEqual({ ...renewed, qr_key: undefined }, { ...cleared, qr_key: undefined });
  const keys = (await stored(restaurantId))[1].map((row) => row.qr_key).sort();
  assert.deepEqual(keys, [renewed.qr_key, patio.qr_key].sort());

  const tables = await ok('GET', tablesUrl(restaurantId));
  assert.deepEqual(tables, { object: 'list', data: [renewed, patio], has_more: false, next_cursor: null });
  assert.deepEqual((await ok('GET', areasUrl(restaurantId))).data, [dining, { ...terrace, ...renamed }]);

  // An area removed: its tables stay, without an area.
  assert.deepEqual(await ok('DELETE', `${areasUrl(restaurantId)}/${terrace.id}`), {
    object: 'area',
    id: terrace.id,
    deleted: true,
  });
  assert.deepEqual(
    (await ok('GET', tablesUrl(restaurantId))).data.map((table: { id: string; area_id: string | null }) => [
      table.id,
      table.area_id,
    ]),
    [
      [window.id, null],
      [patio.id, null],
    ],
  );
  assert.equal(
    (await call(t.app, 'DELETE', `${areasUrl(restaurantId)}/${terrace.id}`, cookie)).statusCode,
    404,
  );

  assert.deepEqual(await ok('DELETE', one), { object: 'table', id: window.id, deleted: true });
  assert.equal((await call(t.app, 'DELETE', one, cookie)).statusCode, 404);
  assert.equal((await call(t.app, 'PATCH', one, cookie, { label: 'x' })).statusCode, 404);
  const [areas, rows] = await stored(restaurantId);
  assert.deepEqual([areas.map((row) => row.id), rows.map((row) => row.id)], [[dining.id], [patio.id]]);
});

test('the dashboard lists page in creation order like the API’s', async () => {
  const restaurantId = await newRestaurant();
  const ids: string[] = [];
  for (const label of ['9', '1', 'C', 'A', '5']) {
    ids.push((await created(tablesUrl(restaurantId), { label })).id);
    t.clock.advance(1000);
  }
  const first = await ok('GET', `${tablesUrl(restaurantId)}?limit=2`);
  const second = await ok('GET', `${tablesUrl(restaurantId)}?limit=2&cursor=${first.next_cursor}`);
  const last = await ok('GET', `${tablesUrl(restaurantId)}?limit=2&cursor=${second.next_cursor}`);
  assert.deepEqual(
    [first, second, last].map((p) => [p.data.length, p.has_more]),
    [
      [2, true],
      [2, true],
      [1, false],
    ],
  );
  assert.deepEqual(
    [...first.data, ...second.data, ...last.data].map((table: { id: string }) => table.id),
    ids,
  );
});

test('the API shows the tables the dashboard made, without their QR keys', async () => {
  const tenant = await makeTenant(t.ctx);
  await t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: tenant.restaurantId, account_id: owner.id, role: 'owner' })
    .execute();
  const table = await created(tablesUrl(tenant.restaurantId), { label: 'Bar', seats: 3 });
  const listed = await t.app.inject({ method: 'GET', url: '/v1/tables', headers: bearer(tenant.token) });
  const { qr_key, seats_is_default, created_at, ...resource } = table;
  assert.deepEqual(listed.json().data, [resource]);
  assert.ok(!listed.body.includes(qr_key));
});

test('only the restaurant’s owners: staff, strangers and other restaurants get 404 and change nothing', async () => {
  const restaurantId = await newRestaurant();
  const area = await created(areasUrl(restaurantId), { name: 'Inside' });
  const table = await created(tablesUrl(restaurantId), { label: '1', area_id: area.id });
  const staff = await newAccount(t, false);
  await t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: restaurantId, account_id: staff.id, role: 'staff' })
    .execute();
  const stranger = await newAccount(t, false);
  await newRestaurant([stranger.id]);
  const before = await stored(restaurantId);
  const requests = (id: string) =>
    [
      ['GET', areasUrl(id), undefined],
      ['POST', areasUrl(id), { name: 'Bar' }],
      ['PATCH', `${areasUrl(id)}/${area.id}`, { name: 'Bar' }],
      ['DELETE', `${areasUrl(id)}/${area.id}`, undefined],
      ['GET', tablesUrl(id), undefined],
      ['POST', tablesUrl(id), { label: '2' }],
      ['PATCH', `${tablesUrl(id)}/${table.id}`, { seats: 8 }],
      ['DELETE', `${tablesUrl(id)}/${table.id}`, undefined],
      ['POST', `${tablesUrl(id)}/${table.id}/qr-key`, undefined],
    ] as const;
  for (const account of [staff, stranger]) {
    const other = await signInTo(t.app, 'dashboard', account.email);
    for (const [method, url, payload] of requests(restaurantId)) {
      const response = await call(t.app, method, url, other, payload);
      assert.equal(response.statusCode, 404, `${method} ${url}`);
      assert.equal(json(response).error.code, 'not_found');
      assert.doesNotMatch(response.body, new RegExp(table.qr_key));
    }
  }
  // The same owner's other restaurant does not reach this one's tables and areas.
  const second = await newRestaurant();
  for (const [method, url, payload] of requests(second).filter(
    ([, url]) => url.includes(table.id) || url.includes(area.id),
  )) {
    const response = await call(t.app, method, url, cookie, payload);
    assert.equal(response.statusCode, 404, `${method} ${url}`);
  }
  const borrowed = await call(t.app, 'POST', tablesUrl(second), cookie, { label: '1', area_id: area.id });
  assert.equal(borrowed.statusCode, 400);
  assert.equal(json(borrowed).error.param, 'area_id');
  assert.deepEqual(await stored(restaurantId), before);
  assert.deepEqual(await stored(second), [[], []]);
  for (const [method, url, payload] of requests(restaurantId)) {
    assert.equal((await call(t.app, method, url, null, payload)).statusCode, 401, `${method} ${url}`);
  }
});

test('bad input is a 400 naming the field, and changes nothing', async () => {
  const restaurantId = await newRestaurant();
  const area = await created(areasUrl(restaurantId), { name: 'Inside' });
  const table = await created(tablesUrl(restaurantId), { label: '1', seats: 4, min_party: 2 });
  const otherArea = await created(areasUrl(await newRestaurant()), { name: 'Elsewhere' });
  const one = `${tablesUrl(restaurantId)}/${table.id}`;
  const before = await stored(restaurantId);
  const cases: Array<[method: 'GET' | 'POST' | 'PATCH', url: string, body: unknown, param: string]> = [
    ['POST', tablesUrl(restaurantId), {}, 'label'],
    ['POST', tablesUrl(restaurantId), { label: '' }, 'label'],
    ['POST', tablesUrl(restaurantId), { label: '   ' }, 'label'],
    ['POST', tablesUrl(restaurantId), { label: 'x'.repeat(41) }, 'label'],
    ['POST', tablesUrl(restaurantId), { label: 'a\u0007b' }, 'label'],
    ['POST', tablesUrl(restaurantId), { label: 'a\nb' }, 'label'],
    ['POST', tablesUrl(restaurantId), { label: 7 }, 'label'],
    ['POST', tablesUrl(restaurantId), { label: '2', seats: 0 }, 'seats'],
    ['POST', tablesUrl(restaurantId), { label: '2', seats: 201 }, 'seats'],
    ['POST', tablesUrl(restaurantId), { label: '2', seats: 1.5 }, 'seats'],
    ['POST', tablesUrl(restaurantId), { label: '2', seats: '4' }, 'seats'],
    ['POST', tablesUrl(restaurantId), { label: '2', min_party: 0 }, 'min_party'],
    ['POST', tablesUrl(restaurantId), { label: '2', min_party: 201 }, 'min_party'],
    ['POST', tablesUrl(restaurantId), { label: '2', bookable_online: 'yes' }, 'bookable_online'],
    ['POST', tablesUrl(restaurantId), { label: '2', area_id: 'inside' }, 'area_id'],
    ['POST', tablesUrl(restaurantId), { label: '2', area_id: randomUUID() }, 'area_id'],
    ['POST', tablesUrl(restaurantId), { label: '2', area_id: otherArea.id }, 'area_id'],
    // Never kept for parties larger than it seats: its own size, else the default (4).
    ['POST', tablesUrl(restaurantId), { label: '2', seats: 2, min_party: 3 }, 'min_party'],
    ['POST', tablesUrl(restaurantId), { label: '2', min_party: 5 }, 'min_party'],
    ['POST', tablesUrl(restaurantId), { label: '2', colour: 'red' }, 'colour'],
    ['PATCH', one, { label: null }, 'label'],
    ['PATCH', one, { label: ' ' }, 'label'],
    ['PATCH', one, { seats: 1 }, 'seats'],
    ['PATCH', one, { min_party: 6 }, 'min_party'],
    ['PATCH', one, { seats: 8, min_party: 9 }, 'min_party'],
    ['PATCH', one, { area_id: otherArea.id }, 'area_id'],
    ['PATCH', one, { qr_key: 'mine' }, 'qr_key'],
    ['PATCH', `${tablesUrl(restaurantId)}/table-1`, { label: 'x' }, 'table_id'],
    ['POST', `${one}/qr-key`, { qr_key: 'mine' }, 'qr_key'],
    ['POST', areasUrl(restaurantId), { name: '' }, 'name'],
    ['POST', areasUrl(restaurantId), { name: '\t ' }, 'name'],
    ['POST', areasUrl(restaurantId), { name: 'x'.repeat(81) }, 'name'],
    ['POST', areasUrl(restaurantId), { name: 'Bar', bookable_online: 1 }, 'bookable_online'],
    ['PATCH', `${areasUrl(restaurantId)}/${area.id}`, { name: '  ' }, 'name'],
    ['PATCH', `${areasUrl(restaurantId)}/${area.id}`, { tables: [] }, 'tables'],
    ['GET', `${tablesUrl(restaurantId)}?limit=0`, undefined, 'limit'],
    ['GET', `${areasUrl(restaurantId)}?limit=101`, undefined, 'limit'],
    ['GET', `${tablesUrl(restaurantId)}?cursor=nonsense`, undefined, 'cursor'],
    ['GET', `${tablesUrl(restaurantId)}?area_id=${area.id}`, undefined, 'area_id'],
    ['GET', `/dashboard/api/restaurants/restaurant-1/tables`, undefined, 'restaurant_id'],
  ];
  for (const [method, url, body, param] of cases) {
    const response = await call(t.app, method, url, cookie, body);
    assert.equal(response.statusCode, 400, `${method} ${url} ${JSON.stringify(body)}: ${response.body}`);
    assert.equal(json(response).error.code, 'invalid_request');
    assert.equal(json(response).error.param, param, `${method} ${url} ${JSON.stringify(body)}`);
  }
  assert.deepEqual(await stored(restaurantId), before);
  // The limits themselves are accepted.
  const roomy = await created(tablesUrl(restaurantId), { label: 'x'.repeat(40), seats: 200, min_party: 200 });
  assert.deepEqual([roomy.seats, roomy.min_party], [200, 200]);
  assert.equal((await created(areasUrl(restaurantId), { name: 'y'.repeat(80) })).name, 'y'.repeat(80));
});
