import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import sharp from 'sharp';
import { LocalImageStore } from '../../src/adapters/image-store.ts';
import { pagesInChromium, screenshot } from '../browser.ts';
import { developerEmail, password } from '../harness.ts';
import { testImageFetcher } from '../menu/image-host.ts';
import { ok } from '../menu/menu-helpers.ts';
import { orderingTenant } from '../orders/order-helpers.ts';

/*
 * An owner gives a dish its photo in headless Chromium: chooses a file in the product form, saves,
 * sees it on the form and the storefront's menu; a file that is no photo is refused beside the
 * field. Screenshots test-results/dashboard-product-photo-*.png at 1280 and 390 px.
 */
const imagesDir = mkdtempSync(path.join(tmpdir(), 'servery-dashboard-photos-'));
const store = new LocalImageStore(imagesDir);
const pages = pagesInChromium({ images: { store, fetcher: testImageFetcher(store) } });
after(() => rmSync(imagesDir, { recursive: true, force: true }));

test('an owner uploads a dish’s photo; a file that is no photo is refused beside the field', async () => {
  const tenant = await orderingTenant(pages.t);
  const soup = await ok(pages.t, tenant.token, 'POST', '/menu/products', { name: 'Tomato soup', price: 650 });
  const page = await pages.browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(
    `${pages.serviceUrl}/dashboard/restaurants/${tenant.restaurantId}/menu/products/${soup.id}`,
  );
  await page.getByLabel('E-mail').fill(await developerEmail(pages.t, tenant));
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your restaurants' }).waitFor();
  const form = `${pages.serviceUrl}/dashboard/restaurants/${tenant.restaurantId}/menu/products/${soup.id}`;
  await page.goto(form);
  await page.getByRole('heading', { name: 'Edit product Tomato soup' }).waitFor();

  const jpeg = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: 'tomato' } })
    .jpeg()
    .toBuffer();
  await page.getByLabel('Choose a photo (optional)').setInputFiles({
    name: 'soup.jpg',
    mimeType: 'image/jpeg',
    buffer: jpeg,
  });
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The product was saved.').waitFor();
  const saved = await ok(pages.t, tenant.token, 'GET', `/menu/products/${soup.id}`);
  assert.equal(saved.images.status, 'ready');

  await page.goto(
    `${pages.serviceUrl}/dashboard/restaurants/${tenant.restaurantId}/menu/products/${soup.id}`,
  );
  const shown = page.getByRole('img', { name: "The product's photo" });
  await shown.waitFor();
  assert.equal(await shown.getAttribute('src'), saved.images.urls['400']);
  assert.ok(await shown.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 400));
  await screenshot(page, 'dashboard-product-photo');

  // A text file named .jpg: refused beside the field; the photo saved before stays.
  await page.getByLabel('Choose another photo (optional)').setInputFiles({
    name: 'notes.jpg',
    mimeType: 'image/jpeg',
    buffer: Buffer.from('not a picture'),
  });
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('alert').waitFor();
  assert.match(
    (await page.locator('#photo-error').textContent()) ?? '',
    /Choose a JPEG, PNG or WebP photo of at most 10 MB/,
  );
  assert.equal(await page.getByLabel('Choose another photo (optional)').getAttribute('aria-invalid'), 'true');
  await screenshot(page, 'dashboard-product-photo-error');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'dashboard-product-photo-error-phone');
  assert.equal(
    (await ok(pages.t, tenant.token, 'GET', `/menu/products/${soup.id}`)).image_url,
    saved.image_url,
  );

  // Guests see it on the menu.
  await page.goto(`${pages.serviceUrl}/s/${tenant.slug}`);
  const thumbnail = page.locator(`img[src="${saved.images.urls['400']}"]`);
  await thumbnail.waitFor();
  assert.ok(await thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0));
  await page.close();
});
