import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { LocalImageStore } from '../../src/adapters/image-store.ts';
import { setAccentColor } from '../../src/domain/store/storefront-look.ts';
import { pagesInChromium, screenshot } from '../browser.ts';
import { startPhotoHost, testImageFetcher } from '../menu/image-host.ts';
import { ok } from '../menu/menu-helpers.ts';
import { type OrderingTenant, orderingTenant, placeRestaurant } from '../orders/order-helpers.ts';

/*
 * The storefront as the restaurant presents itself, in headless Chromium on a desktop's (1280 px)
 * and a phone's (390 px) screen: its name heads the pages, its address, phone and the week's hours
 * are on the menu, its accent colour heads them, and the dishes' photos (downloaded from the app's addresses and hosted by the
 * service) show as thumbnails on the menu and large on a dish's page, loaded, at the size their
 * width and height reserve; on the phone a dish is added from the menu, the cart bar leads to the
 * checkout, which shows the address for delivery only; on the desktop the menu is filtered (no gluten). Screenshots test-results/storefront-look-*.png.
 */
const imagesDir = mkdtempSync(path.join(tmpdir(), 'servery-storefront-images-'));
const store = new LocalImageStore(imagesDir);
const pages = pagesInChromium({ images: { store, fetcher: testImageFetcher(store) } });
let photos: Awaited<ReturnType<typeof startPhotoHost>>;
before(async () => {
  photos = await startPhotoHost();
});
after(async () => {
  await photos.close();
  rmSync(imagesDir, { recursive: true, force: true });
});

let tenant: OrderingTenant;
let name = '';
/** The restaurant with its address and photos: made by the first test (the service starts before). */
async function restaurant(): Promise<void> {
  if (tenant) return;
  tenant = await orderingTenant(pages.t);
  name = (await ok(pages.t, tenant.token, 'GET', '/store')).name;
  await placeRestaurant(pages.t, tenant);
  await setAccentColor({ ...pages.t.ctx, tenantId: tenant.restaurantId }, '#7a1f5c');
  const opening_hours = [0, 1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, open: '11:30', close: '23:00' }));
  await ok(pages.t, tenant.token, 'PUT', '/store/hours', { always_open: false, opening_hours });
  for (const [product, colour] of [
    [tenant.products.pizza, 'firebrick'],
    [tenant.products.lemonade, 'gold'],
  ] as const) {
    const written = await ok(pages.t, tenant.token, 'PATCH', `/menu/products/${product}`, {
      image_url: `${photos.base}/${colour}.jpg`,
      description: colour === 'gold' ? 'Freshly squeezed, with mint' : 'Tomato, mozzarella, basil',
      ...(colour === 'gold'
        ? { diets: ['vegan'] }
        : { allergens: ['gluten', 'milk'], diets: ['vegetarian'] }),
    });
    assert.equal(written.images?.status, 'ready', JSON.stringify(written.images));
    // The hosted copies are served on the restaurant's own host too, where its pages show them.
    const own = await pages.t.app.inject({
      url: written.images.urls['400'],
      headers: { host: `${tenant.slug}.servery.test` },
    });
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.headers['content-type'], 'image/webp');
  }
}

/** Every picture of the page loaded, each drawn at the size its width and height attributes say. */
async function photosShown(page: Page, selector: string): Promise<number> {
  const shown = await page.locator(selector).evaluateAll((images) =>
    (images as HTMLImageElement[]).map((image) => ({
      loaded: image.complete && image.naturalWidth > 0,
      ratio: image.getBoundingClientRect().width / image.getBoundingClientRect().height,
      reserved: image.width / image.height,
    })),
  );
  for (const image of shown) {
    assert.ok(image.loaded, 'the picture loaded');
    assert.ok(
      Math.abs(image.ratio - image.reserved) < 0.01,
      `drawn ${image.ratio}, reserved ${image.reserved}`,
    );
  }
  return shown.length;
}

for (const { width, height, label } of [
  { width: 1280, height: 900, label: 'desktop' },
  { width: 390, height: 844, label: 'phone' },
]) {
  test(`the menu on a ${label}: the restaurant’s name, where and when, photos of the dishes`, async () => {
    await restaurant();
    const page = await pages.browser.newPage();
    await page.setViewportSize({ width, height });
    await page.goto(`${pages.serviceUrl}/s/${tenant.slug}`);
    assert.equal(await page.title(), name);
    await page.getByRole('link', { name, exact: true }).first().waitFor();
    assert.ok(await page.getByText('Online ordering by Servery').isVisible());
    const header = await page
      .locator('.site-header')
      .evaluate((element) => getComputedStyle(element).backgroundColor);
    assert.equal(header, 'rgb(122, 31, 92)', 'the header in the restaurant’s accent colour');
    assert.ok(await page.getByRole('link', { name: '+49 30 555-0100' }).isVisible());
    assert.ok(await page.getByText('Torstraße 1, 10115 Berlin').isVisible());
    await page.getByText('Opening hours: today, 11:30 AM – 11:00 PM').click();
    assert.ok(await page.getByRole('table').isVisible(), 'the week’s hours open');
    // Lazy pictures load as they come into view: scroll through the menu.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLImageElement>('img.thumb')].every((image) => image.complete),
    );
    assert.equal(await photosShown(page, 'img.thumb'), 2);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, `storefront-look-menu-${label}`);
    if (label === 'phone') {
      // "Add" on the menu, then the cart bar at the bottom of the screen leads to the cart.
      await page.getByRole('button', { name: 'Add Pizza to the cart' }).click();
      await page.getByText('Added to your cart.').waitFor();
      const bar = page.getByRole('link', { name: 'Cart: 1 item €12.00' });
      assert.ok(await bar.isVisible());
      const box = await bar.boundingBox();
      assert.ok(box && box.y + box.height <= height && box.y + box.height > height - 40, 'at the bottom');
      await screenshot(page, `storefront-look-cart-bar-${label}`);
      await bar.click();
      await page.getByRole('heading', { name: 'Checkout' }).waitFor();
      // Only the chosen order type's fields: the address for delivery alone.
      const address = page.getByRole('group', { name: 'Delivery address' });
      assert.equal(await address.isVisible(), false, 'no address for pickup');
      await page.getByLabel('Delivery', { exact: true }).check();
      assert.ok(await address.isVisible(), 'the address for delivery');
      await screenshot(page, `storefront-look-checkout-${label}`);
    } else {
      assert.equal(await page.locator('.cart-bar').count(), 0, 'no cart bar without a cart');
      // The filter: no gluten hides the pizza, and says so.
      await page.getByText('Filter by allergens and diets').click();
      await page.getByLabel('Gluten (cereals)').check();
      await page.getByRole('button', { name: 'Show dishes' }).click();
      await page.getByText('1 dish is hidden by your filter.').waitFor();
      assert.equal(await page.getByRole('link', { name: 'Pizza', exact: true }).count(), 0);
      assert.ok(await page.getByLabel('Gluten (cereals)').isChecked(), 'the form shows the filter');
      await screenshot(page, `storefront-look-filter-${label}`);
      await page.getByRole('link', { name: 'Show all' }).click();
      await page.getByRole('link', { name: 'Pizza', exact: true }).waitFor();
    }

    await page.goto(`${pages.serviceUrl}/s/${tenant.slug}`);
    await page.getByRole('link', { name: 'Pizza', exact: true }).click();
    await page.getByRole('heading', { name: 'Pizza', level: 1 }).waitFor();
    await page.waitForFunction(() => document.querySelector<HTMLImageElement>('img.photo')?.complete);
    assert.equal(await photosShown(page, 'img.photo'), 1);
    await screenshot(page, `storefront-look-product-${label}`);
    await page.close();
  });
}
