import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeDemoData, seedDemoData } from '../../src/demo/demo-data.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { buildTestApp, makeTenant, type Tenant, type TestApp } from '../harness.ts';
import { assertError, ok, request } from './menu-helpers.ts';

/* GET /v1/menu: the whole menu in the restaurant's currency, each kind by position (ties by id). */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/** Groups and options written to the tables directly (their endpoints: option-groups.test.ts, options.test.ts). */
async function addGroup(tenant: Tenant, fields: { name: string; position: number; product_id?: string }) {
  const id = newId();
  const now = t.clock.now();
  await t.database.db
    .insertInto('menu_option_groups')
    .values({
      tenant_id: tenant.restaurantId,
      id,
      external_id: null,
      external_id_app_id: null,
      product_id: fields.product_id ?? null,
      name: fields.name,
      position: fields.position,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

async function addOption(tenant: Tenant, groupId: string, name: string, position: number, available = true) {
  const id = newId();
  await t.database.db
    .insertInto('menu_options')
    .values({
      tenant_id: tenant.restaurantId,
      id,
      external_id: null,
      external_id_app_id: null,
      group_id: groupId,
      name,
      price_delta: -50,
      available,
      position,
      created_at: t.clock.now(),
      updated_at: t.clock.now(),
    })
    .execute();
  return id;
}

test('categories, products and option groups come by position, ties by id, sold-out items included', async () => {
  const tenant = await makeTenant(t.ctx);
  const empty = await ok(t, tenant.token, 'GET', '/menu');
  assert.deepEqual(empty, {
    object: 'menu',
    currency: 'EUR',
    categories: [],
    products: [],
    option_groups: [],
  });

  const late = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Late', position: 5 });
  const tieA = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Tie A', position: 2 });
  const tieB = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Tie B', position: 2 });
  const first = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'First', position: 0 });
  const soldOut = await ok(t, tenant.token, 'POST', '/menu/products', {
    name: 'Sold out',
    price: 1,
    position: 3,
    available: false,
  });
  const p1 = await ok(t, tenant.token, 'POST', '/menu/products', {
    name: 'One',
    price: 1,
    position: 1,
    category_id: late.id,
  });
  const p2 = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Two', price: 1, position: 1 });

  const own2 = await addGroup(tenant, { name: 'Own second', position: 2, product_id: p1.id });
  const own1 = await addGroup(tenant, { name: 'Own first', position: 1, product_id: p1.id });
  const sharedX = await addGroup(tenant, { name: 'Shared X', position: 0 });
  const sharedY = await addGroup(tenant, { name: 'Shared Y', position: 3 });
  for (const [groupId, position] of [
    [sharedY, 0],
    [sharedX, 1],
  ] as const) {
    await t.database.db
      .insertInto('menu_product_option_groups')
      .values({ tenant_id: tenant.restaurantId, product_id: p1.id, group_id: groupId, position })
      .execute();
  }
  const o2 = await addOption(tenant, sharedX, 'Second', 2, false);
  const o1 = await addOption(tenant, sharedX, 'First', 1);

  const menu = await ok(t, tenant.token, 'GET', '/menu');
  assert.equal(menu.currency, 'EUR');
  const tie = [tieA, tieB].sort((a, b) => (a.id < b.id ? -1 : 1));
  assert.deepEqual(menu.categories, [first, ...tie, late]);
  const tiedProducts = [p1, p2].sort((a, b) => (a.id < b.id ? -1 : 1)).map((product) => product.id);
  assert.deepEqual(
    menu.products.map((product: { id: string }) => product.id),
    [...tiedProducts, soldOut.id],
  );
  assert.equal(menu.products.at(-1).available, false);
  // Its own groups first, then the shared ones in their link order.
  const withGroups = await ok(t, tenant.token, 'GET', `/menu/products/${p1.id}`);
  assert.deepEqual(withGroups.option_group_ids, [own1, own2, sharedY, sharedX]);
  assert.deepEqual(
    menu.products.find((product: { id: string }) => product.id === p1.id),
    withGroups,
  );
  assert.deepEqual(
    menu.option_groups.map((group: { id: string }) => group.id),
    [sharedX, own1, own2, sharedY],
  );
  const x = menu.option_groups[0];
  assert.deepEqual(
    { ...x, updated_at: undefined, options: x.options.map((option: { id: string }) => option.id) },
    {
      object: 'option_group',
      id: sharedX,
      external_id: null,
      name: 'Shared X',
      min_select: 0,
      max_select: 1,
      position: 0,
      product_id: null,
      options: [o1, o2],
      updated_at: undefined,
    },
  );
  assert.deepEqual(x.options[1], {
    object: 'option',
    id: o2,
    external_id: null,
    group_id: sharedX,
    name: 'Second',
    price_delta: -50,
    available: false,
    unavailable_until: null,
    position: 2,
    updated_at: t.clock.now().toISOString(),
  });
  assert.equal(menu.option_groups[1].product_id, p1.id);

  // Another restaurant's menu is its own, in its currency.
  const stranger = await makeTenant(t.ctx);
  await t.database.db
    .updateTable('restaurants')
    .set({ currency: 'CHF' })
    .where('id', '=', stranger.restaurantId)
    .execute();
  assert.deepEqual(await ok(t, stranger.token, 'GET', '/menu'), {
    object: 'menu',
    currency: 'CHF',
    categories: [],
    products: [],
    option_groups: [],
  });
  assertError(await request(t, tenant.token, 'GET', '/menu?limit=1'), 400, 'invalid_request', 'limit');
});

test('the demo restaurants get a menu: categories, products with allergens and diets, option groups, one sold out', async () => {
  // Demo data goes only into a database without accounts.
  const demoApp = await buildTestApp();
  try {
    const demo = await seedDemoData(demoApp.database.db, demoApp.clock);
    assert.ok(demo);
    for (const tenantId of [demo.restaurant.id, demo.testRestaurant.id]) {
      const rows = await demoApp.database.db
        .selectFrom('menu_products')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .execute();
      assert.equal(rows.length, 8);
    }
    const res = await demoApp.app.inject({
      method: 'GET',
      url: '/v1/menu',
      headers: { authorization: `Bearer ${demo.accessToken}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    const menu = res.json();
    assert.deepEqual(
      menu.categories.map((category: { name: string }) => category.name),
      ['Antipasti', 'Pizza', 'Drinks'],
    );
    const product = (name: string) => menu.products.find((p: { name: string }) => p.name === name);
    assert.deepEqual(product('Margherita').allergens, ['gluten', 'milk']);
    assert.deepEqual(product('Bruschetta').diets, ['vegan']);
    assert.equal(product('Quattro formaggi').available, false);
    assert.deepEqual(product('Chianti').tax_rates, { dine_in_bps: 1900, takeaway_bps: 1900 });
    assert.equal(product('Lemonade').option_group_ids.length, 1);
    assert.deepEqual(
      menu.option_groups.map((group: { name: string; options: unknown[] }) => [
        group.name,
        group.options.length,
      ]),
      [
        ['Extras', 3],
        ['Size', 2],
      ],
    );
    assert.match(
      describeDemoData(demo, 'http://servery.test'),
      /a menu of 3 categories, 8 products, 2 option groups/,
    );
  } finally {
    await demoApp.close();
  }
});
