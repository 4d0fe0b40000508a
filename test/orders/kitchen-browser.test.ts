import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { pagesInChromium, screenshot, signInToDashboard } from '../browser.ts';
import { newAccount } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { type OrderingTenant, orderingTenant, pickupOrder, place } from './order-helpers.ts';

/*
 * The order board in headless Chromium, as the kitchen uses it: the owner opens the board, a
 * guest's order arrives without a reload (highlighted and announced), is accepted with a prep
 * time, moved on and cancelled with a reason; busy mode; a refused reason beside its field; a
 * staff member's board. Screenshots under test-results/kitchen-*.png.
 */
const pages = pagesInChromium();

async function ownerEmail(tenant: OrderingTenant): Promise<string> {
  const owner = await pages.t.database.db
    .selectFrom('apps as p')
    .innerJoin('accounts as a', 'a.id', 'p.developer_id')
    .select('a.email')
    .where('p.id', '=', tenant.appId)
    .executeTakeFirstOrThrow();
  return owner.email;
}

/** Signs in afresh (the browser's cookies are shared by its pages). */
const column = (page: Page, status: string) =>
  page.getByRole('region', { name: new RegExp(`^${status} \\d+$`) });

test('the owner works the board: a guest’s order appears without reload, is accepted, moved on and cancelled', async () => {
  const tenant = await orderingTenant(pages.t);
  const page = await pages.browser.newPage();
  await signInToDashboard(pages, page, await ownerEmail(tenant));
  await page.getByRole('link', { name: /^Restaurant / }).click();
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Orders' })
    .click();
  await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
  assert.ok(await page.getByRole('heading', { name: 'Busy mode' }).isVisible());
  for (const status of ['Pending', 'Confirmed', 'Preparing', 'Ready', 'Completed', 'Cancelled'])
    assert.ok(await column(page, status).isVisible(), status);
  await screenshot(page, 'kitchen-board-empty');
  // The chime is switched on (a click lets the browser play sound), and stays so on the next pages.
  const sound = page.getByRole('button', { name: 'Turn on sound for new orders' });
  await sound.click();
  assert.equal(await page.locator('#board-sound').getAttribute('aria-pressed'), 'true');
  assert.equal(await page.locator('#board-sound').textContent(), 'Sound on for new orders');

  // A guest orders through the storefront's API: the board shows it without a reload.
  await page.evaluate(() => {
    (window as unknown as { sameDocument: boolean }).sameDocument = true;
  });
  const { order } = await place(pages.t, tenant, pickupOrder(tenant, { note: 'No onions, please' }));
  const card = page.locator(`#order-${order.id}`);
  await card.waitFor();
  assert.equal(
    await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument),
    true,
  );
  assert.ok(await column(page, 'Pending').locator(`#order-${order.id}`).isVisible());
  assert.ok(await card.getByText('New', { exact: true }).isVisible());
  assert.equal(await page.locator('#board-news').textContent(), `New order: ${order.code}`);
  assert.equal(await page.locator('#board-news').getAttribute('aria-live'), 'polite');
  assert.ok(await card.getByRole('heading', { name: order.code }).isVisible());
  assert.ok(await card.getByText('Pickup').isVisible());
  assert.ok(await card.getByText('Placed Nov 2, 2026, 11:00 AM').isVisible());
  assert.ok(await card.getByText('As soon as possible').isVisible());
  assert.ok(
    await card.getByRole('listitem').filter({ hasText: '2 × Pizza' }).getByText('Cheese').isVisible(),
  );
  assert.ok(
    await card.getByRole('listitem').filter({ hasText: '1 × Lemonade' }).getByText('Large').isVisible(),
  );
  assert.ok(await card.getByText('Note: No onions, please').isVisible());
  assert.ok(await card.getByText('Total €31.50 · pay on site').isVisible());
  await screenshot(page, 'kitchen-board-new-order');

  await card.getByLabel('Ready in').selectOption('15');
  await card.getByRole('button', { name: `Accept ${order.code}` }).click();
  await page.getByText('The order was accepted.').waitFor();
  assert.equal(await page.locator('#board-sound').getAttribute('aria-pressed'), 'true');
  assert.ok(await column(page, 'Confirmed').locator(`#order-${order.id}`).isVisible());
  assert.ok(await card.getByText('Ready by Nov 2, 2026, 11:15 AM').isVisible());
  const accepted = await ok(pages.t, tenant.token, 'GET', `/orders/${order.id}`);
  assert.equal(accepted.status, 'confirmed');
  assert.equal(new Date(accepted.estimated_ready_at).getTime(), pages.t.clock.now().getTime() + 15 * 60_000);

  await card.getByRole('button', { name: `Advance to Preparing ${order.code}` }).click();
  await page.getByText('The order was moved on.').waitFor();
  assert.ok(await column(page, 'Preparing').locator(`#order-${order.id}`).isVisible());
  await screenshot(page, 'kitchen-board-preparing');

  await card.getByText('Cancel…').click();
  await card.getByLabel('Reason (optional)').fill('The oven broke down.');
  await screenshot(page, 'kitchen-board-cancel-reason');
  await card.getByRole('button', { name: `Cancel order ${order.code}` }).click();
  await page.getByText('The order was cancelled.').waitFor();
  assert.ok(await column(page, 'Cancelled').locator(`#order-${order.id}`).isVisible());
  assert.ok(await card.getByText('Cancelled by the restaurant: The oven broke down.').isVisible());
  const cancelled = await ok(pages.t, tenant.token, 'GET', `/orders/${order.id}`);
  assert.deepEqual(cancelled.cancellation, { reason: 'The oven broke down.', by: 'restaurant' });
  await screenshot(page, 'kitchen-board-cancelled');
  await page.close();
});

test('busy mode from the board, a refused reason beside its field, the board on a phone, in German and for staff', async () => {
  const tenant = await orderingTenant(pages.t);
  const page = await pages.browser.newPage();
  await signInToDashboard(pages, page, await ownerEmail(tenant));
  const { order } = await place(pages.t, tenant);
  await page.goto(`${pages.serviceUrl}/dashboard/restaurants/${tenant.restaurantId}/orders`);

  await page.getByRole('button', { name: '+30 min for an hour' }).click();
  await page.getByText('Busy mode is on for an hour.').waitFor();
  assert.ok(
    await page.getByText('Busy: guests are told 30 more minutes, until Nov 2, 2026, 12:00 PM.').isVisible(),
  );
  assert.deepEqual((await ok(pages.t, tenant.token, 'GET', '/store')).busy, {
    extra_minutes: 30,
    until: '2026-11-02T11:00:00.000Z',
  });
  await screenshot(page, 'kitchen-board-busy');

  // Without the browser's length limit (as a script-less or old browser sends it): the server refuses.
  const card = page.locator(`#order-${order.id}`);
  await card.getByText('Reject…').click();
  await card.getByLabel('Reason (optional)').evaluate((field) => field.removeAttribute('maxlength'));
  await card.getByLabel('Reason (optional)').fill('x'.repeat(201));
  await card.getByRole('button', { name: `Reject order ${order.code}` }).click();
  await page.getByRole('alert').filter({ hasText: 'There is a problem' }).waitFor();
  const field = page.locator(`#reason-${order.id}`);
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  assert.match(
    (await page.locator(`#reason-${order.id}-error`).textContent()) ?? '',
    /at most 200 characters/,
  );
  assert.equal((await field.inputValue()).length, 201);
  assert.equal((await ok(pages.t, tenant.token, 'GET', `/orders/${order.id}`)).status, 'pending');
  await screenshot(page, 'kitchen-board-reason-error');

  await page.getByRole('button', { name: 'End busy mode' }).click();
  await page.getByText('Busy mode has ended.').waitFor();
  assert.equal((await ok(pages.t, tenant.token, 'GET', '/store')).busy, null);

  await page.setViewportSize({ width: 375, height: 740 });
  await screenshot(page, 'kitchen-board-mobile');
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.getByRole('link', { name: 'Deutsch' }).click();
  await page.getByRole('heading', { name: 'Bestellungen', level: 1 }).waitFor();
  assert.ok(
    await page.locator(`#order-${order.id}`).getByText('Summe 31,50 € · Zahlung vor Ort').isVisible(),
  );
  await screenshot(page, 'kitchen-board-de');
  await page.getByRole('link', { name: 'English' }).click();
  await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
  await page.close();

  // Staff work the board too, without busy mode's buttons (the store settings are the owners').
  const staff = await newAccount(pages.t, false);
  await pages.t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: tenant.restaurantId, account_id: staff.id, role: 'staff' })
    .execute();
  const staffPage = await pages.browser.newPage();
  await signInToDashboard(pages, staffPage, staff.email);
  await staffPage.goto(`${pages.serviceUrl}/dashboard/restaurants/${tenant.restaurantId}/orders`);
  await staffPage.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
  assert.equal(await staffPage.getByRole('button', { name: '+30 min for an hour' }).count(), 0);
  await staffPage
    .locator(`#order-${order.id}`)
    .getByRole('button', { name: `Accept ${order.code}` })
    .click();
  await staffPage.getByText('The order was accepted.').waitFor();
  assert.equal((await ok(pages.t, tenant.token, 'GET', `/orders/${order.id}`)).status, 'confirmed');
  await staffPage.close();
});
