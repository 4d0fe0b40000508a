import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildTestApp, call, developerSession, json, type TestApp } from '../harness.ts';
import { assertError, ok } from '../menu/menu-helpers.ts';
import { guest, type OrderingTenant, orderingTenant, pickupOrder } from '../orders/order-helpers.ts';

/*
 * Text with Unicode's explicit bidirectional controls (U+202A–U+202E, U+2066–U+2069) is refused
 * at input on every surface with 400 invalid_request naming the field (docs/api-decisions.md,
 * Input), so no page, board or app ever shows text that reads otherwise than it is: the public
 * API, the guest API and the storefront's checkout, the dashboard's and the console's.
 */

let t: TestApp;
let tenant: OrderingTenant;
before(async () => {
  t = await buildTestApp();
  tenant = await orderingTenant(t);
});
after(() => t.close());

/** Every control of the rule, in a text that would read "Pizza 9.50" reversed. */
const spoofed = [
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
].map((control) => `Pizza ${control}05.9`);

test('the public API refuses them in every text field, the message naming the rule', async () => {
  for (const name of spoofed) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/menu/products',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name, price: 950 }),
    });
    assertError(res, 400, 'invalid_request', 'name');
    assert.match(json(res).error.message, /bidirectional control characters/);
  }
  // Escaped as \u202e in the JSON text, the same.
  const escaped = await t.app.inject({
    method: 'PATCH',
    url: `/v1/menu/products/${tenant.products.pizza}`,
    headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
    payload: '{"description": "Tomato \\u202e olives"}',
  });
  assertError(escaped, 400, 'invalid_request', 'description');
  const products = await ok(t, tenant.token, 'GET', '/menu/products?limit=100');
  assert.ok(
    products.data.every(
      (p: { name: string; description: string | null }) =>
        !/[\u202A-\u202E\u2066-\u2069]/.test(`${p.name}${p.description}`),
    ),
    'nothing written',
  );
  // Right-to-left text itself is welcome.
  await ok(t, tenant.token, 'POST', '/menu/products', { name: 'بيتزا', price: 950 });
});

test('the guest API and the checkout form refuse them in a note and a customer’s name; nothing is placed', async () => {
  assertError(
    await guest(t, tenant.slug, 'POST', '/orders', pickupOrder(tenant, { note: spoofed[4] })),
    400,
    'invalid_request',
    'note',
  );
  assertError(
    await guest(
      t,
      tenant.slug,
      'POST',
      '/orders',
      pickupOrder(tenant, { customer: { name: spoofed[5], phone: '+49 30 5550100' } }),
    ),
    400,
    'invalid_request',
    'customer.name',
  );
  const base = `/s/${tenant.slug}`;
  const added = await t.app.inject({
    method: 'POST',
    url: `${base}/p/${tenant.products.pizza}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'quantity=1',
  });
  assert.equal(added.statusCode, 303, added.body);
  const cart = added.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const checkout = await t.app.inject({
    method: 'POST',
    url: `${base}/checkout`,
    headers: { cookie: cart, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      type: 'pickup',
      payment_method: 'on_site',
      seen_subtotal: '1200',
      note: spoofed[0] as string,
    }).toString(),
  });
  assert.equal(checkout.statusCode, 400, checkout.body);
  assert.match(checkout.body, /<p class="field-error" id="note-error">/);
  const orders = await ok(t, tenant.token, 'GET', '/orders?limit=100');
  assert.equal(orders.data.length, 0, 'nothing placed');
});

test('the dashboard’s and the console’s forms and JSON APIs refuse them too', async () => {
  const dashboard = await developerSession(t, tenant, 'dashboard');
  const store = await call(
    t.app,
    'PATCH',
    `/dashboard/api/restaurants/${tenant.restaurantId}/store`,
    dashboard,
    {
      address_line: spoofed[1],
    },
  );
  assertError(store, 400, 'invalid_request', 'address_line');
  const console = await developerSession(t, tenant, 'console');
  const app = await call(t.app, 'POST', '/console/api/apps', console, {
    name: spoofed[2],
    type: 'confidential',
    redirect_uris: ['https://app.example.test/callback'],
  });
  assertError(app, 400, 'invalid_request', 'name');
});
