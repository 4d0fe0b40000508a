import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { type QueuedEmail, renderEmail } from '../../src/domain/email/email-templates.ts';
import { pagesInChromium, printScreenshot, screenshot } from '../browser.ts';
import { type OrderingTenant, orderingTenant, placeRestaurant } from '../orders/order-helpers.ts';

/*
 * The checkout's e-mail field and the order's receipt in headless Chromium: paying online without
 * an e-mail is refused beside the field; with one, the order's page links to its receipt, made for
 * printing (the restaurant's address and VAT id, the items, totals and VAT per rate). Screenshots
 * at 1280 and 390 px under test-results/storefront-receipt-*.png and storefront-checkout-email-*.png.
 */
const pages = pagesInChromium();
let tenant: OrderingTenant;

async function restaurant(): Promise<OrderingTenant> {
  if (tenant) return tenant;
  tenant = await orderingTenant(pages.t);
  await placeRestaurant(pages.t, tenant);
  await pages.t.database.db
    .updateTable('stores')
    .set({ vat_id: 'DE123456789' })
    .where('tenant_id', '=', tenant.restaurantId)
    .execute();
  return tenant;
}

async function pageOfWidth(width: number): Promise<Page> {
  await restaurant();
  const page = await pages.browser.newPage();
  await page.setViewportSize({ width, height: 900 });
  return page;
}

/** A pizza with cheese, twice, and a large lemonade into the cart, then the cart. */
async function fillCart(page: Page): Promise<void> {
  await page.goto(`${pages.serviceUrl}/s/${tenant.slug}/p/${tenant.products.pizza}`);
  await page.getByLabel('Cheese').check();
  await page.getByLabel('Quantity').fill('2');
  await page.getByRole('button', { name: 'Add to cart' }).click();
  await page.getByText('Added to your cart.').waitFor();
  await page.goto(`${pages.serviceUrl}/s/${tenant.slug}/p/${tenant.products.lemonade}`);
  await page.getByLabel('Large').check();
  await page.getByRole('button', { name: 'Add to cart' }).click();
  await page.getByText('Added to your cart.').waitFor();
  await page.goto(`${pages.serviceUrl}/s/${tenant.slug}/cart`);
}

for (const width of [1280, 390]) {
  test(`${width} px: paying online needs the e-mail; the order's receipt prints`, async () => {
    const page = await pageOfWidth(width);
    await fillCart(page);
    await page.getByLabel('Pickup').check();
    await page.getByLabel('Online now').check();
    await page.getByRole('button', { name: 'Place order' }).click();
    const summary = page.getByRole('alert');
    await summary.waitFor();
    const message = 'Enter your e-mail address, for example name@example.com: you need it to pay online.';
    assert.ok(await summary.getByRole('link', { name: message }).isVisible());
    const email = page.getByLabel('E-mail (optional)');
    assert.equal(await email.getAttribute('aria-invalid'), 'true');
    assert.equal(await email.getAttribute('type'), 'email');
    assert.equal(await email.getAttribute('autocomplete'), 'email');
    assert.equal((await page.locator('#guest_email-error').textContent())?.trim(), message);
    await screenshot(page, `storefront-checkout-email-${width}`);

    await email.fill('ada@example.test');
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    await page.getByRole('heading', { name: 'Thank you for your order' }).waitFor();
    await page.getByRole('link', { name: 'Receipt to print' }).click();
    await page.getByRole('heading', { name: 'Receipt', level: 1 }).waitFor();
    const main = (await page.locator('main').textContent()) ?? '';
    for (const shown of [
      'Torstraße 1, 10115 Berlin',
      'VAT ID: DE123456789',
      '2 × Pizza',
      'Cheese',
      '1 × Lemonade',
      '€27.00',
      'incl. 7% VAT',
      'incl. 19% VAT',
      'Total',
      '€31.50',
      'Paid online',
    ])
      assert.ok(main.includes(shown), `the receipt shows ${shown}`);
    await page.getByRole('button', { name: 'Print' }).waitFor(); // shown by the page's script
    await screenshot(page, `storefront-receipt-${width}`);
    await printScreenshot(page, `storefront-receipt-print-${width}`);
    await page.close();
  });
}

test('the confirmation e-mail’s HTML, as the worker renders it, reads well and passes axe (1280 and 390 px)', async () => {
  const page = await pageOfWidth(1280);
  const rows = await pages.t.database.db
    .selectFrom('jobs')
    .select('payload')
    .where('tenant_id', '=', tenant.restaurantId)
    .where('kind', '=', 'email')
    .execute();
  const queued = rows
    .map((row) => row.payload as QueuedEmail)
    .find((mail) => mail.template === 'orderPlaced');
  assert.ok(queued, 'the order’s confirmation was queued');
  const mail = renderEmail(queued);
  assert.ok(mail.html);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.setContent(mail.html);
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    assert.ok(await page.getByRole('table').isVisible(), 'the items as a table');
    assert.ok(await page.getByText('VAT ID: DE123456789').isVisible());
    await screenshot(page, `storefront-confirmation-mail-${width}`, 'email');
  }
  await page.close();
});

test('a receipt without the order’s key is not found', async () => {
  const page = await pageOfWidth(390);
  const res = await page.goto(`${pages.serviceUrl}/s/${tenant.slug}/o/sgk_nothing/receipt`);
  assert.equal(res?.status(), 404);
  await page.close();
});
