import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectAnotherApp, feedAll } from '../events/events-helpers.ts';
import { buildTestApp, makeTenant, type TestApp, tokenFor } from '../harness.ts';
import { assertError, ok, request } from './menu-helpers.ts';

/*
 * /v1/menu/option-groups: create, read, change, delete, lists, external_id, events, scopes, and the
 * products using a group: option_group_ids (linking shared groups) and updated_at moving with them.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const now = () => t.clock.now().toISOString();
const menuEvents = async (token: string, types = 'menu.*') =>
  (await feedAll(t, token, `&types=${types}`)).map((event) => ({ type: event.type, data: event.data }));
const ids = (items: { id: string }[]) => items.map((item) => item.id);

describe('create, retrieve, change, delete', () => {
  test('a new group answers 201 with every field; defaults; last among its product’s or the shared groups', async () => {
    const tenant = await makeTenant(t.ctx);
    const product = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Margherita', price: 950 });
    const res = await request(t, tenant.token, 'POST', '/menu/option-groups', {
      name: '  Extras ',
      external_id: 'grp-1',
      min_select: 1,
      max_select: 3,
    });
    assert.equal(res.statusCode, 201, res.body);
    const extras = res.json();
    assert.deepEqual(extras, {
      object: 'option_group',
      id: extras.id,
      external_id: 'grp-1',
      name: 'Extras',
      min_select: 1,
      max_select: 3,
      position: 0,
      product_id: null,
      options: [],
      updated_at: now(),
    });
    const sauces = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Sauces' });
    assert.deepEqual(
      [sauces.min_select, sauces.max_select, sauces.position, sauces.product_id, sauces.external_id],
      [0, 1, 1, null, null],
    );
    // A product's own groups count from 0 among that product's groups.
    const size = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'Size',
      product_id: product.id,
    });
    assert.deepEqual([size.position, size.product_id], [0, product.id]);
    const placed = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Dips', position: 9 });
    assert.equal(placed.position, 9);
    assert.equal((await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'More' })).position, 10);
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/option-groups/${extras.id}`), extras);
    // min_select equal to max_select is fine; 20 is the most.
    await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'All', min_select: 20, max_select: 20 });
  });

  test('a group comes with its options in order, sold-out ones included; options do not move its updated_at', async () => {
    const tenant = await makeTenant(t.ctx);
    const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
    t.clock.advance(60_000);
    const b = await ok(t, tenant.token, 'POST', `/menu/option-groups/${group.id}/options`, {
      name: 'B',
      price_delta: 100,
      position: 2,
    });
    const a = await ok(t, tenant.token, 'POST', `/menu/option-groups/${group.id}/options`, {
      name: 'A',
      price_delta: -50,
      position: 1,
      available: false,
    });
    const read = await ok(t, tenant.token, 'GET', `/menu/option-groups/${group.id}`);
    assert.deepEqual(read, { ...group, options: [a, b] });
    assert.deepEqual((await ok(t, tenant.token, 'GET', '/menu/option-groups')).data, [read]);
    assert.deepEqual((await ok(t, tenant.token, 'GET', '/menu')).option_groups, [read]);
  });

  test('PATCH changes only the sent fields; null clears; events name changed fields with previous values', async () => {
    const tenant = await makeTenant(t.ctx);
    const product = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Margherita', price: 950 });
    const created = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'Extras',
      external_id: 'g-1',
      max_select: 2,
    });
    t.clock.advance(60_000);
    const renamed = await ok(t, tenant.token, 'PATCH', `/menu/option-groups/${created.id}`, {
      name: 'Toppings',
      min_select: 1,
    });
    assert.deepEqual(renamed, { ...created, name: 'Toppings', min_select: 1, updated_at: now() });
    t.clock.advance(60_000);
    const moved = await ok(t, tenant.token, 'PATCH', `/menu/option-groups/${created.id}`, {
      external_id: null,
      max_select: 5,
      position: 7,
      product_id: product.id,
    });
    assert.deepEqual(moved, {
      ...renamed,
      external_id: null,
      max_select: 5,
      position: 7,
      product_id: product.id,
      updated_at: now(),
    });
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/option-groups/${created.id}`), moved);
    const events = await menuEvents(tenant.token, 'menu.option_group.*');
    assert.deepEqual(events, [
      { type: 'menu.option_group.created', data: { object: { ...created, external_id: null } } },
      {
        type: 'menu.option_group.updated',
        data: {
          object: { ...renamed, external_id: null },
          changed: ['name', 'min_select'],
          previous: { name: 'Extras', min_select: 0 },
        },
      },
      {
        type: 'menu.option_group.updated',
        data: {
          object: moved,
          changed: ['external_id', 'max_select', 'position', 'product_id'],
          previous: { external_id: null, max_select: 2, position: 0, product_id: null },
        },
      },
    ]);
  });

  test('a PATCH that changes nothing keeps updated_at and emits nothing', async () => {
    const tenant = await makeTenant(t.ctx);
    const product = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Margherita', price: 950 });
    const created = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'Extras',
      external_id: 'same',
      product_id: product.id,
      max_select: 3,
    });
    const productBefore = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
    const eventsBefore = (await menuEvents(tenant.token)).length;
    t.clock.advance(60_000);
    for (const body of [
      {},
      { name: ' Extras ' },
      { external_id: 'same', min_select: 0, max_select: 3, position: 0, product_id: product.id },
    ]) {
      assert.deepEqual(
        await ok(t, tenant.token, 'PATCH', `/menu/option-groups/${created.id}`, body),
        created,
      );
    }
    assert.equal((await menuEvents(tenant.token)).length, eventsBefore);
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`), productBefore);
  });

  test('DELETE answers {object, id, deleted}; its options go with it, each with its event, then the group’s', async () => {
    const tenant = await makeTenant(t.ctx);
    const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
    const keep = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Sauces' });
    const o1 = await ok(t, tenant.token, 'POST', `/menu/option-groups/${group.id}/options`, {
      name: 'Cheese',
      price_delta: 100,
    });
    const o2 = await ok(t, tenant.token, 'POST', `/menu/option-groups/${group.id}/options`, {
      name: 'Olives',
      price_delta: 50,
    });
    const other = await ok(t, tenant.token, 'POST', `/menu/option-groups/${keep.id}/options`, {
      name: 'Garlic',
      price_delta: 0,
    });
    const full = await ok(t, tenant.token, 'GET', `/menu/option-groups/${group.id}`);
    const before = (await menuEvents(tenant.token)).length;
    t.clock.advance(60_000);
    assert.deepEqual(await ok(t, tenant.token, 'DELETE', `/menu/option-groups/${group.id}`), {
      object: 'option_group',
      id: group.id,
      deleted: true,
    });
    for (const url of [`/menu/option-groups/${group.id}`, `/menu/options/${o1.id}`, `/menu/options/${o2.id}`])
      assertError(await request(t, tenant.token, 'GET', url), 404, 'not_found');
    assertError(
      await request(t, tenant.token, 'DELETE', `/menu/option-groups/${group.id}`),
      404,
      'not_found',
    );
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/options/${other.id}`), other);
    assert.deepEqual(ids((await ok(t, tenant.token, 'GET', '/menu/options')).data), [other.id]);
    assert.deepEqual((await menuEvents(tenant.token)).slice(before), [
      { type: 'menu.option.deleted', data: { object: o1 } },
      { type: 'menu.option.deleted', data: { object: o2 } },
      { type: 'menu.option_group.deleted', data: { object: full } },
    ]);
  });
});

describe('the products using a group', () => {
  test('option_group_ids links shared groups in order, after the product’s own; the list replaces the links', async () => {
    const tenant = await makeTenant(t.ctx);
    const x = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'X' });
    const y = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Y' });
    const z = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Z' });
    const product = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Margherita',
      price: 950,
      option_group_ids: [y.id, x.id],
    });
    assert.deepEqual(product.option_group_ids, [y.id, x.id]);
    const own2 = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'Own 2',
      product_id: product.id,
      position: 5,
    });
    const own1 = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'Own 1',
      product_id: product.id,
      position: 1,
    });
    const read = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
    assert.deepEqual(read.option_group_ids, [own1.id, own2.id, y.id, x.id]);
    // Sending back the list as read keeps it (its own groups are linked by themselves).
    t.clock.advance(60_000);
    assert.deepEqual(
      await ok(t, tenant.token, 'PATCH', `/menu/products/${product.id}`, {
        option_group_ids: read.option_group_ids,
      }),
      read,
    );
    const before = (await menuEvents(tenant.token)).length;
    const relinked = await ok(t, tenant.token, 'PATCH', `/menu/products/${product.id}`, {
      option_group_ids: [x.id, z.id],
    });
    assert.deepEqual(relinked, {
      ...read,
      option_group_ids: [own1.id, own2.id, x.id, z.id],
      updated_at: now(),
    });
    const cleared = await ok(t, tenant.token, 'PATCH', `/menu/products/${product.id}`, {
      option_group_ids: [],
    });
    assert.deepEqual(cleared.option_group_ids, [own1.id, own2.id]);
    assert.deepEqual((await menuEvents(tenant.token)).slice(before), [
      {
        type: 'menu.product.updated',
        data: {
          object: relinked,
          changed: ['option_group_ids'],
          previous: { option_group_ids: read.option_group_ids },
        },
      },
      {
        type: 'menu.product.updated',
        data: {
          object: cleared,
          changed: ['option_group_ids'],
          previous: { option_group_ids: relinked.option_group_ids },
        },
      },
    ]);
    // The menu shows the same lists.
    const menu = await ok(t, tenant.token, 'GET', '/menu');
    assert.deepEqual(menu.products[0].option_group_ids, [own1.id, own2.id]);
  });

  test('another product’s own group, an unknown, another restaurant’s or a repeated group is 400 on the item; nothing changes', async () => {
    const tenant = await makeTenant(t.ctx);
    const stranger = await makeTenant(t.ctx);
    const shared = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Shared' });
    const theirs = await ok(t, stranger.token, 'POST', '/menu/option-groups', { name: 'Theirs' });
    const other = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Funghi', price: 900 });
    const othersOwn = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'Funghi size',
      product_id: other.id,
    });
    const product = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Margherita',
      price: 950,
      option_group_ids: [shared.id],
    });
    const events = (await menuEvents(tenant.token)).length;
    t.clock.advance(60_000);
    for (const [list, param] of [
      [[shared.id, othersOwn.id], 'option_group_ids[1]'],
      [[theirs.id], 'option_group_ids[0]'],
      [['0199c3a1-7b40-7c1e-8a52-3f6d2e9b1d01'], 'option_group_ids[0]'],
      [[shared.id, shared.id], 'option_group_ids[1]'],
      [['x'], 'option_group_ids[0]'],
    ] as const) {
      assertError(
        await request(t, tenant.token, 'PATCH', `/menu/products/${product.id}`, { option_group_ids: list }),
        400,
        'invalid_request',
        param,
      );
      assertError(
        await request(t, tenant.token, 'POST', '/menu/products', {
          name: 'N',
          price: 1,
          option_group_ids: list,
        }),
        400,
        'invalid_request',
        param,
      );
    }
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`), product);
    assert.equal((await menuEvents(tenant.token)).length, events);
    assert.equal((await ok(t, tenant.token, 'GET', '/menu')).products.length, 2);
  });

  test('a product’s updated_at moves with its own and its linked groups; an event only when option_group_ids changes', async () => {
    const tenant = await makeTenant(t.ctx);
    const shared = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Shared' });
    const unused = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Unused' });
    const product = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Margherita',
      price: 950,
      option_group_ids: [shared.id],
    });
    const bystander = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Water', price: 200 });
    const productEvents = () => menuEvents(tenant.token, 'menu.product.*');
    const start = (await productEvents()).length;

    // A product-only group joins: the list changes, an event.
    t.clock.advance(60_000);
    const own = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'Size',
      product_id: product.id,
    });
    const withOwn = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
    assert.deepEqual(withOwn, { ...product, option_group_ids: [own.id, shared.id], updated_at: now() });
    assert.deepEqual((await productEvents()).slice(start), [
      {
        type: 'menu.product.updated',
        data: {
          object: withOwn,
          changed: ['option_group_ids'],
          previous: { option_group_ids: [shared.id] },
        },
      },
    ]);

    // Its own group's and a linked shared group's fields change: updated_at moves, no event.
    for (const [group, body] of [
      [own, { name: 'Sizes', min_select: 1 }],
      [shared, { max_select: 4 }],
      [shared, { external_id: 'ext' }],
    ] as const) {
      t.clock.advance(60_000);
      await ok(t, tenant.token, 'PATCH', `/menu/option-groups/${group.id}`, body);
      assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`), {
        ...withOwn,
        updated_at: now(),
      });
    }
    assert.equal((await productEvents()).length, start + 1);
    // Options, a group no product uses, and other products' groups leave it alone.
    const settled = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
    t.clock.advance(60_000);
    await ok(t, tenant.token, 'POST', `/menu/option-groups/${own.id}/options`, {
      name: 'L',
      price_delta: 200,
    });
    await ok(t, tenant.token, 'PATCH', `/menu/option-groups/${unused.id}`, { name: 'Still unused' });
    await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Water', product_id: bystander.id });
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`), settled);

    // Its own groups reordered: the list changes, an event.
    t.clock.advance(60_000);
    const own2 = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'Crust',
      product_id: product.id,
    });
    const before = (await productEvents()).length;
    t.clock.advance(60_000);
    await ok(t, tenant.token, 'PATCH', `/menu/option-groups/${own2.id}`, { position: 0 });
    // own has position 0 too: ties by id.
    const expected = [own.id, own2.id].sort();
    const reordered = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
    assert.deepEqual(reordered.option_group_ids, [...expected, shared.id]);
    assert.equal(reordered.updated_at, now());
    const afterReorder = (await productEvents()).slice(before);
    if (expected[0] === own.id) assert.deepEqual(afterReorder, []);
    else
      assert.deepEqual(afterReorder, [
        {
          type: 'menu.product.updated',
          data: {
            object: reordered,
            changed: ['option_group_ids'],
            previous: { option_group_ids: [own.id, own2.id, shared.id] },
          },
        },
      ]);
  });

  test('deleting a group takes it out of every product using it, each with menu.product.updated', async () => {
    const tenant = await makeTenant(t.ctx);
    const shared = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Shared' });
    const keep = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Keep' });
    const p1 = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'A',
      price: 1,
      option_group_ids: [shared.id, keep.id],
    });
    const p2 = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'B',
      price: 1,
      option_group_ids: [shared.id],
    });
    const p3 = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'C', price: 1 });
    const before = (await menuEvents(tenant.token)).length;
    t.clock.advance(60_000);
    await ok(t, tenant.token, 'DELETE', `/menu/option-groups/${shared.id}`);
    const a = await ok(t, tenant.token, 'GET', `/menu/products/${p1.id}`);
    const b = await ok(t, tenant.token, 'GET', `/menu/products/${p2.id}`);
    assert.deepEqual(a, { ...p1, option_group_ids: [keep.id], updated_at: now() });
    assert.deepEqual(b, { ...p2, option_group_ids: [], updated_at: now() });
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${p3.id}`), p3);
    const events = (await menuEvents(tenant.token)).slice(before);
    assert.deepEqual(
      events.map((event) => event.type),
      ['menu.product.updated', 'menu.product.updated', 'menu.option_group.deleted'],
    );
    const byId = new Map(
      events.slice(0, 2).map((event) => [(event.data.object as { id: string }).id, event.data]),
    );
    assert.deepEqual(byId.get(p1.id), {
      object: a,
      changed: ['option_group_ids'],
      previous: { option_group_ids: [shared.id, keep.id] },
    });
    assert.deepEqual(byId.get(p2.id), {
      object: b,
      changed: ['option_group_ids'],
      previous: { option_group_ids: [shared.id] },
    });
    // Its id can be linked no more.
    assertError(
      await request(t, tenant.token, 'PATCH', `/menu/products/${p3.id}`, { option_group_ids: [shared.id] }),
      400,
      'invalid_request',
      'option_group_ids[0]',
    );
  });

  test('a shared group given a product_id leaves the products linking it; made shared, it leaves its product', async () => {
    const tenant = await makeTenant(t.ctx);
    const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
    const owner = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'A', price: 1 });
    const linking = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'B',
      price: 1,
      option_group_ids: [group.id],
    });
    t.clock.advance(60_000);
    await ok(t, tenant.token, 'PATCH', `/menu/option-groups/${group.id}`, { product_id: owner.id });
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${owner.id}`), {
      ...owner,
      option_group_ids: [group.id],
      updated_at: now(),
    });
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${linking.id}`), {
      ...linking,
      option_group_ids: [],
      updated_at: now(),
    });
    // Now it belongs to the owner only: linking it elsewhere is refused.
    assertError(
      await request(t, tenant.token, 'PATCH', `/menu/products/${linking.id}`, {
        option_group_ids: [group.id],
      }),
      400,
      'invalid_request',
      'option_group_ids[0]',
    );
    t.clock.advance(60_000);
    await ok(t, tenant.token, 'PATCH', `/menu/option-groups/${group.id}`, { product_id: null });
    const left = await ok(t, tenant.token, 'GET', `/menu/products/${owner.id}`);
    assert.deepEqual([left.option_group_ids, left.updated_at], [[], now()]);
    await ok(t, tenant.token, 'PATCH', `/menu/products/${linking.id}`, { option_group_ids: [group.id] });
    const types = (await menuEvents(tenant.token, 'menu.product.updated')).map(
      (event) => (event.data as unknown as { changed: string[] }).changed,
    );
    assert.deepEqual(types, [
      ['option_group_ids'],
      ['option_group_ids'],
      ['option_group_ids'],
      ['option_group_ids'],
    ]);
  });

  test('deleting a product deletes its own groups and their options, each with its deleted event', async () => {
    const tenant = await makeTenant(t.ctx);
    const shared = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Shared' });
    const product = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'A',
      price: 1,
      option_group_ids: [shared.id],
    });
    const own = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'Own',
      product_id: product.id,
    });
    const option = await ok(t, tenant.token, 'POST', `/menu/option-groups/${own.id}/options`, {
      name: 'O',
      price_delta: 1,
    });
    const ownFull = await ok(t, tenant.token, 'GET', `/menu/option-groups/${own.id}`);
    const productFull = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
    const before = (await menuEvents(tenant.token)).length;
    await ok(t, tenant.token, 'DELETE', `/menu/products/${product.id}`);
    assert.deepEqual((await menuEvents(tenant.token)).slice(before), [
      { type: 'menu.option.deleted', data: { object: option } },
      { type: 'menu.option_group.deleted', data: { object: ownFull } },
      { type: 'menu.product.deleted', data: { object: productFull } },
    ]);
    assertError(await request(t, tenant.token, 'GET', `/menu/option-groups/${own.id}`), 404, 'not_found');
    assertError(await request(t, tenant.token, 'GET', `/menu/options/${option.id}`), 404, 'not_found');
    // The shared group stays, unchanged.
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/option-groups/${shared.id}`), shared);
  });
});

describe('external_id', () => {
  test('only the app that set it sees it; other apps and events see null', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await connectAnotherApp(t.ctx, tenant);
    const created = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'X',
      external_id: 'mine',
    });
    assert.equal(created.external_id, 'mine');
    assert.equal((await ok(t, other.token, 'GET', `/menu/option-groups/${created.id}`)).external_id, null);
    assert.equal((await ok(t, other.token, 'GET', '/menu')).option_groups[0].external_id, null);
    assert.deepEqual((await ok(t, other.token, 'GET', '/menu/option-groups?external_id=mine')).data, []);
    assert.equal((await ok(t, tenant.token, 'GET', '/menu/option-groups?external_id=mine')).data.length, 1);
    await ok(t, other.token, 'PATCH', `/menu/option-groups/${created.id}`, { external_id: null });
    assert.equal((await ok(t, tenant.token, 'GET', `/menu/option-groups/${created.id}`)).external_id, 'mine');
    for (const event of await feedAll(t, tenant.token, '&types=menu.*'))
      assert.equal((event.data.object as { external_id: unknown }).external_id, null);
  });

  test('a value the app already uses for another group is 409 external_id_taken; nothing changes', async () => {
    const tenant = await makeTenant(t.ctx);
    const first = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'A',
      external_id: 'taken',
    });
    const second = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'B',
      external_id: 'free',
    });
    assertError(
      await request(t, tenant.token, 'POST', '/menu/option-groups', { name: 'C', external_id: 'taken' }),
      409,
      'external_id_taken',
      'external_id',
    );
    assertError(
      await request(t, tenant.token, 'PATCH', `/menu/option-groups/${second.id}`, {
        external_id: 'taken',
        name: 'X',
      }),
      409,
      'external_id_taken',
      'external_id',
    );
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/option-groups/${second.id}`), second);
    assert.equal((await ok(t, tenant.token, 'GET', '/menu')).option_groups.length, 2);
    assert.deepEqual(
      await ok(t, tenant.token, 'PATCH', `/menu/option-groups/${first.id}`, { external_id: 'taken' }),
      first,
    );
    // Unique per kind: a category or an option may use it.
    await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Pizza', external_id: 'taken' });
    await ok(t, tenant.token, 'POST', `/menu/option-groups/${first.id}/options`, {
      name: 'O',
      price_delta: 0,
      external_id: 'taken',
    });
  });
});

describe('lists', () => {
  test('ascending updated_at across pages; filters external_id and updated_since; a cursor keeps its filters', async () => {
    const tenant = await makeTenant(t.ctx);
    const start = t.clock.now().getTime();
    const at = (minutes: number) => new Date(start + minutes * 60_000).toISOString();
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      made.push(
        (await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: `G${i}`, external_id: `g-${i}` }))
          .id,
      );
      t.clock.advance(60_000);
    }
    await ok(t, tenant.token, 'PATCH', `/menu/option-groups/${made[0]}`, { name: 'Changed' });
    // An option added to a group does not move it.
    await ok(t, tenant.token, 'POST', `/menu/option-groups/${made[1]}/options`, {
      name: 'O',
      price_delta: 0,
    });
    const order = [...made.slice(1), made[0]];
    const first = await ok(t, tenant.token, 'GET', '/menu/option-groups?limit=2');
    assert.equal(first.has_more, true);
    const second = await ok(
      t,
      tenant.token,
      'GET',
      `/menu/option-groups?limit=2&cursor=${first.next_cursor}`,
    );
    const last = await ok(t, tenant.token, 'GET', `/menu/option-groups?limit=2&cursor=${second.next_cursor}`);
    assert.equal(last.has_more, false);
    assert.equal(last.next_cursor, null);
    assert.deepEqual(ids([...first.data, ...second.data, ...last.data]), order);
    assert.deepEqual(ids((await ok(t, tenant.token, 'GET', '/menu/option-groups?external_id=g-3')).data), [
      made[3],
    ]);
    const since = await ok(t, tenant.token, 'GET', `/menu/option-groups?updated_since=${at(2)}&limit=1`);
    assert.deepEqual(ids(since.data), [made[3]]);
    const more = await ok(
      t,
      tenant.token,
      'GET',
      `/menu/option-groups?updated_since=${at(2)}&cursor=${since.next_cursor}`,
    );
    assert.deepEqual(ids(more.data), [made[4], made[0]]);
    assertError(
      await request(t, tenant.token, 'GET', `/menu/option-groups?cursor=${since.next_cursor}`),
      400,
      'invalid_request',
      'cursor',
    );
    assertError(
      await request(
        t,
        tenant.token,
        'GET',
        `/menu/categories?updated_since=${at(2)}&cursor=${since.next_cursor}`,
      ),
      400,
      'invalid_request',
      'cursor',
    );
    for (const query of [
      'updated_since=2026-11-02T10:02:00',
      'external_id=%20x',
      'product_id=none',
      'available=true',
      'limit=101',
    ]) {
      assertError(
        await request(t, tenant.token, 'GET', `/menu/option-groups?${query}`),
        400,
        'invalid_request',
        query.split('=')[0],
      );
    }
  });
});

describe('refused input changes nothing', () => {
  test('fields out of the rules are 400 naming the field, on create and change', async () => {
    const tenant = await makeTenant(t.ctx);
    const stranger = await makeTenant(t.ctx);
    const theirProduct = await ok(t, stranger.token, 'POST', '/menu/products', { name: 'Theirs', price: 1 });
    const created = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'Extras',
      external_id: 'ok',
      min_select: 1,
      max_select: 2,
    });
    const bad: [Record<string, unknown>, string][] = [
      [{ name: 'x'.repeat(121) }, 'name'],
      [{ name: '  ' }, 'name'],
      [{ name: 'a\u0007b' }, 'name'],
      [{ external_id: ' lead' }, 'external_id'],
      [{ external_id: 'x'.repeat(101) }, 'external_id'],
      [{ min_select: -1 }, 'min_select'],
      [{ min_select: 21 }, 'min_select'],
      [{ min_select: 1.5 }, 'min_select'],
      [{ max_select: 0 }, 'max_select'],
      [{ max_select: 21 }, 'max_select'],
      [{ min_select: 3, max_select: 2 }, 'min_select'],
      [{ min_select: 5 }, 'min_select'],
      [{ position: -1 }, 'position'],
      [{ position: 100_001 }, 'position'],
      [{ product_id: theirProduct.id }, 'product_id'],
      [{ product_id: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1d01' }, 'product_id'],
      [{ product_id: 'pizza' }, 'product_id'],
      [{ options: [] }, 'options'],
      [{ colour: 'red' }, 'colour'],
    ];
    for (const [body, param] of bad) {
      assertError(
        await request(t, tenant.token, 'POST', '/menu/option-groups', { name: 'New', ...body }),
        400,
        'invalid_request',
        param,
      );
      assertError(
        await request(t, tenant.token, 'PATCH', `/menu/option-groups/${created.id}`, body),
        400,
        'invalid_request',
        param,
      );
    }
    // Lowering max_select under the stored min_select is refused on min_select too.
    assertError(
      await request(t, tenant.token, 'PATCH', `/menu/option-groups/${created.id}`, {
        max_select: 1,
        min_select: 2,
      }),
      400,
      'invalid_request',
      'min_select',
    );
    assertError(
      await request(t, tenant.token, 'POST', '/menu/option-groups', { min_select: 0 }),
      400,
      'invalid_request',
      'name',
    );
    // 120 characters is fine.
    await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: '🍕'.repeat(120) });
    const menu = await ok(t, tenant.token, 'GET', '/menu');
    assert.equal(menu.option_groups.length, 2);
    assert.deepEqual(menu.option_groups[0], created);
    assert.equal((await menuEvents(tenant.token)).length, 2);
  });

  test('another restaurant’s group is 404 not_found (also to add an option); a malformed id is 400 on id', async () => {
    const tenant = await makeTenant(t.ctx);
    const stranger = await makeTenant(t.ctx);
    const theirs = await ok(t, stranger.token, 'POST', '/menu/option-groups', { name: 'Theirs' });
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const body = method === 'PATCH' ? { name: 'Mine now' } : undefined;
      assertError(
        await request(t, tenant.token, method, `/menu/option-groups/${theirs.id}`, body),
        404,
        'not_found',
      );
      assertError(
        await request(t, tenant.token, method, '/menu/option-groups/not-a-uuid', body),
        400,
        'invalid_request',
        'id',
      );
    }
    assertError(
      await request(t, tenant.token, 'POST', `/menu/option-groups/${theirs.id}/options`, {
        name: 'O',
        price_delta: 1,
      }),
      404,
      'not_found',
    );
    assert.deepEqual(await ok(t, stranger.token, 'GET', `/menu/option-groups/${theirs.id}`), theirs);
    assert.deepEqual((await ok(t, tenant.token, 'GET', '/menu/option-groups')).data, []);
    assert.deepEqual((await ok(t, stranger.token, 'GET', '/menu/options')).data, []);
  });
});

describe('scopes', () => {
  test('menu:read reads but cannot write (403 insufficient_scope); without menu:read nothing is read', async () => {
    const tenant = await makeTenant(t.ctx);
    const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
    const reader = await tokenFor(t.ctx, tenant, ['menu:read']);
    const writer = await tokenFor(t.ctx, tenant, ['menu:write']);
    await ok(t, reader, 'GET', '/menu/option-groups');
    await ok(t, reader, 'GET', `/menu/option-groups/${group.id}`);
    for (const [method, url, body] of [
      ['POST', '/menu/option-groups', { name: 'New' }],
      ['PATCH', `/menu/option-groups/${group.id}`, { name: 'New' }],
      ['DELETE', `/menu/option-groups/${group.id}`, undefined],
      ['POST', `/menu/option-groups/${group.id}/options`, { name: 'O', price_delta: 1 }],
    ] as const) {
      const res = await request(t, reader, method, url, body);
      assertError(res, 403, 'insufficient_scope');
      assert.match(String(res.headers['www-authenticate']), /scope="menu:write"/);
    }
    for (const url of ['/menu/option-groups', `/menu/option-groups/${group.id}`])
      assertError(await request(t, writer, 'GET', url), 403, 'insufficient_scope');
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/option-groups/${group.id}`), group);
  });
});
