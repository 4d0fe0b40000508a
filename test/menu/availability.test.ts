import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../src/domain/shared/ids.ts';
import { connectAnotherApp, feedAll } from '../events/events-helpers.ts';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp, tokenFor } from '../harness.ts';
import { assertError, ok, request } from './menu-helpers.ts';

/* POST /v1/menu/availability: many products and options sold out or available at once. */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const hour = 3600 * 1000;
const at = (ms: number) => new Date(t.clock.now().getTime() + ms).toISOString();
const availability = (token: string, entries: unknown[]) =>
  request(t, token, 'POST', '/menu/availability', { entries });
const updatedEvents = async (token: string) =>
  (await feedAll(t, token, '&types=menu.product.updated,menu.option.updated')).map((event) => ({
    type: event.type,
    data: event.data as { object: Record<string, unknown>; changed?: string[]; previous?: object },
  }));

/** A product, a second one with an external_id, a group with an option with an external_id. */
async function smallMenu(tenant: Tenant) {
  const pizza = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Pizza', price: 950 });
  const pasta = await ok(t, tenant.token, 'POST', '/menu/products', {
    name: 'Pasta',
    price: 850,
    external_id: 'p-pasta',
  });
  const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
  const cheese = await ok(t, tenant.token, 'POST', `/menu/option-groups/${group.id}/options`, {
    name: 'Cheese',
    price_delta: 150,
    external_id: 'o-cheese',
  });
  return { pizza, pasta, group, cheese };
}

describe('POST /menu/availability', () => {
  test('by id and by external_id: changed objects move updated_at and emit their event, unchanged ones neither', async () => {
    const tenant = await makeTenant(t.ctx);
    const { pizza, pasta, cheese } = await smallMenu(tenant);
    t.clock.advance(60_000);
    const until = at(2 * hour);
    const res = await availability(tenant.token, [
      { type: 'product', id: pizza.id, available: false },
      { type: 'product', external_id: 'p-pasta', available: true },
      { type: 'option', external_id: 'o-cheese', available: false, until: until.replace('Z', '+00:00') },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { object: 'availability_update', updated: 2, unchanged: 1 });

    const now = t.clock.now().toISOString();
    const soldOutPizza = await ok(t, tenant.token, 'GET', `/menu/products/${pizza.id}`);
    assert.deepEqual(soldOutPizza, { ...pizza, available: false, unavailable_until: null, updated_at: now });
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${pasta.id}`), pasta);
    const soldOutCheese = await ok(t, tenant.token, 'GET', `/menu/options/${cheese.id}`);
    assert.deepEqual(soldOutCheese, {
      ...cheese,
      available: false,
      unavailable_until: until,
      updated_at: now,
    });
    // Each event's object is the resource as it is now (external_id null in events).
    assert.deepEqual(await updatedEvents(tenant.token), [
      {
        type: 'menu.product.updated',
        data: { object: soldOutPizza, changed: ['available'], previous: { available: true } },
      },
      {
        type: 'menu.option.updated',
        data: {
          object: { ...soldOutCheese, external_id: null },
          changed: ['available', 'unavailable_until'],
          previous: { available: true, unavailable_until: null },
        },
      },
    ]);
    // GET /menu shows the same; the products list filters on available.
    const menu = await ok(t, tenant.token, 'GET', '/menu');
    assert.deepEqual(
      menu.products.map((product: { id: string }) => product.id).sort(),
      [pizza.id, pasta.id].sort(),
    );
    assert.deepEqual(menu.option_groups[0].options, [soldOutCheese]);
    const soldOut = await ok(t, tenant.token, 'GET', '/menu/products?available=false');
    assert.deepEqual(soldOut.data, [soldOutPizza]);
  });

  test('only the end time changing is reported as such; available: true clears it; the same again is unchanged', async () => {
    const tenant = await makeTenant(t.ctx);
    const { pizza } = await smallMenu(tenant);
    const first = at(hour);
    const second = at(3 * hour);
    const steps: Array<[Record<string, unknown>, string[], Record<string, unknown>]> = [
      [
        { available: false, until: first },
        ['available', 'unavailable_until'],
        { available: true, unavailable_until: null },
      ],
      [{ available: false, until: second }, ['unavailable_until'], { unavailable_until: first }],
      [{ available: false }, ['unavailable_until'], { unavailable_until: second }],
      [{ available: false, until: first }, ['unavailable_until'], { unavailable_until: null }],
      [
        { available: true },
        ['available', 'unavailable_until'],
        { available: false, unavailable_until: first },
      ],
    ];
    for (const [entry, changed, previous] of steps) {
      t.clock.advance(1000);
      const res = await availability(tenant.token, [{ type: 'product', id: pizza.id, ...entry }]);
      assert.deepEqual(res.json(), { object: 'availability_update', updated: 1, unchanged: 0 }, res.body);
      const [event] = (await updatedEvents(tenant.token)).slice(-1);
      assert.deepEqual(event?.data.changed, changed, JSON.stringify(entry));
      assert.deepEqual(event?.data.previous, previous, JSON.stringify(entry));
      const product = await ok(t, tenant.token, 'GET', `/menu/products/${pizza.id}`);
      assert.deepEqual(event?.data.object, product);
      assert.equal(product.updated_at, t.clock.now().toISOString());
      assert.equal(product.available, entry.available);
      assert.equal(product.unavailable_until, entry.until ?? null);
    }
    const settled = await ok(t, tenant.token, 'GET', `/menu/products/${pizza.id}`);
    t.clock.advance(1000);
    const again = await availability(tenant.token, [
      { type: 'product', id: pizza.id, available: true, until: null },
    ]);
    assert.deepEqual(again.json(), { object: 'availability_update', updated: 0, unchanged: 1 });
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${pizza.id}`), settled);
    assert.equal((await updatedEvents(tenant.token)).length, steps.length);
  });

  test('no entries: nothing to do', async () => {
    const tenant = await makeTenant(t.ctx);
    const res = await availability(tenant.token, []);
    assert.deepEqual(res.json(), { object: 'availability_update', updated: 0, unchanged: 0 });
  });

  test('every bad entry is a 400 naming it, and nothing of the request changes', async () => {
    const tenant = await makeTenant(t.ctx);
    const elsewhere = await makeTenant(t.ctx);
    const other = await connectAnotherApp(t.ctx, tenant);
    const { pizza, pasta, cheese } = await smallMenu(tenant);
    const theirs = await ok(t, other.token, 'POST', '/menu/products', {
      name: 'Their pizza',
      price: 900,
      external_id: 'p-theirs',
    });
    const foreign = await ok(t, elsewhere.token, 'POST', '/menu/products', { name: 'Far', price: 1 });
    t.clock.advance(60_000);
    const valid = { type: 'product', id: pizza.id, available: false };
    const cases: Array<[unknown[], string]> = [
      [[valid, { type: 'product', available: false }], 'entries[1].id'],
      [[valid, { type: 'product', id: pasta.id, external_id: 'p-pasta', available: false }], 'entries[1].id'],
      [[valid, { type: 'product', id: newId(), available: false }], 'entries[1].id'],
      [[valid, { type: 'product', id: foreign.id, available: false }], 'entries[1].id'],
      [[valid, { type: 'option', id: pasta.id, available: false }], 'entries[1].id'],
      [[valid, { type: 'product', id: 'not-a-uuid', available: false }], 'entries[1].id'],
      [[valid, { type: 'product', external_id: 'p-nothing', available: false }], 'entries[1].external_id'],
      [[valid, { type: 'product', external_id: 'o-cheese', available: false }], 'entries[1].external_id'],
      // Another app's external_id names nothing for this app.
      [[valid, { type: 'product', external_id: 'p-theirs', available: false }], 'entries[1].external_id'],
      // The same object again, by id or by its external_id: the later entry.
      [[valid, { type: 'product', id: pizza.id, available: true }], 'entries[1].id'],
      [
        [
          valid,
          { type: 'product', id: pasta.id, available: false },
          { type: 'product', external_id: 'p-pasta', available: false },
        ],
        'entries[2].external_id',
      ],
      // The end time: only with available: false, in the future, with a zone.
      [[valid, { type: 'option', id: cheese.id, available: true, until: at(hour) }], 'entries[1].until'],
      [[valid, { type: 'option', id: cheese.id, available: false, until: at(0) }], 'entries[1].until'],
      [[valid, { type: 'option', id: cheese.id, available: false, until: at(-hour) }], 'entries[1].until'],
      [
        [valid, { type: 'option', id: cheese.id, available: false, until: at(hour).replace('Z', '') }],
        'entries[1].until',
      ],
      [[valid, { type: 'menu', id: cheese.id, available: false }], 'entries[1].type'],
      [[valid, { type: 'option', id: cheese.id }], 'entries[1].available'],
      [[valid, { type: 'option', id: cheese.id, available: false, note: 'x' }], 'entries[1].note'],
    ];
    for (const [entries, param] of cases) {
      assertError(await availability(tenant.token, entries), 400, 'invalid_request', param);
    }
    assertError(
      await request(t, tenant.token, 'POST', '/menu/availability', {}),
      400,
      'invalid_request',
      'entries',
    );
    // Nothing changed: not the first (valid) entries, not updated_at, no event.
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${pizza.id}`), pizza);
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${pasta.id}`), pasta);
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/options/${cheese.id}`), cheese);
    assert.deepEqual(await ok(t, other.token, 'GET', `/menu/products/${theirs.id}`), theirs);
    assert.deepEqual(await updatedEvents(tenant.token), []);
    // The other app reaches its own object by its external_id.
    const own = await availability(other.token, [
      { type: 'product', external_id: 'p-theirs', available: false },
    ]);
    assert.deepEqual(own.json(), { object: 'availability_update', updated: 1, unchanged: 0 });
  });

  test('500 entries in one request; 501 are 422 limit_exceeded and change nothing', async (context) => {
    const tenant = await makeTenant(t.ctx);
    const now = t.clock.now();
    // Set up in the database: 500 products through the API would pass the rate limit.
    const rows = Array.from({ length: 501 }, (_, index) => ({
      tenant_id: tenant.restaurantId,
      id: newId(),
      name: `Dish ${index}`,
      price: 100 + index,
      position: index,
      created_at: now,
      updated_at: now,
    }));
    await t.database.db.insertInto('menu_products').values(rows).execute();
    t.clock.advance(60_000);
    const entries = rows.map((row) => ({ type: 'product', id: row.id, available: false }));

    assertError(await availability(tenant.token, entries), 422, 'limit_exceeded', 'entries');
    const untouched = await t.database.db
      .selectFrom('menu_products')
      .select(['available', 'updated_at'])
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    assert.ok(untouched.every((row) => row.available && row.updated_at.getTime() === now.getTime()));

    const started = performance.now();
    const res = await availability(tenant.token, entries.slice(0, 500));
    const took = performance.now() - started;
    assert.deepEqual(res.json(), { object: 'availability_update', updated: 500, unchanged: 0 }, res.body);
    const soldOut = await t.database.db
      .selectFrom('menu_products')
      .select(['id', 'available', 'updated_at'])
      .where('tenant_id', '=', tenant.restaurantId)
      .where('available', '=', false)
      .execute();
    assert.equal(soldOut.length, 500);
    assert.ok(soldOut.every((row) => row.updated_at.getTime() === t.clock.now().getTime()));
    const events = await updatedEvents(tenant.token);
    assert.equal(events.length, 500);
    assert.deepEqual(
      events.map((event) => (event.data.object as { id: string }).id),
      rows.slice(0, 500).map((row) => row.id),
      'one event per object, in the entries’ order',
    );
    context.diagnostic(`500 entries took ${Math.round(took)} ms`);
    // Sent again, they are all unchanged.
    const again = await availability(tenant.token, entries.slice(0, 500));
    assert.deepEqual(again.json(), { object: 'availability_update', updated: 0, unchanged: 500 });
  });

  test('needs menu:write; a replay with the same Idempotency-Key changes nothing more', async () => {
    const tenant = await makeTenant(t.ctx);
    const { pizza } = await smallMenu(tenant);
    const reader = await tokenFor(t.ctx, tenant, ['menu:read']);
    const entries = [{ type: 'product', id: pizza.id, available: false }];
    assertError(await availability(reader, entries), 403, 'insufficient_scope');
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/v1/menu/availability',
        headers: {
          ...bearer(tenant.token),
          'content-type': 'application/json',
          'idempotency-key': 'sold-out-1',
        },
        payload: JSON.stringify({ entries }),
      });
    const first = await send();
    assert.deepEqual(first.json(), { object: 'availability_update', updated: 1, unchanged: 0 });
    await ok(t, tenant.token, 'PATCH', `/menu/products/${pizza.id}`, { available: true });
    const replay = await send();
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.json(), first.json());
    assert.equal((await ok(t, tenant.token, 'GET', `/menu/products/${pizza.id}`)).available, true);
  });
});
