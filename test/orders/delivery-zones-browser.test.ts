import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import { pagesInChromium, screenshot } from '../browser.ts';
import { developerSession, newAccount, password } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { orderingTenant } from './order-helpers.ts';

/*
 * Delivery zones in headless Chromium, on a wide screen (1280 px) and a phone's (390 px): the guest
 * sees where the restaurant delivers, is refused a postal code outside every zone (beside the
 * field, the cart kept), sees the zone's fee and the total with it as the postal code is typed
 * (the checkout's script) and places the order in one step, and the order carries the fee; the
 * owner adds, edits and removes zones in the dashboard, a refused form showing every error at
 * once. Screenshots under test-results/delivery-zones-*.png.
 */
const pages = pagesInChromium();
const widths = [1280, 390] as const;

async function pageOf(width: number): Promise<Page> {
  const page = await pages.browser.newPage();
  await page.setViewportSize({ width, height: 900 });
  return page;
}

test('a guest’s delivery: the zones on the menu, a postal code outside them refused, the fee shown, then priced', async () => {
  const tenant = await orderingTenant(pages.t);
  const owner = await developerSession(pages.t, tenant, 'dashboard');
  const zones = await pages.t.app.inject({
    method: 'PATCH',
    url: `/dashboard/api/restaurants/${tenant.restaurantId}/store`,
    headers: { cookie: owner, 'content-type': 'application/json' },
    payload: {
      min_order: 1000,
      delivery_zones: [
        { name: 'Mitte', postal_codes: ['10115', '10117'], fee: 250, min_order: 1500 },
        { name: 'Prenzlauer Berg', postal_codes: ['104*'], fee: 400, min_order: 2000 },
      ],
    },
  });
  assert.equal(zones.statusCode, 200, zones.body);
  for (const width of widths) {
    const page = await pageOf(width);
    await page.goto(`${pages.serviceUrl}/s/${tenant.slug}`);
    await page.getByText('Where we deliver').click();
    const mitte = page.getByRole('listitem').filter({ hasText: 'Mitte' });
    assert.equal(
      (await mitte.innerText()).replace(/\s+/g, ' ').trim(),
      'Mitte · delivery €2.50 · minimum order €15.00 Postal codes: 10115, 10117',
    );
    assert.ok(await page.getByText('Postal codes: 104…').isVisible());
    await screenshot(page, `delivery-zones-menu-${width}`);

    await page.getByRole('link', { name: 'Pizza', exact: true }).click();
    await page.getByLabel('Quantity').fill('2');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByText('Added to your cart.').waitFor();
    await page.goto(`${pages.serviceUrl}/s/${tenant.slug}/cart`);
    await page.getByLabel('Delivery', { exact: true }).check();
    await page.getByLabel('Street and number').fill('Beispielstraße 12');
    await page.getByLabel('Postal code').fill('20095');
    await page.getByLabel('City').fill('Berlin');
    await page.getByLabel('At the restaurant').check();
    await page.getByRole('button', { name: 'Place order' }).click();

    // Outside every zone: the error beside the postal code, the cart and the address kept.
    await page.getByRole('alert').waitFor();
    assert.match(
      (await page.locator('#delivery_postal_code-error').textContent()) ?? '',
      /does not deliver to this postal code/,
    );
    assert.equal(await page.getByLabel('Postal code').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Street and number').inputValue(), 'Beispielstraße 12');
    assert.ok(await page.getByText('Subtotal: €24.00').isVisible());
    await screenshot(page, `delivery-zones-outside-${width}`);

    // In Mitte: as the code is typed, the zone's fee and the total with it; placed in one step.
    await page.getByLabel('Postal code').fill('101');
    assert.ok(await page.getByText('Total: €24.00 plus tip').isVisible(), 'no zone yet');
    await page.getByLabel('Postal code').fill('10115');
    await page.getByText('Delivery to 10115 costs €2.50.').waitFor();
    assert.ok(await page.getByText('Total: €26.50 with €2.50 delivery, plus tip').isVisible());
    await screenshot(page, `delivery-zones-fee-${width}`);
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByRole('heading', { name: 'Thank you for your order' }).waitFor();
    const fee = page.getByRole('row', { name: /Delivery fee/ });
    assert.equal((await fee.innerText()).replace(/\s+/g, ' ').trim(), 'Delivery fee €2.50');
    assert.ok(await page.getByRole('row', { name: 'Total €26.50' }).isVisible());
    await screenshot(page, `delivery-zones-order-${width}`);
    const code = (await page.locator('.order-code strong').textContent()) ?? '';
    const list = await ok(pages.t, tenant.token, 'GET', '/orders?limit=100');
    const order = list.data.find((candidate: { code: string }) => candidate.code === code);
    assert.equal(order.amounts.delivery_fee, 250);
    assert.equal(order.amounts.total, 2650);
    await page.close();
  }
});

test('an owner adds, edits and removes delivery zones; a refused form shows every error at once', async () => {
  const owner = await newAccount(pages.t, false);
  const restaurant = await createRestaurant(pages.t.ctx, {
    name: 'Trattoria Zone',
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    country: 'DE',
    plan: 'pro',
    livemode: true,
    ownerIds: [owner.id],
  });
  const zonesPage = `${pages.serviceUrl}/dashboard/restaurants/${restaurant.id}/store/delivery-zones`;
  for (const width of widths) {
    const page = await pageOf(width);
    await page.goto(zonesPage);
    if (await page.getByLabel('Password').isVisible()) {
      await page.getByLabel('E-mail').fill(owner.email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.goto(zonesPage);
    }
    await page.getByRole('heading', { name: 'Delivery zones', level: 1 }).waitFor();
    const row = (index: number, field: string) => page.locator(`#zone-${index}-${field}`);
    if (width === 1280) {
      // Add one (the empty row), then a second in the new empty row.
      await row(0, 'name').fill('Mitte');
      await row(0, 'postal_codes').fill('10115, 10117\n10119');
      await row(0, 'fee').fill('2.50');
      await row(0, 'min_order').fill('15');
      await page.getByRole('button', { name: 'Save zones' }).click();
      await page.getByText('The delivery zones were saved.').waitFor();
      await row(1, 'name').fill('Kreuzberg');
      await row(1, 'postal_codes').fill('109*');
      await row(1, 'fee').fill('4');
      await row(1, 'min_order').fill('20');
      await page.getByRole('button', { name: 'Save zones' }).click();
      await page.getByText('The delivery zones were saved.').waitFor();
    }
    assert.equal(await row(0, 'postal_codes').inputValue(), '10115, 10117, 10119');
    assert.equal(await row(1, 'fee').inputValue(), '4.00');
    await screenshot(page, `delivery-zones-dashboard-${width}`);

    // Every error at once, beside its field and in the summary.
    await row(0, 'fee').fill('free');
    await row(1, 'postal_codes').fill('10*9');
    await row(2, 'name').fill('New');
    await page.getByRole('button', { name: 'Save zones' }).click();
    const summary = page.getByRole('alert');
    await summary.waitFor();
    assert.equal(await summary.getByRole('link').count(), 5);
    for (const id of [
      'zone-0-fee',
      'zone-1-postal_codes',
      'zone-2-postal_codes',
      'zone-2-fee',
      'zone-2-min_order',
    ])
      assert.equal(await page.locator(`#${id}`).getAttribute('aria-invalid'), 'true', id);
    await screenshot(page, `delivery-zones-dashboard-errors-${width}`);
    await page.goto(zonesPage);
    await page.close();
  }

  // Edit one, remove the other: what the store then shows.
  const page = await pageOf(1280);
  await page.goto(zonesPage);
  await page.locator('#zone-0-fee').fill('3');
  await page.getByLabel('Remove this zone').nth(1).check();
  await page.getByRole('button', { name: 'Save zones' }).click();
  await page.getByText('The delivery zones were saved.').waitFor();
  assert.equal(await page.getByLabel('Remove this zone').count(), 1);
  assert.equal(await page.locator('#zone-0-fee').inputValue(), '3.00');
  await page.close();
});
