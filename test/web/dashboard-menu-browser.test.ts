import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { pagesInChromium, screenshot } from '../browser.ts';
import { feed } from '../events/events-helpers.ts';
import { makeTenant, password } from '../harness.ts';

/*
 * The menu editor in headless Chromium, as an owner uses it: sign in, add a category and a product
 * with allergens, sell it out (also until a time), change its price, see an error beside a field,
 * ask the connected apps to refresh; in English, on a phone, and in German. Screenshots of every
 * step under test-results/dashboard-menu-*.png.
 */
const pages = pagesInChromium();

/** The product's entry on the menu page. */
const productItem = (page: Page, name: string) =>
  page.getByRole('listitem').filter({ has: page.getByRole('heading', { name, exact: true }) });

test('an owner builds the menu: category, product with allergens, sold out, new price, an error, a refresh request', async () => {
  const tenant = await makeTenant(pages.t.ctx);
  const owner = await pages.t.database.db
    .selectFrom('apps as p')
    .innerJoin('accounts as a', 'a.id', 'p.developer_id')
    .select('a.email')
    .where('p.id', '=', tenant.appId)
    .executeTakeFirstOrThrow();

  const page = await pages.browser.newPage();
  await page.goto(`${pages.serviceUrl}/dashboard/restaurants/${tenant.restaurantId}/menu`);
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your restaurants' }).waitFor();
  await page.getByRole('link', { name: /^Restaurant / }).click();
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Menu' }).click();
  await page.getByRole('heading', { name: 'Menu', level: 1 }).waitFor();
  await screenshot(page, 'dashboard-menu-empty');

  await page.getByRole('link', { name: 'Add a category' }).click();
  await page.getByRole('heading', { name: 'Add a category' }).waitFor();
  await page.getByLabel('Name').fill('Pizza');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The category was added.').waitFor();
  assert.ok(await page.getByRole('heading', { name: 'Pizza', level: 2 }).isVisible());

  await page.getByRole('link', { name: 'Add a product here Pizza' }).click();
  await page.getByRole('heading', { name: 'Add a product' }).waitFor();
  assert.equal(await page.getByLabel('Category').locator('option:checked').textContent(), 'Pizza');
  await page.getByLabel('Name').fill('Margherita');
  await page.getByLabel('Description (optional)').fill('Tomato, mozzarella, basil');
  await page.getByLabel('Price in EUR').fill('9.50');
  await page.getByLabel('Gluten (cereals)').check();
  await page.getByLabel('Milk (incl. lactose)').check();
  await page.getByLabel('Other allergens (optional)').fill('Basilikum-Öl');
  await page.getByLabel('Vegetarian').check();
  await screenshot(page, 'dashboard-menu-product-form');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The product was added.').waitFor();
  const margherita = productItem(page, 'Margherita');
  assert.ok(await margherita.getByText('€9.50').isVisible());
  assert.ok(
    await margherita.getByText('Allergens: Gluten (cereals), Milk (incl. lactose), Basilikum-Öl').isVisible(),
  );
  assert.ok(await margherita.getByText('Diets: Vegetarian').isVisible());

  await margherita.getByRole('button', { name: 'Mark sold out Margherita' }).click();
  await page.getByText('Availability changed.').waitFor();
  assert.ok(await productItem(page, 'Margherita').getByText('Sold out', { exact: true }).isVisible());
  await screenshot(page, 'dashboard-menu-sold-out');

  await productItem(page, 'Margherita').getByRole('link', { name: 'Margherita' }).click();
  await page.getByRole('heading', { name: 'Edit product Margherita' }).waitFor();
  assert.equal(await page.getByLabel('Price in EUR').inputValue(), '9.50');
  assert.ok(await page.getByLabel('Milk (incl. lactose)').isChecked());
  await page.getByLabel('Price in EUR').fill('10.50');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The product was saved.').waitFor();
  assert.ok(await productItem(page, 'Margherita').getByText('€10.50').isVisible());

  // An empty name: the error summary and the error beside the field, the other input kept.
  await productItem(page, 'Margherita').getByRole('link', { name: 'Margherita' }).click();
  await page.getByLabel('Name').fill('');
  await page.getByLabel('Price in EUR').fill('11');
  await page.getByRole('button', { name: 'Save' }).click();
  const summary = page.getByRole('alert');
  await summary.waitFor();
  assert.ok(await summary.getByRole('link', { name: /Enter a name/ }).isVisible());
  assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');
  assert.match((await page.locator('#name-error').textContent()) ?? '', /Enter a name/);
  assert.equal(await page.getByLabel('Price in EUR').inputValue(), '11');
  await screenshot(page, 'dashboard-menu-error');
  await page.getByRole('link', { name: 'Back to the menu' }).click();

  // Back on sale, then sold out until a time (the restaurant's, Berlin).
  await productItem(page, 'Margherita').getByRole('button', { name: 'Mark available Margherita' }).click();
  await page.getByText('Availability changed.').waitFor();
  const item = productItem(page, 'Margherita');
  await item.getByText('Until a time…').click();
  await item.getByLabel('Back on sale at').fill('2026-11-02T18:30');
  await item.getByRole('button', { name: 'Mark sold out Margherita' }).click();
  await page.getByText('Availability changed.').waitFor();
  assert.ok(
    await productItem(page, 'Margherita').getByText('Sold out until Nov 2, 2026, 6:30 PM').isVisible(),
  );

  await page.getByLabel('Note for the apps (optional)').fill('New prices for the winter.');
  await page.getByRole('button', { name: 'Send refresh request' }).click();
  await page.getByText('The refresh request was sent to the connected apps.').waitFor();
  const events = await feed(pages.t, tenant.token, '?types=menu.refresh_requested');
  assert.deepEqual(
    events.data.map((event) => event.data.object.note),
    ['New prices for the winter.'],
  );
  await screenshot(page, 'dashboard-menu');
  await page.setViewportSize({ width: 375, height: 740 });
  await screenshot(page, 'dashboard-menu-mobile');
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.getByRole('link', { name: 'Deutsch' }).click();
  await page.getByRole('heading', { name: 'Speisekarte', level: 1 }).waitFor();
  assert.equal(await page.getAttribute('html', 'lang'), 'de');
  assert.ok(await productItem(page, 'Margherita').getByText('10,50 €').isVisible());
  await screenshot(page, 'dashboard-menu-de');
  await productItem(page, 'Margherita').getByRole('link', { name: 'Margherita' }).click();
  await page.getByRole('heading', { name: 'Produkt Margherita bearbeiten' }).waitFor();
  assert.equal(await page.getByLabel('Preis in EUR').inputValue(), '10,50');
  await screenshot(page, 'dashboard-menu-product-de');
  await page.close();
});
