import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expireUnpaidOrders } from '../../src/domain/payments/payments.service.ts';
import { buildTestApp, json, type TestApp } from '../harness.ts';
import { assertError, ok, request } from '../menu/menu-helpers.ts';
import {
  guest,
  type OrderingTenant,
  orderingTenant,
  pickupOrder,
  place,
  placePaid,
} from './order-helpers.ts';

describe('guests place orders at the storefront', () => {
  let t: TestApp;
  let tenant: OrderingTenant;
  before(async () => {
    t = await buildTestApp();
    tenant = await orderingTenant(t);
  });
  after(() => t.close());

  it('prices the order from the menu, freezes VAT by order type and lists it for apps at once (on site)', async () => {
    const placed = await place(t, tenant);
    assert.match(placed.guest_key, /^sgk_/);
    const order = await ok(t, tenant.token, 'GET', `/orders/${placed.order.id}`);
    assert.equal(order.object, 'order');
    assert.match(order.code, /^[ACDEFGHJKMNPQRTUVWXY34679]{4}$/);
    assert.equal(order.status, 'pending');
    assert.equal(order.source, 'storefront');
    assert.deepEqual(order.payment, { method: 'on_site', status: 'open', paid_at: null });
    const [pizza, lemonade] = order.items;
    assert.equal(pizza.unit_price, 1350);
    assert.equal(pizza.line_total, 2700);
    assert.equal(pizza.tax_rate_bps, 700);
    assert.deepEqual(
      pizza.options.map((o: { name: string }) => o.name),
      ['Cheese'],
    );
    assert.equal(lemonade.unit_price, 450);
    assert.equal(lemonade.tax_rate_bps, 1900);
    assert.deepEqual(order.amounts, {
      subtotal: 3150,
      delivery_fee: 0,
      service_fee: 0,
      discount: 0,
      tip: 0,
      total: 3150,
    });
    assert.deepEqual(order.tax.lines, [
      { rate_bps: 700, gross: 2700, net: 2523, tax: 177 },
      { rate_bps: 1900, gross: 450, net: 378, tax: 72 },
    ]);
    assert.equal(order.external_id, null);
    assert.equal(order.cancellation, null);
  });

  it('keeps an online order from the API until it is paid, then reports order.created and order.paid', async () => {
    const placed = await place(t, tenant, pickupOrder(tenant, { payment_method: 'online', tip: 200 }));
    assert.equal(placed.order.payment.status, 'awaiting');
    assertError(await request(t, tenant.token, 'GET', `/orders/${placed.order.id}`), 404, 'not_found');
    await guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment`);
    const paid = await guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment/test`, {
      outcome: 'succeeded',
    });
    assert.equal(json(paid).payment.status, 'paid');
    const again = await guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment/test`, {
      outcome: 'succeeded',
    });
    assert.equal(again.statusCode, 200);
    const order = await ok(t, tenant.token, 'GET', `/orders/${placed.order.id}`);
    assert.equal(order.payment.status, 'paid');
    assert.equal(order.amounts.tip, 200);
    assert.equal(order.amounts.total, 3350);
    const events = await ok(t, tenant.token, 'GET', '/events?types=order.*&limit=100');
    const mine = events.data.filter(
      (e: { data: { object: { id: string } } }) => e.data.object.id === order.id,
    );
    assert.deepEqual(
      mine.map((e: { type: string }) => e.type),
      ['order.created', 'order.paid'],
    );
  });

  it('refuses sold-out products, wrong option counts and tampered totals, creating nothing', async () => {
    const before = await ok(t, tenant.token, 'GET', '/orders?limit=100');
    const soldOut = pickupOrder(tenant, { items: [{ product_id: tenant.products.soldOut, quantity: 1 }] });
    assertError(
      await guest(t, tenant.slug, 'POST', '/orders', soldOut),
      400,
      'invalid_request',
      'items[0].product_id',
    );
    const noSize = pickupOrder(tenant, { items: [{ product_id: tenant.products.lemonade, quantity: 1 }] });
    assertError(
      await guest(t, tenant.slug, 'POST', '/orders', noSize),
      400,
      'invalid_request',
      'items[0].option_ids',
    );
    const price = pickupOrder(tenant, {
      items: [{ product_id: tenant.products.pizza, quantity: 1, unit_price: 1 }],
    });
    assertError(
      await guest(t, tenant.slug, 'POST', '/orders', price),
      400,
      'invalid_request',
      'items[0].unit_price',
    );
    const expensive = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Truffle',
      price: 100_000_000,
    });
    const tooMuch = pickupOrder(tenant, { items: [{ product_id: expensive.id, quantity: 11 }] });
    assertError(await guest(t, tenant.slug, 'POST', '/orders', tooMuch), 400, 'invalid_request', 'items');
    const total = pickupOrder(tenant, { expected_total: 100 });
    assertError(
      await guest(t, tenant.slug, 'POST', '/orders', total),
      400,
      'invalid_request',
      'expected_total',
    );
    const after = await ok(t, tenant.token, 'GET', '/orders?limit=100');
    assert.equal(after.data.length, before.data.length);
  });

  it('shows a line’s product_id as null once the product is deleted, the rest of the line as ordered', async () => {
    const calzone = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Calzone special',
      price: 1300,
    });
    const placed = await place(
      t,
      tenant,
      pickupOrder(tenant, { items: [{ product_id: calzone.id, quantity: 2 }] }),
    );
    const before = await ok(t, tenant.token, 'GET', `/orders/${placed.order.id}`);
    assert.equal(before.items[0].product_id, calzone.id);
    // Listed before the deletion too: the list's kept text of the order must not outlive the product.
    const listedBefore = await ok(t, tenant.token, 'GET', '/orders?limit=100');
    const first = listedBefore.data.find((order: { id: string }) => order.id === placed.order.id);
    assert.deepEqual(first, before);
    await ok(t, tenant.token, 'DELETE', `/menu/products/${calzone.id}`, undefined, 200);
    const after = await ok(t, tenant.token, 'GET', `/orders/${placed.order.id}`);
    assert.deepEqual(after.items[0], { ...before.items[0], product_id: null });
    const listed = await ok(t, tenant.token, 'GET', '/orders?limit=100');
    const inList = listed.data.find((order: { id: string }) => order.id === placed.order.id);
    assert.equal(inList.items[0].product_id, null);
    assert.equal(inList.items[0].name, 'Calzone special');
  });

  it('shows a line’s product_id as null once a menu sync removed the product', async () => {
    const own = await orderingTenant(t);
    await ok(t, own.token, 'PUT', '/menu', {
      mode: 'merge',
      categories: [],
      products: [{ external_id: 'p-focaccia', name: 'Focaccia', price: 700 }],
      option_groups: [],
    });
    const products = await ok(t, own.token, 'GET', '/menu/products?limit=100');
    const focaccia = products.data.find((product: { name: string }) => product.name === 'Focaccia');
    const placed = await place(
      t,
      own,
      pickupOrder(own, { items: [{ product_id: focaccia.id, quantity: 1 }] }),
    );
    const listedBefore = await ok(t, own.token, 'GET', '/orders?limit=100');
    const first = listedBefore.data.find((order: { id: string }) => order.id === placed.order.id);
    assert.equal(first.items[0].product_id, focaccia.id);
    await ok(t, own.token, 'PUT', '/menu', {
      mode: 'replace',
      categories: [],
      products: [],
      option_groups: [],
    });
    const listed = await ok(t, own.token, 'GET', '/orders?limit=100');
    const inList = listed.data.find((order: { id: string }) => order.id === placed.order.id);
    assert.equal(inList.items[0].product_id, null);
    assert.equal(inList.items[0].name, 'Focaccia');
  });

  it('lets a paid order be worked through accept, advance and cancel', async () => {
    const { id } = await placePaid(t, tenant);
    const accepted = await ok(t, tenant.token, 'POST', `/orders/${id}/accept`, { prep_minutes: 15 }, 200);
    assert.equal(accepted.status, 'confirmed');
    assert.equal(new Date(accepted.estimated_ready_at).getTime(), t.clock.now().getTime() + 15 * 60_000);
    const advanced = await ok(t, tenant.token, 'POST', `/orders/${id}/advance`, {}, 200);
    assert.equal(advanced.status, 'preparing');
    assertError(
      await request(t, tenant.token, 'POST', `/orders/${id}/reject`, {}),
      409,
      'invalid_transition',
    );
    const cancelled = await ok(
      t,
      tenant.token,
      'POST',
      `/orders/${id}/cancel`,
      { reason: 'Oven broke' },
      200,
    );
    assert.deepEqual(cancelled.cancellation, { reason: 'Oven broke', by: 'app' });
    assertError(
      await request(t, tenant.token, 'POST', `/orders/${id}/accept`, {}),
      409,
      'invalid_transition',
    );
  });
});

describe('unpaid online orders', () => {
  let t: TestApp;
  let tenant: OrderingTenant;
  before(async () => {
    t = await buildTestApp();
    tenant = await orderingTenant(t);
  });
  after(() => t.close());

  it('expire after the payment window and stay out of the API; a payment after that still counts', async () => {
    const placed = await place(t, tenant, pickupOrder(tenant, { payment_method: 'online' }));
    await guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment`);
    t.clock.advance(29 * 60_000);
    assert.equal(await expireUnpaidOrders(t.database.db, t.clock), 0);
    t.clock.advance(60_000);
    assert.equal(await expireUnpaidOrders(t.database.db, t.clock), 1);
    const expired = json(await guest(t, tenant.slug, 'GET', `/orders/${placed.guest_key}`));
    assert.equal(expired.payment.status, 'expired');
    assertError(
      await guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment`),
      409,
      'invalid_transition',
    );
    assertError(await request(t, tenant.token, 'GET', `/orders/${placed.order.id}`), 404, 'not_found');
    // The provider reports the payment the guest made before the window closed.
    await guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment/test`, { outcome: 'succeeded' });
    const order = await ok(t, tenant.token, 'GET', `/orders/${placed.order.id}`);
    assert.equal(order.payment.status, 'paid');
  });
});
