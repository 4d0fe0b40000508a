import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectAnotherApp, feedAll } from '../events/events-helpers.ts';
import { buildTestApp, makeTenant, type TestApp, tokenFor } from '../harness.ts';
import { assertError, ok, request } from './menu-helpers.ts';

/* /v1/menu/products: create, read, change, delete, lists, labels, external_id, events, scopes. */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const now = () => t.clock.now().toISOString();
const menuEvents = async (token: string) =>
  (await feedAll(t, token, '&types=menu.product.*')).map((event) => ({ type: event.type, data: event.data }));

describe('create, retrieve, change, delete', () => {
  test('a new product answers 201 with every field; defaults; last in its category without a position', async () => {
    const tenant = await makeTenant(t.ctx);
    const pizza = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Pizza' });
    const res = await request(t, tenant.token, 'POST', '/menu/products', {
      external_id: 'prod-1',
      category_id: pizza.id,
      name: ' Margherita ',
      description: 'Tomato, mozzarella',
      price: 950,
      available: false,
      allergens: [' gluten', 'milk', 'gluten', 'Senf'],
      diets: ['vegetarian', 'Hausgemacht', 'vegetarian'],
      image_url: 'https://images.example.com/m.jpg',
      tax_class: 'food',
    });
    assert.equal(res.statusCode, 201, res.body);
    const product = res.json();
    assert.deepEqual(product, {
      object: 'product',
      id: product.id,
      external_id: 'prod-1',
      category_id: pizza.id,
      name: 'Margherita',
      description: 'Tomato, mozzarella',
      price: 950,
      available: false,
      unavailable_until: null,
      position: 0,
      allergens: ['gluten', 'milk', 'mustard'],
      diets: ['vegetarian', 'Hausgemacht'],
      image_url: 'https://images.example.com/m.jpg',
      // No downloader in this app (images.test.ts has one): the picture waits for the worker.
      images: { status: 'pending', urls: null, error: null },
      tax_class: 'food',
      tax_rates: { dine_in_bps: 700, takeaway_bps: 700 },
      option_group_ids: [],
      created_at: now(),
      updated_at: now(),
    });
    const plain = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Water', price: 0 });
    assert.deepEqual(
      [plain.category_id, plain.description, plain.available, plain.position, plain.allergens, plain.diets],
      [null, null, true, 0, [], []],
    );
    assert.equal(plain.image_url, null);
    assert.equal(plain.tax_class, null);
    const second = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Funghi',
      price: 1000,
      category_id: pizza.id,
    });
    assert.equal(second.position, 1);
    assert.equal(
      (await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Cola', price: 300 })).position,
      1,
    );
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`), product);
  });

  test('PATCH changes only the sent fields, null clears, events carry changed and previous; no change, no event', async () => {
    const tenant = await makeTenant(t.ctx);
    const pizza = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Pizza' });
    const created = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Margherita',
      price: 950,
      category_id: pizza.id,
      description: 'Classic',
      image_url: 'https://images.example.com/m.jpg',
      tax_class: 'drink',
      external_id: 'p-1',
      allergens: ['gluten'],
    });
    t.clock.advance(60_000);
    const cheaper = await ok(t, tenant.token, 'PATCH', `/menu/products/${created.id}`, {
      price: 900,
      available: false,
    });
    assert.deepEqual(cheaper, { ...created, price: 900, available: false, updated_at: now() });
    t.clock.advance(60_000);
    const cleared = await ok(t, tenant.token, 'PATCH', `/menu/products/${created.id}`, {
      category_id: null,
      description: null,
      image_url: null,
      tax_class: null,
      external_id: null,
      allergens: [],
    });
    const expected = {
      ...cheaper,
      category_id: null,
      description: null,
      image_url: null,
      images: null,
      tax_class: null,
      // No class of its own nor a category's: food, 7 % in Germany.
      tax_rates: { dine_in_bps: 700, takeaway_bps: 700 },
      external_id: null,
      allergens: [],
      updated_at: now(),
    };
    assert.deepEqual(cleared, expected);
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${created.id}`), expected);
    t.clock.advance(60_000);
    for (const body of [
      {},
      { price: 900 },
      { allergens: [], diets: [], category_id: null, name: ' Margherita ' },
    ])
      assert.deepEqual(await ok(t, tenant.token, 'PATCH', `/menu/products/${created.id}`, body), expected);

    const events = await menuEvents(tenant.token);
    assert.deepEqual(
      events.map((event) => event.type),
      ['menu.product.created', 'menu.product.updated', 'menu.product.updated'],
    );
    assert.deepEqual(events[0]?.data, { object: { ...created, external_id: null } });
    assert.deepEqual(events[1]?.data, {
      object: { ...cheaper, external_id: null },
      changed: ['price', 'available'],
      previous: { price: 950, available: true },
    });
    assert.deepEqual(events[2]?.data, {
      object: expected,
      changed: ['external_id', 'category_id', 'description', 'allergens', 'image_url', 'tax_class'],
      previous: {
        external_id: null,
        category_id: pizza.id,
        description: 'Classic',
        allergens: ['gluten'],
        image_url: 'https://images.example.com/m.jpg',
        tax_class: 'drink',
      },
    });
  });

  test('DELETE answers {object, id, deleted} and emits menu.product.deleted with the product as it was', async () => {
    const tenant = await makeTenant(t.ctx);
    const product = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Margherita',
      price: 950,
      external_id: 'gone',
    });
    assert.deepEqual(await ok(t, tenant.token, 'DELETE', `/menu/products/${product.id}`), {
      object: 'product',
      id: product.id,
      deleted: true,
    });
    assertError(await request(t, tenant.token, 'GET', `/menu/products/${product.id}`), 404, 'not_found');
    assertError(
      await request(t, tenant.token, 'PATCH', `/menu/products/${product.id}`, { price: 1 }),
      404,
      'not_found',
    );
    assertError(await request(t, tenant.token, 'DELETE', `/menu/products/${product.id}`), 404, 'not_found');
    assert.deepEqual((await menuEvents(tenant.token)).at(-1), {
      type: 'menu.product.deleted',
      data: { object: { ...product, external_id: null } },
    });
    // Its external_id is free again.
    await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Margherita',
      price: 950,
      external_id: 'gone',
    });
  });
});

describe('external_id', () => {
  test('seen only by its app; a value the app already uses for another product → 409 external_id_taken', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await connectAnotherApp(t.ctx, tenant);
    const mine = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'A',
      price: 1,
      external_id: 'x-1',
    });
    const theirs = await ok(t, other.token, 'POST', '/menu/products', {
      name: 'B',
      price: 2,
      external_id: 'x-2',
    });
    assert.equal((await ok(t, other.token, 'GET', `/menu/products/${mine.id}`)).external_id, null);
    assert.equal((await ok(t, tenant.token, 'GET', `/menu/products/${theirs.id}`)).external_id, null);
    assert.equal((await ok(t, other.token, 'GET', `/menu/products/${theirs.id}`)).external_id, 'x-2');
    assert.deepEqual(
      (await ok(t, tenant.token, 'GET', '/menu/products?external_id=x-1')).data.map(
        (p: { id: string }) => p.id,
      ),
      [mine.id],
    );
    assert.deepEqual((await ok(t, tenant.token, 'GET', '/menu/products?external_id=x-2')).data, []);
    for (const [token, value, target] of [
      [tenant.token, 'x-1', theirs.id],
      [other.token, 'x-2', mine.id],
    ] as const) {
      assertError(
        await request(t, token, 'PATCH', `/menu/products/${target}`, { external_id: value, price: 99 }),
        409,
        'external_id_taken',
        'external_id',
      );
      assertError(
        await request(t, token, 'POST', '/menu/products', { name: 'C', price: 3, external_id: value }),
        409,
        'external_id_taken',
        'external_id',
      );
    }
    assert.equal((await ok(t, tenant.token, 'GET', `/menu/products/${mine.id}`)).price, 1);
    assert.equal((await ok(t, tenant.token, 'GET', '/menu')).products.length, 2);
  });
});

describe('lists', () => {
  test('filters category_id (ids, none), available, updated_since; pages in ascending updated_at', async () => {
    const tenant = await makeTenant(t.ctx);
    const pizza = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Pizza' });
    const pasta = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Pasta' });
    const start = t.clock.now().getTime();
    const made = [];
    for (const [i, category] of [pizza.id, pasta.id, null, pizza.id, null].entries()) {
      made.push(
        await ok(t, tenant.token, 'POST', '/menu/products', {
          name: `P${i}`,
          price: 100 * i,
          category_id: category,
          available: i % 2 === 0,
        }),
      );
      t.clock.advance(60_000);
    }
    const ids = made.map((product) => product.id);
    const listed = async (query: string) => {
      const all: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { data: { id: string }[]; next_cursor: string | null } = await ok(
          t,
          tenant.token,
          'GET',
          `/menu/products?limit=2${query}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        all.push(...page.data.map((product) => product.id));
        cursor = page.next_cursor;
      } while (cursor !== null);
      return all;
    };
    assert.deepEqual(await listed(''), ids);
    assert.deepEqual(await listed(`&category_id=${pizza.id}`), [ids[0], ids[3]]);
    assert.deepEqual(await listed('&category_id=none'), [ids[2], ids[4]]);
    assert.deepEqual(await listed(`&category_id=${pasta.id},none`), [ids[1], ids[2], ids[4]]);
    assert.deepEqual(await listed('&available=true'), [ids[0], ids[2], ids[4]]);
    assert.deepEqual(await listed('&available=false'), [ids[1], ids[3]]);
    assert.deepEqual(await listed(`&updated_since=${new Date(start + 60_000).toISOString()}`), ids.slice(2));
    assert.deepEqual(await listed(`&available=true&category_id=none`), [ids[2], ids[4]]);
    // A change moves a product to the end.
    await ok(t, tenant.token, 'PATCH', `/menu/products/${ids[0]}`, { available: false });
    assert.deepEqual(await listed('&available=false'), [ids[1], ids[3], ids[0]]);
    for (const query of [
      'category_id=pizza',
      'category_id=',
      `category_id=${pizza.id},`,
      'available=yes',
      'updated_since=now',
      'colour=red',
    ]) {
      const res = await request(t, tenant.token, 'GET', `/menu/products?${query}`);
      assertError(res, 400, 'invalid_request', query.split('=')[0]);
    }
  });
});

describe('refused input changes nothing', () => {
  test('out-of-rule fields are 400 naming the field, on create and change', async () => {
    const tenant = await makeTenant(t.ctx);
    const stranger = await makeTenant(t.ctx);
    const theirCategory = await ok(t, stranger.token, 'POST', '/menu/categories', { name: 'Theirs' });
    const product = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Margherita', price: 950 });
    const own = (n: number, length = 5) => Array.from({ length: n }, (_, i) => `${i}`.padStart(length, 'x'));
    const bad: [Record<string, unknown>, string][] = [
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: ' ' }, 'name'],
      [{ description: 'x'.repeat(2001) }, 'description'],
      [{ price: -1 }, 'price'],
      [{ price: 9.5 }, 'price'],
      [{ price: '950' }, 'price'],
      [{ tax_class: 'reduced' }, 'tax_class'],
      [{ external_id: ' spaced' }, 'external_id'],
      [{ external_id: 'ctrl\u0001' }, 'external_id'],
      [{ allergens: own(35, 1).map((_, i) => `a${i}`) }, 'allergens'],
      [{ allergens: own(21) }, 'allergens'],
      [{ allergens: ['gluten', 'x'.repeat(41)] }, 'allergens[1]'],
      [{ allergens: ['gluten', '  '] }, 'allergens[1]'],
      [{ diets: own(15) }, 'diets'],
      [{ diets: ['x'.repeat(61)] }, 'diets[0]'],
      [{ image_url: 'http://images.example.com/m.jpg' }, 'image_url'],
      [{ image_url: 'not a url' }, 'image_url'],
      [{ image_url: 'https://' }, 'image_url'],
      [{ category_id: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1d01' }, 'category_id'],
      [{ category_id: theirCategory.id }, 'category_id'],
      [{ category_id: 'pizza' }, 'category_id'],
      [{ option_group_ids: ['pizza'] }, 'option_group_ids[0]'],
      [{ option_group_ids: ['0199c3a1-7b40-7c1e-8a52-3f6d2e9b1d01'] }, 'option_group_ids[0]'],
    ];
    for (const [body, param] of bad) {
      assertError(
        await request(t, tenant.token, 'POST', '/menu/products', { name: 'New', price: 1, ...body }),
        400,
        'invalid_request',
        param,
      );
      assertError(
        await request(t, tenant.token, 'PATCH', `/menu/products/${product.id}`, body),
        400,
        'invalid_request',
        param,
      );
    }
    // At the limits: 14 keys and 20 own labels of 40 characters; 6 keys and 14 own diets of 60.
    const limits = await ok(t, tenant.token, 'PATCH', `/menu/products/${product.id}`, {
      allergens: [
        'gluten',
        'crustaceans',
        'eggs',
        'fish',
        'peanuts',
        'soybeans',
        'milk',
        'nuts',
        'celery',
        'mustard',
        'sesame',
        'sulphites',
        'lupin',
        'molluscs',
        ...own(20, 40),
      ],
      diets: ['vegetarian', 'vegan', 'gluten_free', 'lactose_free', 'halal', 'kosher', ...own(14, 60)],
      description: 'x'.repeat(2000),
      name: 'y'.repeat(200),
    });
    assert.equal(limits.allergens.length, 34);
    assert.equal(limits.diets.length, 20);
    const menu = await ok(t, tenant.token, 'GET', '/menu');
    assert.deepEqual(menu.products, [limits]);
    assert.deepEqual(
      (await menuEvents(tenant.token)).map((event) => event.type),
      ['menu.product.created', 'menu.product.updated'],
    );
  });

  test('another restaurant’s product is 404; a malformed id is 400 on id; scopes', async () => {
    const tenant = await makeTenant(t.ctx);
    const stranger = await makeTenant(t.ctx);
    const theirs = await ok(t, stranger.token, 'POST', '/menu/products', { name: 'Theirs', price: 5 });
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const body = method === 'PATCH' ? { price: 1 } : undefined;
      assertError(
        await request(t, tenant.token, method, `/menu/products/${theirs.id}`, body),
        404,
        'not_found',
      );
      assertError(
        await request(t, tenant.token, method, '/menu/products/12', body),
        400,
        'invalid_request',
        'id',
      );
    }
    assert.deepEqual(await ok(t, stranger.token, 'GET', `/menu/products/${theirs.id}`), theirs);
    const reader = await tokenFor(t.ctx, tenant, ['menu:read']);
    const mine = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Mine', price: 5 });
    await ok(t, reader, 'GET', '/menu/products');
    await ok(t, reader, 'GET', `/menu/products/${mine.id}`);
    for (const [method, url, body] of [
      ['POST', '/menu/products', { name: 'New', price: 1 }],
      ['PATCH', `/menu/products/${mine.id}`, { price: 1 }],
      ['DELETE', `/menu/products/${mine.id}`, undefined],
    ] as const)
      assertError(await request(t, reader, method, url, body), 403, 'insufficient_scope');
    const storeOnly = await tokenFor(t.ctx, tenant, ['store:read']);
    assertError(await request(t, storeOnly, 'GET', '/menu/products'), 403, 'insufficient_scope');
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${mine.id}`), mine);
  });
});
