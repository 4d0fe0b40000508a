import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DateTime } from 'luxon';
import { buildTestApp, developerSession, json, type Tenant, type TestApp } from '../harness.ts';
import { assertError, ok } from '../menu/menu-helpers.ts';
import { guest, type OrderingTenant, orderingTenant, pickupOrder, place } from './order-helpers.ts';

/*
 * Delivery zones (docs/api-decisions.md, Delivery zones) through HTTP: a delivery's postal code
 * picks the first zone that has it (exactly or by a `*` prefix, normalized), whose fee becomes
 * the order's `amounts.delivery_fee` (in its events and the sales report) and whose minimum
 * order applies with the store's; an address outside every zone is refused on
 * `delivery.postal_code` with nothing written; no zones is delivery anywhere without a fee; GET
 * /v1/store shows the zones; another restaurant's zones never apply.
 */

const zones = [
  { name: 'Mitte', postal_codes: ['10115', '10117'], fee: 250, min_order: 1500 },
  { name: 'Prenzlauer Berg', postal_codes: ['104*'], fee: 400, min_order: 2000 },
  // 10117 is in Mitte too: the first zone in the list applies.
  { name: 'Far', postal_codes: ['10117', 'SW1A 1AA'], fee: 900, min_order: 0 },
];

/** Sets the restaurant's zones as its owner does (the dashboard's store API). */
async function setZones(t: TestApp, tenant: Tenant, list: unknown[]): Promise<void> {
  const owner = await developerSession(t, tenant, 'dashboard');
  const res = await t.app.inject({
    method: 'PATCH',
    url: `/dashboard/api/restaurants/${tenant.restaurantId}/store`,
    headers: { cookie: owner, 'content-type': 'application/json' },
    payload: { delivery_zones: list },
  });
  assert.equal(res.statusCode, 200, res.body);
}

/** A delivery of `pizzas` plain pizzas (12.00 each, 7 %) to `postalCode`, paid on site. */
function deliveryTo(tenant: OrderingTenant, postalCode: string, pizzas = 2, more: object = {}) {
  return pickupOrder(tenant, {
    type: 'delivery',
    items: [{ product_id: tenant.products.pizza, quantity: pizzas }],
    delivery: { address: 'Beispielstraße 12', postal_code: postalCode, city: 'Berlin' },
    ...more,
  });
}

async function orderCount(t: TestApp, tenant: Tenant): Promise<number> {
  const row = await t.database.db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('tenant_id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe('delivery zones', () => {
  let t: TestApp;
  let tenant: OrderingTenant;
  let other: OrderingTenant;
  before(async () => {
    t = await buildTestApp();
    tenant = await orderingTenant(t);
    other = await orderingTenant(t);
    await setZones(t, tenant, zones);
  });
  after(() => t.close());

  it('GET /v1/store shows the zones as stored: codes normalized (upper case, no spaces), in their order', async () => {
    const store = await ok(t, tenant.token, 'GET', '/store');
    assert.deepEqual(store.delivery_zones, [
      zones[0],
      zones[1],
      { name: 'Far', postal_codes: ['10117', 'SW1A1AA'], fee: 900, min_order: 0 },
    ]);
    const events = await ok(t, tenant.token, 'GET', '/events?types=store.updated&limit=100');
    const last = events.data.at(-1);
    assert.deepEqual(last.data.changed, ['delivery_zones']);
    assert.deepEqual(last.data.previous, { delivery_zones: [] });
    assert.deepEqual(last.data.object.delivery_zones, store.delivery_zones);
    // PATCH /v1/store (apps) does not set zones: an unknown field there.
    assertError(
      await t.app.inject({
        method: 'PATCH',
        url: '/v1/store',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        payload: { delivery_zones: [] },
      }),
      400,
      'invalid_request',
      'delivery_zones',
    );
  });

  it('prices the zone’s fee into the order, its VAT lines, order.created and the sales report', async () => {
    const placed = await place(t, tenant, deliveryTo(tenant, ' 10115 '));
    const order = await ok(t, tenant.token, 'GET', `/orders/${placed.order.id}`);
    assert.deepEqual(order.amounts, {
      subtotal: 2400,
      delivery_fee: 250,
      service_fee: 0,
      discount: 0,
      tip: 0,
      total: 2650,
    });
    // The fee is taxed with the items (a single 7 % group here): order-amounts.ts.
    assert.deepEqual(order.tax.lines, [{ rate_bps: 700, gross: 2650, net: 2477, tax: 173 }]);
    assert.deepEqual(placed.order.amounts, order.amounts);
    const events = await ok(t, tenant.token, 'GET', '/events?types=order.created&limit=100');
    const created = events.data.find(
      (event: { data: { object: { id: string } } }) => event.data.object.id === order.id,
    );
    assert.equal(created.data.object.amounts.delivery_fee, 250);
    assert.equal(created.data.object.amounts.total, 2650);
    const today = DateTime.fromJSDate(t.clock.now(), { zone: 'Europe/Berlin' }).toISODate();
    const report = await ok(t, tenant.token, 'GET', `/reports/sales?from=${today}&to=${today}`);
    assert.equal(report.totals.delivery_fees, 250);
    assert.equal(report.totals.total, 2650);
  });

  it('matches a prefix ending in *, normalized codes, and the first zone that has the code', async () => {
    const prefixed = await place(t, tenant, deliveryTo(tenant, '10405'));
    assert.equal(prefixed.order.amounts.delivery_fee, 400);
    const first = await place(t, tenant, deliveryTo(tenant, '10117'));
    assert.equal(first.order.amounts.delivery_fee, 250, 'Mitte comes before Far');
    const spaced = await place(t, tenant, deliveryTo(tenant, 'sw1a 1aa'));
    assert.equal(spaced.order.amounts.delivery_fee, 900);
    // A prefix is no exact code: 104 itself and 1040 are in, 10 is not.
    assert.equal((await place(t, tenant, deliveryTo(tenant, '104'))).order.amounts.delivery_fee, 400);
    assertError(
      await guest(t, tenant.slug, 'POST', '/orders', deliveryTo(tenant, '10')),
      400,
      'invalid_request',
      'delivery.postal_code',
    );
  });

  it('refuses an address outside every zone on delivery.postal_code, writing nothing', async () => {
    const before = await orderCount(t, tenant);
    const events = (await ok(t, tenant.token, 'GET', '/events?limit=100')).data.length;
    for (const code of ['20095', '1011', '101150'])
      assertError(
        await guest(t, tenant.slug, 'POST', '/orders', deliveryTo(tenant, code)),
        400,
        'invalid_request',
        'delivery.postal_code',
      );
    assert.equal(await orderCount(t, tenant), before);
    assert.equal((await ok(t, tenant.token, 'GET', '/events?limit=100')).data.length, events);
    // Pickup orders know no zones.
    await place(t, tenant, pickupOrder(tenant));
  });

  it('the checkout page places a delivery only with the fee the guest was shown; else it shows the fee, placing nothing', async () => {
    const at = `/s/${tenant.slug}`;
    const added = await t.app.inject({
      method: 'POST',
      url: `${at}/p/${tenant.products.pizza}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'quantity=2',
    });
    assert.equal(added.statusCode, 303, added.body);
    const cookie = (added.cookies as { name: string; value: string }[])
      .map(({ name, value }) => `${name}=${value}`)
      .join('; ');
    const checkout = (fields: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: `${at}/checkout`,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
      });
    const fields = {
      type: 'delivery',
      delivery_address: 'Beispielstraße 12',
      delivery_postal_code: '10115',
      delivery_city: 'Berlin',
      payment_method: 'on_site',
      seen_subtotal: '2400',
    };
    const before = await orderCount(t, tenant);
    // Not shown yet (no script typed it in), or shown at another price: the page shows it now.
    for (const seen of [{}, { seen_delivery_fee: '200' }] as Record<string, string>[]) {
      const unseen = await checkout({ ...fields, ...seen });
      assert.equal(unseen.statusCode, 400, unseen.body);
      assert.match(unseen.body, /Delivery to 10115 costs €2\.50\./);
      assert.match(unseen.body, /name="seen_delivery_fee" value="250"/);
      assert.match(unseen.body, /<script src="\/assets\/[^"]+\/storefront-checkout\.js" defer>/);
      assert.match(String(unseen.headers['content-security-policy']), /script-src 'self'/);
      assert.equal(await orderCount(t, tenant), before);
    }
    const placed = await checkout({ ...fields, seen_delivery_fee: '250' });
    assert.equal(placed.statusCode, 303, placed.body);
    assert.equal(await orderCount(t, tenant), before + 1);
  });

  it('needs the higher of the store’s and the zone’s minimum, to the cent, on the subtotal', async () => {
    // Prenzlauer Berg's minimum is 20.00: a pizza (12.00) with a dessert of 7.99 or 8.00.
    const cheaper = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Tiramisu', price: 799 });
    const dearer = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Panna cotta', price: 800 });
    const withDessert = (dessert: string) =>
      deliveryTo(tenant, '10405', 1, {
        items: [
          { product_id: tenant.products.pizza, quantity: 1 },
          { product_id: dessert, quantity: 1 },
        ],
      });
    assertError(
      await guest(t, tenant.slug, 'POST', '/orders', withDessert(cheaper.id)),
      400,
      'invalid_request',
      'items',
    );
    const taken = await place(t, tenant, withDessert(dearer.id));
    assert.equal(taken.order.amounts.subtotal, 2000);
    assert.equal(taken.order.amounts.total, 2400);
    // The fee does not count toward the minimum, the store's own minimum does when higher.
    const owner = await developerSession(t, tenant, 'dashboard');
    const storeMinimum = async (min_order: number) => {
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/dashboard/api/restaurants/${tenant.restaurantId}/store`,
        headers: { cookie: owner, 'content-type': 'application/json' },
        payload: { min_order },
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    await storeMinimum(2001);
    try {
      assertError(
        await guest(t, tenant.slug, 'POST', '/orders', withDessert(dearer.id)),
        400,
        'invalid_request',
        'items',
      );
    } finally {
      await storeMinimum(0);
    }
  });

  it('without zones, delivers anywhere without a fee and with the store’s minimum (as before)', async () => {
    const placed = await place(t, other, deliveryTo(other, '99999'));
    assert.equal(placed.order.amounts.delivery_fee, 0);
    assert.equal(placed.order.amounts.total, 2400);
    assert.deepEqual((await ok(t, other.token, 'GET', '/store')).delivery_zones, []);
  });

  it('another restaurant’s zones never apply', async () => {
    // Its own zones are used, not the first restaurant's (10115 is not in them).
    await setZones(t, other, [{ name: 'Elsewhere', postal_codes: ['80331'], fee: 700, min_order: 0 }]);
    assertError(
      await guest(t, other.slug, 'POST', '/orders', deliveryTo(other, '10115')),
      400,
      'invalid_request',
      'delivery.postal_code',
    );
    assert.equal((await place(t, other, deliveryTo(other, '80331'))).order.amounts.delivery_fee, 700);
    assert.equal((await place(t, tenant, deliveryTo(tenant, '10115'))).order.amounts.delivery_fee, 250);
    await setZones(t, other, []);
  });

  it('refuses zones beyond the limits or with a name twice, changing nothing', async () => {
    const owner = await developerSession(t, tenant, 'dashboard');
    const patch = (delivery_zones: unknown) =>
      t.app.inject({
        method: 'PATCH',
        url: `/dashboard/api/restaurants/${tenant.restaurantId}/store`,
        headers: { cookie: owner, 'content-type': 'application/json' },
        payload: { delivery_zones },
      });
    const zone = { name: 'Z', postal_codes: ['1'], fee: 0, min_order: 0 };
    const refusals: [unknown, string][] = [
      [Array.from({ length: 21 }, (_, i) => ({ ...zone, name: `Z${i}` })), 'delivery_zones'],
      [[{ ...zone, name: 'x'.repeat(81) }], 'delivery_zones[0].name'],
      [
        [{ ...zone, postal_codes: Array.from({ length: 201 }, (_, i) => String(i)) }],
        'delivery_zones[0].postal_codes',
      ],
      [[{ ...zone, postal_codes: ['10*15'] }], 'delivery_zones[0].postal_codes[0]'],
      [[{ ...zone, postal_codes: [] }], 'delivery_zones[0].postal_codes'],
      [[{ ...zone, fee: -1 }], 'delivery_zones[0].fee'],
      [[{ ...zone, min_order: 1.5 }], 'delivery_zones[0].min_order'],
      [[zone, { ...zone, name: ' z ' }], 'delivery_zones[1].name'],
    ];
    const before = await ok(t, tenant.token, 'GET', '/store');
    for (const [list, param] of refusals) assertError(await patch(list), 400, 'invalid_request', param);
    assert.deepEqual((await ok(t, tenant.token, 'GET', '/store')).delivery_zones, before.delivery_zones);
    assert.equal(json(await patch(before.delivery_zones)).delivery_zones.length, 3);
  });
});
