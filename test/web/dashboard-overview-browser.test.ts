import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { pagesInChromium, screenshot, signInToDashboard } from '../browser.ts';
import { newAccount } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { type OrderingTenant, orderingTenant, pickupOrder, place } from '../orders/order-helpers.ts';
import { berlin, insertOrders, simpleOrder } from '../reports/report-helpers.ts';

/*
 * The restaurant's overview in headless Chromium: the owner's page at 1280 and 390 px wide (axe
 * clean), a guest's order showing in its figures without a reload (the script fetches them on the
 * order stream's news), the pause switch, and the staff member's page. Screenshots under
 * test-results/dashboard-overview-*.png.
 */
const pages = pagesInChromium();

async function member(tenant: OrderingTenant, role: 'owner' | 'staff'): Promise<string> {
  const account = await newAccount(pages.t, false);
  await pages.t.ctx.db
    .insertInto('restaurant_members')
    .values({ tenant_id: tenant.restaurantId, account_id: account.id, role })
    .execute();
  return account.email;
}

/** A restaurant's morning: orders today and a week ago, one waiting long, a busy kitchen. */
async function morning(): Promise<OrderingTenant> {
  const tenant = await orderingTenant(pages.t);
  await insertOrders(pages.t.database.db, tenant.restaurantId, [
    simpleOrder(berlin('2026-11-02T09:10')),
    simpleOrder(berlin('2026-11-02T10:05'), { status: 'preparing', type: 'delivery' }),
    simpleOrder(berlin('2026-11-02T10:40'), { status: 'pending' }),
    simpleOrder(berlin('2026-10-26T09:00')),
    simpleOrder(berlin('2026-10-26T10:30')),
    simpleOrder(berlin('2026-10-26T10:45')),
  ]);
  await ok(pages.t, tenant.token, 'PATCH', `/menu/options/${tenant.options.olives}`, {
    available: false,
    unavailable_until: '2026-11-02T16:00:00Z',
  });
  await ok(
    pages.t,
    tenant.token,
    'PATCH',
    '/store',
    { busy: { extra_minutes: 15, until: '2026-11-02T11:00:00Z' } },
    200,
  );
  return tenant;
}

const figure = (page: Page, row: string) =>
  page
    .getByRole('row', { name: new RegExp(`^${row} `) })
    .getByRole('cell')
    .first();

test('the owner’s overview: the figures, a new order without reload, the pause switch', async () => {
  const tenant = await morning();
  const page = await pages.browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInToDashboard(pages, page, await member(tenant, 'owner'));
  await page.getByRole('link', { name: /^Restaurant / }).click();
  await page.getByRole('heading', { name: 'Today', exact: true }).waitFor();
  assert.equal(await figure(page, 'Orders').textContent(), '3');
  assert.equal(await figure(page, 'Takings').textContent(), '€30.00');
  assert.ok(await page.getByRole('heading', { name: 'Needs attention' }).isVisible());
  assert.ok(await page.getByText('1 order has waited over 10 minutes to be accepted.').isVisible());
  assert.ok(await page.getByText('Busy: 15 extra minutes on the lead times until 12:00 PM.').isVisible());
  assert.ok(await page.getByRole('link', { name: 'Olives (Extras)' }).isVisible());
  await screenshot(page, 'dashboard-overview-owner');

  // A guest orders: the figures show it without a reload (the script swaps them in).
  await page.evaluate(() => {
    (window as unknown as { sameDocument: boolean }).sameDocument = true;
  });
  await place(pages.t, tenant, pickupOrder(tenant));
  await page.getByRole('link', { name: /^Pending 2$/ }).waitFor();
  assert.equal(await figure(page, 'Orders').textContent(), '4');
  assert.equal(await figure(page, 'Takings').textContent(), '€61.50');
  assert.equal(
    await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument),
    true,
  );

  // The phone's width: the cards one under another.
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'dashboard-overview-owner-390');

  // Pausing is on the store's pause page; ending the pause is a switch here.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByRole('link', { name: 'Change pause or busy mode' }).click();
  await page.getByRole('heading', { name: 'Pause and busy mode', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Pause orders' }).click();
  await page.getByText('The store is paused: guests cannot order.').waitFor();
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Overview' })
    .click();
  await page.getByText('Orders are paused with no end').waitFor();
  await screenshot(page, 'dashboard-overview-paused');
  await page.getByRole('button', { name: 'End the pause' }).click();
  await page.getByText('The pause has ended: guests can order again.').waitFor();
});

test('the staff member’s overview: orders, no takings, no switches', async () => {
  const tenant = await morning();
  const page = await pages.browser.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await signInToDashboard(pages, page, await member(tenant, 'staff'));
  await page.getByRole('link', { name: /^Restaurant / }).click();
  await page.getByRole('heading', { name: 'Today', exact: true }).waitFor();
  assert.equal(await figure(page, 'Orders').textContent(), '3');
  assert.equal(await page.getByRole('row', { name: /^Takings/ }).count(), 0);
  assert.equal(
    await page
      .getByRole('button')
      .filter({ hasText: /pause|busy/ })
      .count(),
    0,
  );
  assert.ok(await page.getByText('Olives (Extras)').isVisible());
  await screenshot(page, 'dashboard-overview-staff-390');
});
