import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { feedAll } from '../events/events-helpers.ts';
import {
  buildTestApp,
  call,
  developerSession,
  json,
  makeTenant,
  newAccount,
  signInTo,
  type Tenant,
  type TestApp,
  tokenFor,
} from '../harness.ts';
import { ok as apiOk, assertError } from './menu-helpers.ts';

/*
 * The dashboard's JSON API for a restaurant's menu: its owners change it through the same services
 * as apps do (same answers, same events, the account as actor); another restaurant's objects are
 * 404, staff are refused; the owner's refresh request reaches apps with menu:read.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const menuUrl = (tenant: Tenant) => `/dashboard/api/restaurants/${tenant.restaurantId}/menu`;

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
async function ok(cookie: string, method: Method, url: string, body?: object, status?: number) {
  const response = await call(t.app, method, url, cookie, body ?? (method === 'GET' ? undefined : {}));
  assert.equal(
    response.statusCode,
    status ?? (method === 'POST' ? 201 : 200),
    `${method} ${url}: ${response.body}`,
  );
  return json(response);
}

/** The restaurant's menu events as stored: type, data and who made the change. */
function storedEvents(tenant: Tenant) {
  return t.database.db
    .selectFrom('events')
    .select(['type', 'data', 'actor'])
    .where('tenant_id', '=', tenant.restaurantId)
    .where('type', 'like', 'menu.%')
    .orderBy('id')
    .execute();
}

/** Each UUID replaced by its place of first appearance: two runs of the same steps compare equal. */
function withNumberedIds(value: unknown): unknown {
  const seen = new Map<string, string>();
  return JSON.parse(
    JSON.stringify(value).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
      if (!seen.has(id)) seen.set(id, `id-${seen.size}`);
      return seen.get(id) as string;
    }),
  );
}

describe('an owner edits the menu', () => {
  test('create, change, sell out and delete each kind; the menu shows it; external_id is not the dashboard’s', async () => {
    const tenant = await makeTenant(t.ctx);
    const cookie = await developerSession(t, tenant, 'dashboard');
    const base = menuUrl(tenant);
    assert.deepEqual(await ok(cookie, 'GET', base), {
      object: 'menu',
      currency: 'EUR',
      categories: [],
      products: [],
      option_groups: [],
    });
    const pizza = await ok(cookie, 'POST', `${base}/categories`, { name: ' Pizza ' });
    assert.equal(pizza.name, 'Pizza');
    const extras = await ok(cookie, 'POST', `${base}/option-groups`, { name: 'Extras', max_select: 3 });
    const cheese = await ok(cookie, 'POST', `${base}/option-groups/${extras.id}/options`, {
      name: 'Cheese',
      price_delta: 150,
    });
    const margherita = await ok(cookie, 'POST', `${base}/products`, {
      name: 'Margherita',
      price: 950,
      category_id: pizza.id,
      allergens: ['gluten', 'Milch', 'Hausgemacht'],
      diets: ['vegetarian'],
      option_group_ids: [extras.id],
    });
    assert.deepEqual(margherita.allergens, ['gluten', 'milk', 'Hausgemacht']);
    assert.deepEqual(margherita.option_group_ids, [extras.id]);

    const soldOut = await ok(cookie, 'PATCH', `${base}/products/${margherita.id}`, { available: false });
    assert.equal(soldOut.available, false);
    assert.equal(
      (await ok(cookie, 'PATCH', `${base}/products/${margherita.id}`, { price: 1050 })).price,
      1050,
    );
    assert.equal(
      (await ok(cookie, 'PATCH', `${base}/options/${cheese.id}`, { available: false })).available,
      false,
    );
    await ok(cookie, 'PATCH', `${base}/categories/${pizza.id}`, { position: 4 });
    await ok(cookie, 'PATCH', `${base}/option-groups/${extras.id}`, { min_select: 1 });

    const menu = await ok(cookie, 'GET', base);
    assert.deepEqual(menu, await apiOk(t, tenant.token, 'GET', '/menu'));
    assert.deepEqual(
      [menu.categories[0].position, menu.products[0].price, menu.products[0].available],
      [4, 1050, false],
    );
    assert.deepEqual(
      [menu.option_groups[0].min_select, menu.option_groups[0].options[0].available],
      [1, false],
    );

    const external = await call(t.app, 'POST', `${base}/categories`, cookie, { name: 'X', external_id: 'x' });
    assertError(external, 400, 'invalid_request', 'external_id');
    const blank = await call(t.app, 'PATCH', `${base}/products/${margherita.id}`, cookie, { name: '  ' });
    assertError(blank, 400, 'invalid_request', 'name');

    assert.deepEqual(await ok(cookie, 'DELETE', `${base}/options/${cheese.id}`), {
      object: 'option',
      id: cheese.id,
      deleted: true,
    });
    await ok(cookie, 'DELETE', `${base}/option-groups/${extras.id}`);
    await ok(cookie, 'DELETE', `${base}/products/${margherita.id}`);
    await ok(cookie, 'DELETE', `${base}/categories/${pizza.id}`);
    const empty = await ok(cookie, 'GET', base);
    assert.deepEqual([empty.categories, empty.products, empty.option_groups], [[], [], []]);
  });

  test('a write through the dashboard records the same events as through the API, the account as actor', async () => {
    const steps = async (write: (method: Method, url: string, body?: object) => Promise<{ id: string }>) => {
      const pizza = await write('POST', '/categories', { name: 'Pizza' });
      const product = await write('POST', '/products', { name: 'Funghi', price: 900, category_id: pizza.id });
      await write('PATCH', `/products/${product.id}`, { available: false, price: 990 });
      const group = await write('POST', '/option-groups', { name: 'Size', product_id: product.id });
      const option = await write('POST', `/option-groups/${group.id}/options`, {
        name: 'Large',
        price_delta: 300,
      });
      await write('PATCH', `/options/${option.id}`, { name: 'XL' });
      await write('DELETE', `/categories/${pizza.id}`);
      await write('DELETE', `/products/${product.id}`);
    };
    const viaApi = await makeTenant(t.ctx);
    await steps((method, url, body) => apiOk(t, viaApi.token, method, `/menu${url}`, body));
    const viaDashboard = await makeTenant(t.ctx);
    const cookie = await developerSession(t, viaDashboard, 'dashboard');
    await steps((method, url, body) => ok(cookie, method, `${menuUrl(viaDashboard)}${url}`, body));

    const fromApi = await storedEvents(viaApi);
    const fromDashboard = await storedEvents(viaDashboard);
    const withoutActor = (events: typeof fromApi) => events.map(({ type, data }) => ({ type, data }));
    assert.deepEqual(withNumberedIds(withoutActor(fromDashboard)), withNumberedIds(withoutActor(fromApi)));
    assert.ok(fromDashboard.length >= 10);
    const developer = await t.database.db
      .selectFrom('apps')
      .select('developer_id')
      .where('id', '=', viaDashboard.appId)
      .executeTakeFirstOrThrow();
    for (const event of fromDashboard)
      assert.deepEqual(event.actor, { kind: 'account', id: developer.developer_id, role: 'owner' });
    for (const event of fromApi)
      assert.deepEqual(event.actor, { kind: 'connection', id: viaApi.connectionId });
    // The connected app reads the dashboard's changes in its feed, as any other change.
    const feed = await feedAll(t, viaDashboard.token, '&types=menu.*');
    assert.deepEqual(
      feed.map((event) => event.type),
      fromDashboard.map((event) => event.type),
    );
  });
});

describe('who may edit', () => {
  test('another restaurant’s objects are 404 (its category as a product’s is 400 on category_id)', async () => {
    const own = await makeTenant(t.ctx);
    const theirs = await makeTenant(t.ctx);
    const cookie = await developerSession(t, own, 'dashboard');
    const category = await apiOk(t, theirs.token, 'POST', '/menu/categories', { name: 'Theirs' });
    const product = await apiOk(t, theirs.token, 'POST', '/menu/products', { name: 'Theirs', price: 1 });
    const group = await apiOk(t, theirs.token, 'POST', '/menu/option-groups', { name: 'Theirs' });
    const option = await apiOk(t, theirs.token, 'POST', `/menu/option-groups/${group.id}/options`, {
      name: 'Theirs',
      price_delta: 0,
    });
    const base = menuUrl(own);
    const attempts: Array<[Method, string, object]> = [
      ['PATCH', `/categories/${category.id}`, { name: 'Mine' }],
      ['DELETE', `/categories/${category.id}`, {}],
      ['PATCH', `/products/${product.id}`, { available: false }],
      ['DELETE', `/products/${product.id}`, {}],
      ['PATCH', `/option-groups/${group.id}`, { name: 'Mine' }],
      ['DELETE', `/option-groups/${group.id}`, {}],
      ['POST', `/option-groups/${group.id}/options`, { name: 'Mine', price_delta: 0 }],
      ['PATCH', `/options/${option.id}`, { available: false }],
      ['DELETE', `/options/${option.id}`, {}],
    ];
    for (const [method, url, body] of attempts)
      assertError(await call(t.app, method, `${base}${url}`, cookie, body), 404, 'not_found');
    assertError(
      await call(t.app, 'POST', `${base}/products`, cookie, {
        name: 'X',
        price: 1,
        category_id: category.id,
      }),
      400,
      'invalid_request',
      'category_id',
    );
    assert.deepEqual(await apiOk(t, theirs.token, 'GET', `/menu/products/${product.id}`), product);
    assert.equal((await storedEvents(theirs)).length, 4);
  });

  test('staff and strangers: 404, nothing changes', async () => {
    const tenant = await makeTenant(t.ctx);
    const staff = await newAccount(t, false);
    await t.database.db
      .insertInto('restaurant_members')
      .values({ tenant_id: tenant.restaurantId, account_id: staff.id, role: 'staff' })
      .execute();
    const stranger = await newAccount(t, false);
    for (const account of [staff, stranger]) {
      const cookie = await signInTo(t.app, 'dashboard', account.email);
      assertError(await call(t.app, 'GET', menuUrl(tenant), cookie), 404, 'not_found');
      assertError(
        await call(t.app, 'POST', `${menuUrl(tenant)}/categories`, cookie, { name: 'Staff pick' }),
        404,
        'not_found',
      );
      assertError(
        await call(t.app, 'POST', `${menuUrl(tenant)}/refresh-requests`, cookie, {}),
        404,
        'not_found',
      );
    }
    assert.deepEqual(await storedEvents(tenant), []);
  });
});

describe('menu.refresh_requested', () => {
  test('the owner’s request reaches apps with menu:read in their feed, with its note', async () => {
    const tenant = await makeTenant(t.ctx);
    const cookie = await developerSession(t, tenant, 'dashboard');
    const url = `${menuUrl(tenant)}/refresh-requests`;
    const sent = await ok(cookie, 'POST', url, { note: '  Summer menu is online.\nPlease sync. ' });
    assert.deepEqual(sent, {
      object: 'menu_refresh_request',
      requested_at: t.clock.now().toISOString(),
      note: 'Summer menu is online.\nPlease sync.',
    });
    t.clock.advance(1000);
    const plain = await ok(cookie, 'POST', url, {});
    assert.equal(plain.note, null);
    assert.equal((await ok(cookie, 'POST', url, { note: '   ' })).note, null);

    const feed = await feedAll(t, tenant.token, '&types=menu.refresh_requested');
    assert.deepEqual(
      feed.map((event) => ({ type: event.type, data: event.data, connection_id: event.connection_id })),
      [sent, plain, { ...plain, note: null }].map((object) => ({
        type: 'menu.refresh_requested',
        data: { object },
        connection_id: tenant.connectionId,
      })),
    );
    assert.equal((await feedAll(t, tenant.token, '&types=menu.*')).length, 3);
    const withoutMenuRead = await tokenFor(t.ctx, tenant, ['orders:read', 'store:read']);
    assert.deepEqual(await feedAll(t, withoutMenuRead, '&types=menu.*'), []);
    const [stored] = await storedEvents(tenant);
    assert.equal(stored?.actor?.kind, 'account');
  });

  test('a note over 500 characters or with control characters is a 400 on note', async () => {
    const tenant = await makeTenant(t.ctx);
    const cookie = await developerSession(t, tenant, 'dashboard');
    const url = `${menuUrl(tenant)}/refresh-requests`;
    assertError(
      await call(t.app, 'POST', url, cookie, { note: 'x'.repeat(501) }),
      400,
      'invalid_request',
      'note',
    );
    assertError(
      await call(t.app, 'POST', url, cookie, { note: 'bell\u0007' }),
      400,
      'invalid_request',
      'note',
    );
    // 500 characters, counted as characters (an emoji is one).
    assert.equal((await ok(cookie, 'POST', url, { note: '🍕'.repeat(500) })).note, '🍕'.repeat(500));
    assert.equal((await storedEvents(tenant)).length, 1);
  });

  test('documented: the Event schema of the OpenAPI document and docs/api-decisions.md', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    const document = response.json();
    const event = document.components?.schemas?.Event ?? findEventSchema(document);
    assert.ok(event.properties.type.enum.includes('menu.refresh_requested'));
    const decisions = readFileSync(path.resolve(import.meta.dirname, '../../docs/api-decisions.md'), 'utf8');
    assert.match(decisions, /`menu\.refresh_requested`/);
    assert.match(decisions, /menu_refresh_request/);
  });
});

/** The Event schema wherever the document put it (the events list's items). */
function findEventSchema(document: {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
}) {
  const list = document.paths['/events']?.get?.responses['200'] as {
    content: Record<string, { schema: { properties: { data: { items: unknown } } } }>;
  };
  return Object.values(list.content)[0]?.schema.properties.data.items as {
    properties: { type: { enum: string[] } };
  };
}
