import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Page } from 'playwright-core';
import { LocalImageStore } from '../../src/adapters/image-store.ts';
import { type DemoData, seedDemoData } from '../../src/demo/demo-data.ts';
import { pagesInChromium, screenshot } from '../browser.ts';
import { testImageFetcher } from '../menu/image-host.ts';

/*
 * The demo restaurant's storefront as `npm start` makes it, in headless Chromium: every demo
 * product with its drawn photo (thumbnail on the menu, large on its page), the logo in the header
 * and the cover atop the menu, each kept and served by the image pipeline, in the restaurant's
 * language (German). Screenshots test-results/demo-storefront-*.png at 1280 and 390 px.
 */
const imagesDir = mkdtempSync(path.join(tmpdir(), 'servery-demo-pictures-'));
const store = new LocalImageStore(imagesDir);
const fetcher = testImageFetcher(store);
const pages = pagesInChromium({ images: { store, fetcher } });
/** The demo data, made at the first test (the service listens by then). */
let seeded: Promise<DemoData | null> | undefined;
const demoData = async (): Promise<DemoData> => {
  seeded ??= seedDemoData(pages.t.database.db, pages.t.clock, { keeper: fetcher, baseUrl: pages.serviceUrl });
  const demo = await seeded;
  assert.ok(demo);
  return demo;
};
after(() => rmSync(imagesDir, { recursive: true, force: true }));

/** How many of the images are loaded with pixels (none broken). */
const loadedCount = (page: Page, selector: string) =>
  page
    .locator(selector)
    .evaluateAll((images) =>
      images.filter(
        (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0,
      ),
    )
    .then((loaded) => loaded.length);

for (const width of [1280, 390]) {
  test(`the demo restaurant’s menu shows a photo of every product, its logo and cover (${width} px)`, async () => {
    const demo = await demoData();
    const page = await pages.browser.newPage();
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${pages.serviceUrl}/s/${demo.restaurant.slug}`);
    await page.getByRole('heading', { name: 'Trattoria Demo', level: 1 }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'de');
    const thumbs = page.locator('img.thumb');
    assert.equal(await thumbs.count(), 8, 'a photo on each of the 8 demo products');
    // Lazy-loaded thumbnails load as they scroll into view.
    for (const thumb of await thumbs.all()) await thumb.scrollIntoViewIfNeeded();
    await page.waitForFunction(() =>
      [...document.querySelectorAll('img')].every((img) => img.complete && img.naturalWidth > 0),
    );
    assert.equal(await loadedCount(page, 'img.thumb'), 8);
    assert.equal(await loadedCount(page, 'header img'), 1, 'the logo in the header');
    assert.equal(await loadedCount(page, 'img.cover'), 1, 'the cover atop the menu');
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, `demo-storefront-${width}`);

    await page.getByRole('link', { name: 'Margherita' }).click();
    await page.getByRole('heading', { name: 'Margherita', level: 1 }).waitFor();
    await page.waitForFunction(() => {
      const photo = document.querySelector<HTMLImageElement>('img.photo');
      return photo?.complete && photo.naturalWidth > 0;
    });
    await screenshot(page, `demo-storefront-product-${width}`);
    await page.close();
  });
}
