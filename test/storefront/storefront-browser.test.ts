import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { createTable } from '../../src/domain/store/tables.service.ts';
import { pagesInChromium, screenshot } from '../browser.ts';
import { ok } from '../menu/menu-helpers.ts';
import { type OrderingTenant, orderingTenant, pickupOrder } from '../orders/order-helpers.ts';

/*
 * The storefront in headless Chromium on a phone's screen, as guests use it: pickup paid on site
 * (menu → product with options → cart → checkout → the order's page), delivery paid online with the
 * test provider, dine-in through a table's QR link, and a checkout error beside its field. After
 * each order, the app sees it through GET /v1/orders. Screenshots under test-results/storefront-*.png.
 */
const pages = pagesInChromium();
let tenant: OrderingTenant;
let tableKey: string;

/** The restaurant: made by the first test that needs it (the service starts before the tests). */
async function restaurant(): Promise<void> {
  if (tenant) return;
  tenant = await orderingTenant(pages.t);
  await ok(pages.t, tenant.token, 'PATCH', '/store', { order_types: { dine_in: true } });
  await ok(pages.t, tenant.token, 'PATCH', `/menu/products/${tenant.products.pizza}`, {
    description: 'Tomato, mozzarella, basil',
    allergens: ['gluten', 'milk'],
    diets: ['vegetarian'],
  });
  const table = await createTable({ ...pages.t.ctx, tenantId: tenant.restaurantId }, { label: 'T4' });
  tableKey = table.qr_key;
}

const phone = async (): Promise<Page> => {
  await restaurant();
  const page = await pages.browser.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  return page;
};

/** The order the app sees with this code (GET /v1/orders). */
async function appOrder(code: string) {
  const list = await ok(pages.t, tenant.token, 'GET', '/orders?limit=100');
  return list.data.find((order: { code: string }) => order.code === code);
}

/** From the menu: a pizza with cheese and olives, two of them, into the cart. */
async function addPizza(page: Page, shots = false): Promise<void> {
  await page.getByRole('link', { name: 'Pizza', exact: true }).click();
  await page.getByRole('heading', { name: 'Pizza', level: 1 }).waitFor();
  await page.getByLabel('Cheese').check();
  await page.getByLabel('Olives').check();
  await page.getByLabel('Quantity').fill('2');
  if (shots) await screenshot(page, 'storefront-product');
  await page.getByRole('button', { name: 'Add to cart' }).click();
  await page.getByText('Added to your cart.').waitFor();
}

test('a guest orders pickup paid on site: menu, product with options, cart, checkout, the order’s code', async () => {
  const page = await phone();
  await page.goto(`${pages.serviceUrl}/s/${tenant.slug}`);
  await page.getByRole('heading', { name: /^Restaurant /, level: 1 }).waitFor();
  assert.ok(await page.getByText('Open now').isVisible());
  assert.ok(await page.getByText('Allergens: Gluten (cereals), Milk (incl. lactose)').isVisible());
  const calzone = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Calzone' }) });
  assert.ok(await calzone.getByText('Sold out').isVisible());
  await screenshot(page, 'storefront-menu');

  await addPizza(page, true);
  await page.getByRole('link', { name: 'Go to the cart' }).click();
  await page.getByRole('heading', { name: 'Your order' }).waitFor();
  assert.ok(await page.getByText('€14.50 each').isVisible());
  assert.ok(await page.getByText('Subtotal: €29.00').isVisible());
  await page.getByLabel('Pickup').check();
  await page.getByLabel('Your name (optional)').fill('Alex Guest');
  await page.getByLabel('Phone (optional)').fill('+49 30 5550100');
  await page.getByLabel('Tip in EUR (optional)').fill('2');
  await page.getByLabel('At the restaurant').check();
  await screenshot(page, 'storefront-cart');
  await page.getByRole('button', { name: 'Place order' }).click();

  await page.getByRole('heading', { name: 'Thank you for your order' }).waitFor();
  const code = (await page.locator('.order-code strong').textContent()) ?? '';
  assert.match(code, /^[A-Z0-9]{4}$/);
  assert.ok(await page.getByText('Received: waiting for the restaurant').isVisible());
  assert.ok(await page.getByText('Pay at the restaurant').isVisible());
  await screenshot(page, 'storefront-order');
  const order = await appOrder(code);
  assert.equal(order.type, 'pickup');
  assert.equal(order.amounts.total, 3100);
  assert.equal(order.customer.name, 'Alex Guest');

  // The page follows the order by itself (every 5 s) once the restaurant accepts it.
  await ok(pages.t, tenant.token, 'POST', `/orders/${order.id}/accept`, { prep_minutes: 20 }, 200);
  await page.getByText('Accepted by the restaurant').waitFor();
  assert.notEqual(await page.locator('[data-field="ready"]').textContent(), 'Not known yet');
  await page.close();
});

test('a checkout error shows beside its field and in the summary: delivery without an address', async () => {
  const page = await phone();
  await page.goto(`${pages.serviceUrl}/s/${tenant.slug}`);
  await addPizza(page);
  await page.goto(`${pages.serviceUrl}/s/${tenant.slug}/cart`);
  await page.getByLabel('Delivery', { exact: true }).check();
  await page.getByRole('button', { name: 'Place order' }).click();
  const summary = page.getByRole('alert');
  await summary.waitFor();
  assert.ok(
    await summary.getByRole('link', { name: 'Enter the street and number for the delivery.' }).isVisible(),
  );
  assert.equal(await page.getByLabel('Street and number').getAttribute('aria-invalid'), 'true');
  assert.match(
    (await page.locator('#delivery_address-error').textContent()) ?? '',
    /Enter the street and number/,
  );
  await screenshot(page, 'storefront-checkout-error');
  // The street, the postal code and the city are each missing: all said at once.
  assert.equal(await summary.getByRole('link').count(), 3);
  await summary.getByRole('link').first().click();
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'delivery_address');
  await page.close();
});

test('a guest orders delivery paid online with the test provider', async () => {
  const page = await phone();
  await page.goto(`${pages.serviceUrl}/s/${tenant.slug}`);
  await addPizza(page);
  await page.getByRole('link', { name: 'Go to the cart' }).click();
  await page.getByLabel('Delivery', { exact: true }).check();
  await page.getByLabel('Street and number').fill('Hauptstraße 1');
  await page.getByLabel('Postal code').fill('10115');
  await page.getByLabel('City').fill('Berlin');
  await page.getByLabel('E-mail (optional)').fill('alex@example.test');
  await page.getByLabel('Online now').check();
  await page.getByRole('button', { name: 'Place order' }).click();

  await page.getByRole('heading', { name: 'Test payment — no money moves' }).waitFor();
  const code = /Order (\w+):/.exec((await page.locator('main').textContent()) ?? '')?.[1] ?? '';
  await screenshot(page, 'storefront-pay');
  assert.equal(await appOrder(code), undefined, 'unpaid, the app does not see it yet');
  await page.getByRole('button', { name: 'Confirm payment' }).click();
  await page.getByRole('heading', { name: 'Thank you for your order' }).waitFor();
  assert.equal(await page.locator('[data-field="payment"]').textContent(), 'Paid');
  await screenshot(page, 'storefront-order-paid');
  const order = await appOrder(code);
  assert.equal(order.type, 'delivery');
  assert.equal(order.payment.status, 'paid');
  assert.equal(order.delivery.address, 'Hauptstraße 1');
  await page.close();
});

test('a guest orders at the table through its QR link', async () => {
  const page = await phone();
  await page.goto(`${pages.serviceUrl}/s/${tenant.slug}/t/${tableKey}`);
  await page.getByText('At your table').waitFor();
  await page.getByRole('link', { name: 'Lemonade', exact: true }).click();
  await page.getByLabel('Large').check();
  await page.getByRole('button', { name: 'Add to cart' }).click();
  await page.getByRole('link', { name: 'Go to the cart' }).click();
  assert.ok(await page.getByLabel('At table T4').isChecked());
  await screenshot(page, 'storefront-cart-table');
  await page.getByRole('button', { name: 'Place order' }).click();
  await page.getByRole('heading', { name: 'Thank you for your order' }).waitFor();
  const code = (await page.locator('.order-code strong').textContent()) ?? '';
  const order = await appOrder(code);
  assert.equal(order.type, 'dine_in');
  assert.equal(order.source, 'table');
  assert.equal(order.table.label, 'T4');
  await screenshot(page, 'storefront-order-table');
  await page.close();
});

test('past the guest limit the checkout says when to try again, and the cart stays', async () => {
  const page = await phone();
  const busy = await orderingTenant(pages.t);
  // Ten orders paid on site from this machine's address, as the browser's.
  for (let n = 0; n < 10; n++) {
    const placed = await fetch(`${pages.serviceUrl}/s/${busy.slug}/api/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(pickupOrder(busy)),
    });
    assert.equal(placed.status, 201, await placed.text());
  }
  await page.goto(`${pages.serviceUrl}/s/${busy.slug}`);
  await addPizza(page);
  await page.goto(`${pages.serviceUrl}/s/${busy.slug}/cart`);
  await page.getByLabel('Pickup').check();
  await page.getByLabel('At the restaurant').check();
  await page.getByRole('button', { name: 'Place order' }).click();
  await page.getByRole('heading', { name: 'Please wait a moment' }).waitFor();
  assert.ok(await page.getByText(/Your cart is kept: please try again in \d+ minutes?\./).isVisible());
  await screenshot(page, 'storefront-guest-limit');
  await page.getByRole('link', { name: 'Back to your cart' }).click();
  await page.getByRole('heading', { name: 'Your order' }).waitFor();
  await page.close();
});
