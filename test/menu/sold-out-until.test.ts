import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { putBackOnSale } from '../../src/domain/menu/back-on-sale.ts';
import { feedAll } from '../events/events-helpers.ts';
import { buildTestApp, makeTenant, type Tenant, type TestApp, tokenFor } from '../harness.ts';
import { assertError, ok, request } from './menu-helpers.ts';

/*
 * unavailable_until on products and options (decisions.md, Additions beyond the spec): set with
 * `available: false` on single-object writes, cleared by `available`, and back on sale by itself
 * through the worker's job.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const hour = 3600 * 1000;
const at = (ms: number) => new Date(t.clock.now().getTime() + ms).toISOString();
const now = () => t.clock.now().toISOString();
type EventData = { object: Record<string, unknown>; changed?: string[]; previous?: object };
const updatedEvents = async (token: string, types = 'menu.product.updated,menu.option.updated') =>
  (await feedAll(t, token, `&types=${types}`)).map((event) => ({
    type: event.type,
    data: event.data as EventData,
  }));

async function groupOf(tenant: Tenant) {
  return ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
}

describe('single-object writes', () => {
  test('PATCH available: false with unavailable_until shows it everywhere; the available filter works', async () => {
    const tenant = await makeTenant(t.ctx);
    const pizza = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Pizza', price: 950 });
    assert.equal(pizza.unavailable_until, null);
    t.clock.advance(60_000);
    const until = at(2 * hour);
    // Sent with an offset, answered in UTC.
    const inBerlin = `${at(4 * hour).slice(0, -1)}+02:00`;
    const soldOut = await ok(t, tenant.token, 'PATCH', `/menu/products/${pizza.id}`, {
      available: false,
      unavailable_until: inBerlin,
    });
    assert.deepEqual(soldOut, { ...pizza, available: false, unavailable_until: until, updated_at: now() });
    assert.deepEqual(await updatedEvents(tenant.token), [
      {
        type: 'menu.product.updated',
        data: {
          object: soldOut,
          changed: ['available', 'unavailable_until'],
          previous: { available: true, unavailable_until: null },
        },
      },
    ]);
    assert.deepEqual((await ok(t, tenant.token, 'GET', '/menu')).products, [soldOut]);
    assert.deepEqual((await ok(t, tenant.token, 'GET', '/menu/products?available=false')).data, [soldOut]);
    assert.deepEqual((await ok(t, tenant.token, 'GET', '/menu/products?available=true')).data, []);
    // Another field's change keeps the end time.
    const dearer = await ok(t, tenant.token, 'PATCH', `/menu/products/${pizza.id}`, { price: 990 });
    assert.equal(dearer.unavailable_until, until);
  });

  test('available: false without an end time clears it; null alone clears it; available: true clears it', async () => {
    const tenant = await makeTenant(t.ctx);
    const pizza = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Pizza',
      price: 950,
      available: false,
      unavailable_until: at(hour),
    });
    const first = pizza.unavailable_until;
    assert.equal(first, at(hour));
    const url = `/menu/products/${pizza.id}`;
    const indefinitely = await ok(t, tenant.token, 'PATCH', url, { available: false });
    assert.deepEqual([indefinitely.available, indefinitely.unavailable_until], [false, null]);
    await ok(t, tenant.token, 'PATCH', url, { available: false, unavailable_until: first });
    const cleared = await ok(t, tenant.token, 'PATCH', url, { unavailable_until: null });
    assert.deepEqual([cleared.available, cleared.unavailable_until], [false, null]);
    await ok(t, tenant.token, 'PATCH', url, { available: false, unavailable_until: first });
    const back = await ok(t, tenant.token, 'PATCH', url, { available: true });
    assert.deepEqual([back.available, back.unavailable_until], [true, null]);
    const events = await updatedEvents(tenant.token);
    assert.deepEqual(
      events.map((event) => [event.data.changed, event.data.previous]),
      [
        [['unavailable_until'], { unavailable_until: first }],
        [['unavailable_until'], { unavailable_until: null }],
        [['unavailable_until'], { unavailable_until: first }],
        [['unavailable_until'], { unavailable_until: null }],
        [['available', 'unavailable_until'], { available: false, unavailable_until: first }],
      ],
    );
    // Nothing to change: no event.
    await ok(t, tenant.token, 'PATCH', url, { available: true, unavailable_until: null });
    assert.equal((await updatedEvents(tenant.token)).length, events.length);
  });

  test('options take it the same way, on create and change', async () => {
    const tenant = await makeTenant(t.ctx);
    const group = await groupOf(tenant);
    const until = at(hour);
    const cheese = await ok(t, tenant.token, 'POST', `/menu/option-groups/${group.id}/options`, {
      name: 'Cheese',
      price_delta: 150,
      available: false,
      unavailable_until: until,
    });
    assert.deepEqual([cheese.available, cheese.unavailable_until], [false, until]);
    assert.deepEqual((await ok(t, tenant.token, 'GET', `/menu/option-groups/${group.id}`)).options, [cheese]);
    t.clock.advance(60_000);
    const back = await ok(t, tenant.token, 'PATCH', `/menu/options/${cheese.id}`, { available: true });
    assert.deepEqual(back, { ...cheese, available: true, unavailable_until: null, updated_at: now() });
    const [event] = await updatedEvents(tenant.token);
    assert.deepEqual(event?.data, {
      object: back,
      changed: ['available', 'unavailable_until'],
      previous: { available: false, unavailable_until: until },
    });
  });

  test('an end time with available true or left out, in the past, now or without a zone: 400, nothing changed', async () => {
    const tenant = await makeTenant(t.ctx);
    const pizza = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Pizza', price: 950 });
    const group = await groupOf(tenant);
    const cheese = await ok(t, tenant.token, 'POST', `/menu/option-groups/${group.id}/options`, {
      name: 'Cheese',
      price_delta: 150,
    });
    t.clock.advance(60_000);
    const bodies = [
      { available: true, unavailable_until: at(hour) },
      { unavailable_until: at(hour) },
      { available: false, unavailable_until: at(0) },
      { available: false, unavailable_until: at(-1000) },
      { available: false, unavailable_until: at(hour).replace('Z', '') },
      { available: false, unavailable_until: 'tomorrow' },
    ];
    const writes = [
      ['PATCH', `/menu/products/${pizza.id}`, {}],
      ['PATCH', `/menu/options/${cheese.id}`, {}],
      ['POST', '/menu/products', { name: 'New', price: 1 }],
      ['POST', `/menu/option-groups/${group.id}/options`, { name: 'New', price_delta: 1 }],
    ] as const;
    for (const body of bodies) {
      for (const [method, url, fields] of writes) {
        const res = await request(t, tenant.token, method, url, { ...fields, ...body });
        assertError(res, 400, 'invalid_request', 'unavailable_until');
      }
    }
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${pizza.id}`), pizza);
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/options/${cheese.id}`), cheese);
    const menu = await ok(t, tenant.token, 'GET', '/menu');
    assert.deepEqual(menu.products, [pizza]);
    assert.deepEqual(menu.option_groups[0].options, [cheese]);
    assert.deepEqual(await updatedEvents(tenant.token), []);
  });
});

describe('back on sale by itself', () => {
  test('the worker puts a product and an option back on sale when their time has come, once', async () => {
    const tenant = await makeTenant(t.ctx);
    const pizza = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Pizza',
      price: 950,
      external_id: 'p-pizza',
    });
    const pasta = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Pasta', price: 850 });
    const group = await groupOf(tenant);
    const cheese = await ok(t, tenant.token, 'POST', `/menu/option-groups/${group.id}/options`, {
      name: 'Cheese',
      price_delta: 150,
    });
    const productUntil = at(2 * hour);
    const optionUntil = at(hour);
    const sold = await ok(
      t,
      tenant.token,
      'POST',
      '/menu/availability',
      {
        entries: [
          { type: 'product', external_id: 'p-pizza', available: false, until: productUntil },
          { type: 'product', id: pasta.id, available: false },
          { type: 'option', id: cheese.id, available: false, until: optionUntil },
        ],
      },
      200,
    );
    assert.equal(sold.updated, 3);
    const soldEvents = (await updatedEvents(tenant.token)).length;
    const moved = { ms: 0 };
    const advance = (ms: number) => {
      t.clock.advance(ms);
      moved.ms += ms;
    };
    try {
      // Not yet: nothing of this restaurant moves.
      advance(hour - 1000);
      await putBackOnSale(t.database.db, t.clock);
      let token = await tokenFor(t.ctx, tenant, ['menu:read']);
      assert.equal((await updatedEvents(token)).length, soldEvents);

      // The option's time has come.
      advance(1000);
      assert.ok((await putBackOnSale(t.database.db, t.clock)) >= 1);
      token = await tokenFor(t.ctx, tenant, ['menu:read']);
      const option = await ok(t, token, 'GET', `/menu/options/${cheese.id}`);
      assert.deepEqual(option, { ...cheese, available: true, unavailable_until: null, updated_at: now() });
      assert.deepEqual((await updatedEvents(token)).slice(soldEvents), [
        {
          type: 'menu.option.updated',
          data: {
            object: option,
            changed: ['available', 'unavailable_until'],
            previous: { available: false, unavailable_until: optionUntil },
          },
        },
      ]);
      const stillSoldOut = await ok(t, token, 'GET', `/menu/products/${pizza.id}`);
      assert.deepEqual([stillSoldOut.available, stillSoldOut.unavailable_until], [false, productUntil]);

      // The product's.
      advance(hour + 30_000);
      await putBackOnSale(t.database.db, t.clock);
      token = await tokenFor(t.ctx, tenant, ['menu:read']);
      const product = await ok(t, token, 'GET', `/menu/products/${pizza.id}`);
      assert.deepEqual(product, { ...pizza, available: true, unavailable_until: null, updated_at: now() });
      const events = (await updatedEvents(token)).slice(soldEvents + 1);
      assert.deepEqual(events, [
        {
          type: 'menu.product.updated',
          data: {
            object: { ...product, external_id: null },
            changed: ['available', 'unavailable_until'],
            previous: { available: false, unavailable_until: productUntil },
          },
        },
      ]);
      // Sold out without an end time stays so; a later run changes nothing more.
      assert.equal((await ok(t, token, 'GET', `/menu/products/${pasta.id}`)).available, false);
      advance(hour);
      await putBackOnSale(t.database.db, t.clock);
      token = await tokenFor(t.ctx, tenant, ['menu:read']);
      assert.equal((await updatedEvents(token)).length, soldEvents + 2);
      assert.deepEqual(
        (await ok(t, token, 'GET', '/menu/products?available=true')).data.map((p: { id: string }) => p.id),
        [pizza.id],
      );
    } finally {
      t.clock.advance(-moved.ms);
    }
  });
});
