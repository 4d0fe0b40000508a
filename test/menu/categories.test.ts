import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectAnotherApp, feedAll } from '../events/events-helpers.ts';
import { buildTestApp, makeTenant, type TestApp, tokenFor } from '../harness.ts';
import { assertError, ok, request } from './menu-helpers.ts';

/* /v1/menu/categories: create, read, change, delete, lists, external_id, events, scopes. */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const menuEvents = async (token: string) =>
  (await feedAll(t, token, '&types=menu.*')).map((event) => ({ type: event.type, data: event.data }));

describe('create, retrieve, change, delete', () => {
  test('a new category answers 201 with every field; without a position it goes last', async () => {
    const tenant = await makeTenant(t.ctx);
    const res = await request(t, tenant.token, 'POST', '/menu/categories', {
      name: '  Pizza ',
      external_id: 'cat-pizza',
      tax_class: 'food',
    });
    assert.equal(res.statusCode, 201, res.body);
    const pizza = res.json();
    assert.deepEqual(pizza, {
      object: 'category',
      id: pizza.id,
      external_id: 'cat-pizza',
      name: 'Pizza',
      position: 0,
      tax_class: 'food',
      created_at: '2026-11-02T10:00:00.000Z',
      updated_at: pizza.created_at,
    });
    const drinks = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Drinks' });
    assert.equal(drinks.position, 1);
    assert.equal(drinks.tax_class, null);
    assert.equal(drinks.external_id, null);
    const placed = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Desserts', position: 10 });
    assert.equal(placed.position, 10);
    assert.equal((await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Wine' })).position, 11);
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/categories/${pizza.id}`), pizza);
  });

  test('PATCH changes only the sent fields; null clears; the event names changed fields with their previous values', async () => {
    const tenant = await makeTenant(t.ctx);
    const created = await ok(t, tenant.token, 'POST', '/menu/categories', {
      name: 'Pizza',
      external_id: 'cat-1',
      tax_class: 'drink',
      position: 4,
    });
    t.clock.advance(60_000);
    const renamed = await ok(t, tenant.token, 'PATCH', `/menu/categories/${created.id}`, { name: 'Pizzas' });
    assert.deepEqual(renamed, { ...created, name: 'Pizzas', updated_at: '2026-11-02T10:01:00.000Z' });
    t.clock.advance(60_000);
    const cleared = await ok(t, tenant.token, 'PATCH', `/menu/categories/${created.id}`, {
      tax_class: null,
      external_id: null,
      position: 2,
    });
    assert.deepEqual(cleared, {
      ...renamed,
      tax_class: null,
      external_id: null,
      position: 2,
      updated_at: '2026-11-02T10:02:00.000Z',
    });
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/categories/${created.id}`), cleared);

    const events = await menuEvents(tenant.token);
    assert.deepEqual(
      events.map((event) => event.type),
      ['menu.category.created', 'menu.category.updated', 'menu.category.updated'],
    );
    assert.deepEqual(events[0]?.data, { object: { ...created, external_id: null } });
    assert.deepEqual(events[1]?.data, {
      object: { ...renamed, external_id: null },
      changed: ['name'],
      previous: { name: 'Pizza' },
    });
    assert.deepEqual(events[2]?.data, {
      object: { ...cleared, external_id: null },
      changed: ['external_id', 'position', 'tax_class'],
      previous: { external_id: null, position: 4, tax_class: 'drink' },
    });
  });

  test('a PATCH that changes nothing keeps updated_at and emits nothing', async () => {
    const tenant = await makeTenant(t.ctx);
    const created = await ok(t, tenant.token, 'POST', '/menu/categories', {
      name: 'Pizza',
      external_id: 'same',
      tax_class: 'food',
    });
    t.clock.advance(60_000);
    for (const body of [
      {},
      { name: 'Pizza' },
      { name: ' Pizza ', external_id: 'same', tax_class: 'food', position: 0 },
    ]) {
      assert.deepEqual(await ok(t, tenant.token, 'PATCH', `/menu/categories/${created.id}`, body), created);
    }
    assert.deepEqual(
      (await menuEvents(tenant.token)).map((event) => event.type),
      ['menu.category.created'],
    );
  });

  test('DELETE answers {object, id, deleted}; its products move to no category, each with its event', async () => {
    const tenant = await makeTenant(t.ctx);
    const category = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Pizza' });
    const other = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Pasta' });
    const inIt = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Margherita',
      price: 900,
      category_id: category.id,
    });
    const elsewhere = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Carbonara',
      price: 1100,
      category_id: other.id,
    });
    t.clock.advance(60_000);
    assert.deepEqual(await ok(t, tenant.token, 'DELETE', `/menu/categories/${category.id}`), {
      object: 'category',
      id: category.id,
      deleted: true,
    });
    assertError(await request(t, tenant.token, 'GET', `/menu/categories/${category.id}`), 404, 'not_found');
    assertError(
      await request(t, tenant.token, 'DELETE', `/menu/categories/${category.id}`),
      404,
      'not_found',
    );
    const moved = await ok(t, tenant.token, 'GET', `/menu/products/${inIt.id}`);
    assert.deepEqual(moved, { ...inIt, category_id: null, updated_at: t.clock.now().toISOString() });
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${elsewhere.id}`), elsewhere);

    const events = (await menuEvents(tenant.token)).slice(4);
    assert.deepEqual(events, [
      {
        type: 'menu.product.updated',
        data: { object: moved, changed: ['category_id'], previous: { category_id: category.id } },
      },
      { type: 'menu.category.deleted', data: { object: category } },
    ]);
  });
});

describe('external_id', () => {
  test('only the app that set it sees it; other apps and events see null', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await connectAnotherApp(t.ctx, tenant);
    const created = await ok(t, tenant.token, 'POST', '/menu/categories', {
      name: 'Pizza',
      external_id: 'mine',
    });
    assert.equal(created.external_id, 'mine');
    assert.equal((await ok(t, other.token, 'GET', `/menu/categories/${created.id}`)).external_id, null);
    assert.deepEqual((await ok(t, other.token, 'GET', '/menu/categories')).data, [
      { ...created, external_id: null },
    ]);
    assert.equal((await ok(t, other.token, 'GET', '/menu')).categories[0].external_id, null);
    assert.equal((await ok(t, tenant.token, 'GET', '/menu')).categories[0].external_id, 'mine');
    // Filtering by another app's value finds nothing.
    assert.deepEqual((await ok(t, other.token, 'GET', '/menu/categories?external_id=mine')).data, []);
    assert.equal((await ok(t, tenant.token, 'GET', '/menu/categories?external_id=mine')).data.length, 1);
    // The other app clearing "its" external_id leaves the first app's value.
    await ok(t, other.token, 'PATCH', `/menu/categories/${created.id}`, { external_id: null });
    assert.equal((await ok(t, tenant.token, 'GET', `/menu/categories/${created.id}`)).external_id, 'mine');
    for (const event of await feedAll(t, other.token, '&types=menu.*'))
      assert.equal((event.data.object as { external_id: unknown }).external_id, null);
    for (const event of await feedAll(t, tenant.token, '&types=menu.*'))
      assert.equal((event.data.object as { external_id: unknown }).external_id, null);
  });

  test('a value the app already uses for another category is 409 external_id_taken; nothing changes', async () => {
    const tenant = await makeTenant(t.ctx);
    const first = await ok(t, tenant.token, 'POST', '/menu/categories', {
      name: 'Pizza',
      external_id: 'taken',
    });
    const second = await ok(t, tenant.token, 'POST', '/menu/categories', {
      name: 'Pasta',
      external_id: 'free',
    });
    assertError(
      await request(t, tenant.token, 'POST', '/menu/categories', { name: 'Salads', external_id: 'taken' }),
      409,
      'external_id_taken',
      'external_id',
    );
    assertError(
      await request(t, tenant.token, 'PATCH', `/menu/categories/${second.id}`, {
        external_id: 'taken',
        name: 'X',
      }),
      409,
      'external_id_taken',
      'external_id',
    );
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/categories/${second.id}`), second);
    assert.equal((await ok(t, tenant.token, 'GET', '/menu')).categories.length, 2);
    // Its own value again on the same category is no conflict; the same value in another restaurant neither.
    assert.deepEqual(
      await ok(t, tenant.token, 'PATCH', `/menu/categories/${first.id}`, { external_id: 'taken' }),
      first,
    );
    const elsewhere = await makeTenant(t.ctx);
    await ok(t, elsewhere.token, 'POST', '/menu/categories', { name: 'Pizza', external_id: 'taken' });
    // A product may use a category's value: unique per kind.
    await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Margherita',
      price: 900,
      external_id: 'taken',
    });
  });
});

describe('lists', () => {
  test('ascending updated_at across pages; filters external_id and updated_since; a cursor keeps its filters', async () => {
    const tenant = await makeTenant(t.ctx);
    const start = t.clock.now().getTime();
    const at = (minutes: number, offset = false) =>
      offset
        ? new Date(start + (minutes + 60) * 60_000).toISOString().replace('Z', '%2B01:00')
        : new Date(start + minutes * 60_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push(
        (await ok(t, tenant.token, 'POST', '/menu/categories', { name: `C${i}`, external_id: `c-${i}` })).id,
      );
      t.clock.advance(60_000);
    }
    // A change moves the first one to the end.
    await ok(t, tenant.token, 'PATCH', `/menu/categories/${ids[0]}`, { name: 'Changed' });
    const order = [...ids.slice(1), ids[0]];
    const first = await ok(t, tenant.token, 'GET', '/menu/categories?limit=2');
    assert.equal(first.has_more, true);
    const second = await ok(t, tenant.token, 'GET', `/menu/categories?limit=2&cursor=${first.next_cursor}`);
    const last = await ok(t, tenant.token, 'GET', `/menu/categories?limit=2&cursor=${second.next_cursor}`);
    assert.equal(last.has_more, false);
    assert.equal(last.next_cursor, null);
    assert.deepEqual(
      [...first.data, ...second.data, ...last.data].map((category: { id: string }) => category.id),
      order,
    );

    const one = await ok(t, tenant.token, 'GET', '/menu/categories?external_id=c-3');
    assert.deepEqual(
      one.data.map((category: { id: string }) => category.id),
      [ids[3]],
    );
    // Exclusive: the one changed exactly at updated_since is not listed.
    const since = await ok(t, tenant.token, 'GET', `/menu/categories?updated_since=${at(2)}`);
    assert.deepEqual(
      since.data.map((category: { id: string }) => category.id),
      [ids[3], ids[4], ids[0]],
    );
    const offset = await ok(t, tenant.token, 'GET', `/menu/categories?updated_since=${at(2, true)}&limit=1`);
    assert.deepEqual(
      offset.data.map((category: { id: string }) => category.id),
      [ids[3]],
    );
    const more = await ok(
      t,
      tenant.token,
      'GET',
      `/menu/categories?updated_since=${at(2, true)}&limit=5&cursor=${offset.next_cursor}`,
    );
    assert.deepEqual(
      more.data.map((category: { id: string }) => category.id),
      [ids[4], ids[0]],
    );
    assertError(
      await request(t, tenant.token, 'GET', `/menu/categories?cursor=${offset.next_cursor}`),
      400,
      'invalid_request',
      'cursor',
    );
    assertError(
      await request(
        t,
        tenant.token,
        'GET',
        `/menu/products?updated_since=${at(2, true)}&cursor=${offset.next_cursor}`,
      ),
      400,
      'invalid_request',
      'cursor',
    );
    for (const query of [
      'updated_since=2026-11-02T10:02:00',
      'updated_since=yesterday',
      'external_id=%20x',
      'category_id=none',
      'available=true',
    ]) {
      const res = await request(t, tenant.token, 'GET', `/menu/categories?${query}`);
      assertError(res, 400, 'invalid_request', query.split('=')[0]);
    }
  });
});

describe('refused input changes nothing', () => {
  test('names, external_ids and tax classes out of the rules are 400 naming the field', async () => {
    const tenant = await makeTenant(t.ctx);
    const created = await ok(t, tenant.token, 'POST', '/menu/categories', {
      name: 'Pizza',
      external_id: 'ok',
    });
    const bad: [Record<string, unknown>, string][] = [
      [{ name: 'x'.repeat(81) }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'Piz\u0007za' }, 'name'],
      [{ external_id: ' lead' }, 'external_id'],
      [{ external_id: 'trail ' }, 'external_id'],
      [{ external_id: 'tab\there' }, 'external_id'],
      [{ external_id: 'new\nline' }, 'external_id'],
      [{ external_id: '' }, 'external_id'],
      [{ external_id: 'x'.repeat(101) }, 'external_id'],
      [{ tax_class: 'luxury' }, 'tax_class'],
      [{ position: -1 }, 'position'],
      [{ position: 1.5 }, 'position'],
      [{ colour: 'red' }, 'colour'],
    ];
    for (const [body, param] of bad) {
      assertError(
        await request(t, tenant.token, 'POST', '/menu/categories', { name: 'New', ...body }),
        400,
        'invalid_request',
        param,
      );
      assertError(
        await request(t, tenant.token, 'PATCH', `/menu/categories/${created.id}`, body),
        400,
        'invalid_request',
        param,
      );
    }
    // 80 characters (emoji count once) is fine.
    await ok(t, tenant.token, 'POST', '/menu/categories', {
      name: '🍕'.repeat(80),
      external_id: 'x'.repeat(100),
    });
    const menu = await ok(t, tenant.token, 'GET', '/menu');
    assert.equal(menu.categories.length, 2);
    assert.deepEqual(menu.categories[0], created);
    assert.deepEqual((await menuEvents(tenant.token)).length, 2);
  });

  test('another restaurant’s category is 404 not_found; a malformed id is 400 on id', async () => {
    const tenant = await makeTenant(t.ctx);
    const stranger = await makeTenant(t.ctx);
    const theirs = await ok(t, stranger.token, 'POST', '/menu/categories', { name: 'Theirs' });
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const body = method === 'PATCH' ? { name: 'Mine now' } : undefined;
      assertError(
        await request(t, tenant.token, method, `/menu/categories/${theirs.id}`, body),
        404,
        'not_found',
      );
      assertError(
        await request(t, tenant.token, method, '/menu/categories/not-a-uuid', body),
        400,
        'invalid_request',
        'id',
      );
    }
    assert.deepEqual(await ok(t, stranger.token, 'GET', `/menu/categories/${theirs.id}`), theirs);
    assert.deepEqual((await ok(t, tenant.token, 'GET', '/menu/categories')).data, []);
  });
});

describe('scopes', () => {
  test('menu:read reads but cannot write (403 insufficient_scope); without menu:read nothing is read', async () => {
    const tenant = await makeTenant(t.ctx);
    const category = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Pizza' });
    const reader = await tokenFor(t.ctx, tenant, ['menu:read']);
    const writer = await tokenFor(t.ctx, tenant, ['menu:write']);
    await ok(t, reader, 'GET', '/menu/categories');
    await ok(t, reader, 'GET', `/menu/categories/${category.id}`);
    await ok(t, reader, 'GET', '/menu');
    for (const [method, url, body] of [
      ['POST', '/menu/categories', { name: 'New' }],
      ['PATCH', `/menu/categories/${category.id}`, { name: 'New' }],
      ['DELETE', `/menu/categories/${category.id}`, undefined],
    ] as const) {
      const res = await request(t, reader, method, url, body);
      assertError(res, 403, 'insufficient_scope');
      assert.match(String(res.headers['www-authenticate']), /scope="menu:write"/);
    }
    for (const url of ['/menu', '/menu/categories', `/menu/categories/${category.id}`])
      assertError(await request(t, writer, 'GET', url), 403, 'insufficient_scope');
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/categories/${category.id}`), category);
  });
});
