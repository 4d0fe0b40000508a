import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pagesInChromium, printScreenshot, screenshot, signInToDashboard } from '../browser.ts';
import { developerEmail } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { orderingTenant, pickupOrder, place } from '../orders/order-helpers.ts';

/*
 * Kitchen tickets in headless Chromium: the owner sets the network printer and automatic printing
 * on the printing page (a refused address beside its field), opens an order's ticket from its card
 * (the print view, on screen and as printed on 80 mm paper), and with automatic printing on, the
 * board prints an order it accepts (its ticket loaded in a frame) once. Screenshots under
 * test-results/kitchen-tickets-*.png, at 1280 and 390 px.
 */
const pages = pagesInChromium();

test('the printing page: a network printer and automatic printing, a refused address beside its field', async () => {
  const tenant = await orderingTenant(pages.t);
  const page = await pages.browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInToDashboard(pages, page, await developerEmail(pages.t, tenant));
  await page.goto(`${pages.serviceUrl}/dashboard/restaurants/${tenant.restaurantId}`);
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Printing' })
    .click();
  await page.getByRole('heading', { name: 'Printing', level: 1 }).waitFor();
  await page.getByLabel('Printer address (optional)').fill('tcp://192.168.1.50');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
  assert.ok(await page.locator('#printer_host-error').isVisible());
  await screenshot(page, 'kitchen-tickets-printing-refused');

  await page.getByLabel('Printer address (optional)').fill('192.168.1.50');
  await page.getByLabel('Port (optional)').fill('9100');
  await page.getByLabel('Print tickets automatically').check();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The printing settings were saved.').waitFor();
  assert.equal(await page.getByLabel('Printer address (optional)').inputValue(), '192.168.1.50');
  assert.ok(await page.getByLabel('Print tickets automatically').isChecked());
  await screenshot(page, 'kitchen-tickets-printing-1280');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'kitchen-tickets-printing-390');
  await page.close();
});

test('an order’s ticket from its card: the print view on screen and on 80 mm paper; the board prints accepted orders once', async () => {
  const tenant = await orderingTenant(pages.t);
  const page = await pages.browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInToDashboard(pages, page, await developerEmail(pages.t, tenant));
  const board = `${pages.serviceUrl}/dashboard/restaurants/${tenant.restaurantId}/orders`;
  const { order } = await place(pages.t, tenant, pickupOrder(tenant, { note: 'No onions, please' }));
  await ok(pages.t, tenant.token, 'POST', `/orders/${order.id}/accept`, { prep_minutes: 20 }, 200);
  await page.goto(board);
  const card = page.locator(`#order-${order.id}`);
  await card.getByRole('link', { name: `Print ticket ${order.code}` }).click();
  await page.getByRole('article', { name: `Kitchen ticket ${order.code}` }).waitFor();
  await page.getByRole('button', { name: 'Print' }).waitFor(); // shown by the page's script
  const ticket = page.locator('.ticket');
  assert.equal(await ticket.locator('.ticket-code').textContent(), order.code);
  assert.ok(await ticket.getByText('2 × Pizza').isVisible());
  assert.ok(await ticket.getByText('+ Cheese').isVisible());
  assert.ok(await ticket.getByText('Note: No onions, please').isVisible());
  await screenshot(page, 'kitchen-tickets-ticket-1280');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'kitchen-tickets-ticket-390');
  // As printed, on a page 80 mm (302 px) wide: the slip alone, the site's header and buttons gone.
  await page.setViewportSize({ width: 302, height: 600 });
  await printScreenshot(page, 'kitchen-tickets-ticket-80mm');
  assert.equal(await page.locator('.site-header').isVisible(), false);
  assert.equal(Math.round((await ticket.boundingBox())?.width ?? 0), 302);
  await page.emulateMedia({ media: 'screen' });

  // Automatic printing on: an order accepted on the board is printed (its ticket loaded in a frame).
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(board);
  await page.getByRole('button', { name: 'Print tickets automatically' }).click();
  await page.getByText('Tickets now print automatically.').waitFor();
  assert.equal(
    await page.getByRole('button', { name: 'Print tickets automatically' }).getAttribute('aria-pressed'),
    'true',
  );
  // Turning it on does not print the orders accepted before.
  const printed = await page.evaluate(
    (key) => localStorage.getItem(key),
    `servery.kitchen.printed.${tenant.restaurantId}`,
  );
  assert.deepEqual(JSON.parse(printed ?? 'null'), [order.id]);
  const { order: next } = await place(pages.t, tenant);
  const nextCard = page.locator(`#order-${next.id}`);
  await nextCard.waitFor();
  const ticketLoaded = page.waitForRequest((request) => request.url().endsWith(`/orders/${next.id}/ticket`));
  await nextCard.getByRole('button', { name: `Accept ${next.code}` }).click();
  await ticketLoaded;
  await page.getByText('The order was accepted.').waitFor();
  await screenshot(page, 'kitchen-tickets-board-1280');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'kitchen-tickets-board-390');
  const stored = await page.evaluate(
    (key) => localStorage.getItem(key),
    `servery.kitchen.printed.${tenant.restaurantId}`,
  );
  assert.deepEqual(new Set(JSON.parse(stored ?? '[]')), new Set([order.id, next.id]));
  await page.close();
});
