import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { LocalImageStore } from '../../src/adapters/image-store.ts';
import { pagesInChromium, screenshot } from '../browser.ts';
import { developerEmail, password } from '../harness.ts';
import { testImageFetcher } from '../menu/image-host.ts';
import { ok } from '../menu/menu-helpers.ts';
import { orderingTenant } from '../orders/order-helpers.ts';

/*
 * The storefront's logo and cover picture, in headless Chromium: the owner chooses them on the
 * store's settings page (JPEG, PNG or WebP up to 10 MB, kept in the hosted sizes); the storefront
 * shows the logo before the restaurant's name in its header and the cover atop the menu, at the
 * size its width and height reserve; a file that is no picture is refused beside its field and
 * changes nothing; either can be removed. Screenshots test-results/storefront-pictures-*.png
 * (1280 and 390 px) and dashboard-store-pictures*.png.
 */
const imagesDir = mkdtempSync(path.join(tmpdir(), 'servery-store-pictures-'));
const store = new LocalImageStore(imagesDir);
const pages = pagesInChromium({ images: { store, fetcher: testImageFetcher(store) } });
after(() => rmSync(imagesDir, { recursive: true, force: true }));

/** Whether the image has loaded with pixels (not a broken image). */
const loaded = (image: ReturnType<Page['locator']>) =>
  image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0);

test('an owner sets the storefront’s logo and cover picture; guests see them; a bad file is refused', async () => {
  const tenant = await orderingTenant(pages.t);
  const name = (await ok(pages.t, tenant.token, 'GET', '/store')).name;
  const page = await pages.browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${pages.serviceUrl}/dashboard`);
  await page.getByLabel('E-mail').fill(await developerEmail(pages.t, tenant));
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your restaurants' }).waitFor();
  const settings = `${pages.serviceUrl}/dashboard/restaurants/${tenant.restaurantId}/store`;
  await page.goto(settings);

  // A round logo on a transparent ground (PNG) and a wide cover (JPEG).
  const logo = await sharp(
    Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240"><circle cx="120" cy="120" r="110" fill="#9b2226"/></svg>',
    ),
  )
    .png()
    .toBuffer();
  const cover = await sharp({ create: { width: 2400, height: 1000, channels: 3, background: '#e9c46a' } })
    .composite([
      {
        input: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="2400" height="1000"><rect x="0" y="600" width="2400" height="400" fill="#264653"/></svg>',
        ),
      },
    ])
    .jpeg()
    .toBuffer();
  await page
    .getByLabel('Logo (optional)')
    .setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logo });
  await page
    .getByLabel('Cover picture (optional)')
    .setInputFiles({ name: 'cover.jpg', mimeType: 'image/jpeg', buffer: cover });
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByText('The settings were saved.').waitFor();
  assert.ok(await loaded(page.getByRole('img', { name: 'Your logo' })));
  assert.ok(await loaded(page.getByRole('img', { name: 'Your cover picture' })));
  await screenshot(page, 'dashboard-store-pictures');

  // Guests see them: the logo in the header, the cover atop the menu, its space reserved.
  await page.goto(`${pages.serviceUrl}/s/${tenant.slug}`);
  const brand = page.getByRole('link', { name });
  const headerLogo = brand.locator('img.logo');
  assert.ok(await loaded(headerLogo));
  assert.equal(await headerLogo.getAttribute('alt'), '', 'the name beside it says it all');
  const coverImage = page.locator('img.cover');
  assert.ok(await loaded(coverImage));
  assert.equal(await coverImage.getAttribute('width'), '1200');
  assert.equal(await coverImage.getAttribute('height'), '400');
  await screenshot(page, 'storefront-pictures');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'storefront-pictures-phone');
  const box = await coverImage.boundingBox();
  assert.ok(box && Math.abs(box.width / box.height - 3) < 0.05, 'the cover is drawn 3:1');
  await page.setViewportSize({ width: 1280, height: 900 });

  // A text file as the logo: refused beside the field, the logo kept.
  const before = await pages.t.database.db
    .selectFrom('stores')
    .select(['logo_sizes', 'cover_sizes'])
    .where('tenant_id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
  assert.ok(before.logo_sizes && before.cover_sizes);
  await page.goto(settings);
  await page.getByLabel('Logo (optional)').setInputFiles({
    name: 'logo.png',
    mimeType: 'image/png',
    buffer: Buffer.from('no picture'),
  });
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(
    await page.locator('#logo-error').textContent(),
    'Choose a JPEG, PNG or WebP picture of at most 10 MB.',
  );
  await screenshot(page, 'dashboard-store-pictures-error');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'dashboard-store-pictures-error-phone');
  await page.setViewportSize({ width: 1280, height: 900 });
  // A cover over 10 MB: refused beside its field too.
  await page.goto(settings);
  await page.getByLabel('Cover picture (optional)').setInputFiles({
    name: 'huge.jpg',
    mimeType: 'image/jpeg',
    buffer: Buffer.concat([cover, Buffer.alloc(10 * 1024 * 1024)]),
  });
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(
    await page.locator('#cover-error').textContent(),
    'Choose a JPEG, PNG or WebP picture of at most 10 MB.',
  );
  const unchanged = await pages.t.database.db
    .selectFrom('stores')
    .select(['logo_sizes', 'cover_sizes'])
    .where('tenant_id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(unchanged, before);

  // The cover removed: the menu starts with the restaurant's name again.
  await page.goto(settings);
  await page.getByLabel('Remove the cover picture').check();
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByText('The settings were saved.').waitFor();
  assert.equal(await page.getByRole('img', { name: 'Your cover picture' }).count(), 0);
  await page.goto(`${pages.serviceUrl}/s/${tenant.slug}`);
  await page.getByRole('heading', { name, level: 1 }).waitFor();
  assert.equal(await page.locator('img.cover').count(), 0);
  assert.ok(await loaded(page.getByRole('link', { name }).locator('img.logo')));
  await page.close();
});
