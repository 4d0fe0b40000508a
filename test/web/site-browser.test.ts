import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { pagesInChromium, screenshot, screenshots } from '../browser.ts';

/*
 * The site in headless Chromium: the front page leads to the API reference, which Redoc renders
 * from our own document with nothing fetched from another host and nothing refused by the page's
 * Content-Security-Policy; a visitor signs up as a developer (after one refusal) and lands on the
 * console's home with their test restaurant; the front page in German. Screenshots under
 * test-results/site-*.png and console-sign-up*.png.
 */
const pages = pagesInChromium();

/** Lets the page reach our own host only; returns what it tried elsewhere and what the CSP refused. */
async function offline(page: Page): Promise<{ elsewhere: string[]; refused: string[] }> {
  const elsewhere: string[] = [];
  const refused: string[] = [];
  await page.route('**', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    elsewhere.push(url.href);
    return route.abort();
  });
  page.on('console', (message) => {
    if (message.type() === 'error') refused.push(message.text());
  });
  page.on('pageerror', (error) => refused.push(error.message));
  return { elsewhere, refused };
}

test('the front page leads to the API reference, rendered from our document without any other host', async () => {
  const page = await pages.browser.newPage();
  const seen = await offline(page);
  await page.goto(`${pages.serviceUrl}/`);
  await page.getByRole('heading', { name: 'Restaurant ordering with an open API', level: 1 }).waitFor();
  for (const name of ['Developer console', 'Restaurant dashboard', 'API reference', 'OpenAPI document']) {
    assert.ok(await page.getByRole('link', { name, exact: true }).isVisible(), name);
  }
  await screenshot(page, 'site-home');

  await page.getByRole('link', { name: 'API reference', exact: true }).click();
  await page.waitForURL(/\/docs$/);
  // Redoc's headings: the document's title, and an operation of it with its path.
  await page.getByRole('heading', { name: /Servery/, level: 1 }).waitFor();
  const listOrders = page.getByRole('heading', { name: 'Orders, most recently changed first', level: 2 });
  await listOrders.waitFor();
  await listOrders.scrollIntoViewIfNeeded();
  assert.ok(await page.getByText('/orders', { exact: true }).first().isVisible());
  await page.evaluate(() => window.scrollTo(0, 0));
  // The reference is long: its first screen only.
  await page.screenshot({ path: path.join(screenshots, 'site-docs.png') });
  assert.deepEqual(seen.elsewhere, []);
  // Redoc's side menu always asks for Redocly's logo from their CDN: the page's policy refuses it
  // before any request (the image then hides itself); nothing else is refused.
  assert.deepEqual(
    seen.refused.map((text) => text.replace(/ violates .*/s, '')),
    ["Loading the image 'https://cdn.redoc.ly/redoc/logo-mini.svg'"],
  );

  await page.goto(`${pages.serviceUrl}/?lang=de`);
  await page.getByRole('link', { name: 'API-Referenz', exact: true }).waitFor();
  assert.ok(await page.getByText('Servery ist eine quelloffene Bestellplattform').isVisible());
  await screenshot(page, 'site-home-de');
  await page.close();
});

test('a visitor signs up as a developer, after one refusal, and lands on the console with the test restaurant', async () => {
  const page = await pages.browser.newPage();
  await page.goto(`${pages.serviceUrl}/console/sign-in?lang=en`);
  await page.getByRole('link', { name: 'Create a developer account' }).click();
  await page.getByRole('heading', { name: 'Create a developer account', level: 1 }).waitFor();
  await screenshot(page, 'console-sign-up');

  await page.getByLabel('E-mail').fill('katherine@dev.example.test');
  await page.getByLabel('Name (optional)').fill('Katherine Johnson');
  await page.getByLabel('Password').fill('too short');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('alert').waitFor();
  assert.ok(
    await page
      .locator('#password-error')
      .getByText('Choose a password of 10 to 1,000 characters.')
      .isVisible(),
  );
  assert.equal(await page.getByLabel('E-mail').inputValue(), 'katherine@dev.example.test');
  assert.equal(await page.getByLabel('Name (optional)').inputValue(), 'Katherine Johnson');
  await screenshot(page, 'console-sign-up-error');

  await page.getByLabel('Password').fill('orbital mechanics');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/console$/);
  await page.getByRole('heading', { name: 'Your test restaurant' }).waitFor();
  assert.ok(await page.getByRole('cell', { name: 'Katherine Johnson Test Restaurant' }).isVisible());
  const inDashboard = page.getByRole('link', { name: 'Katherine Johnson Test Restaurant' });
  assert.match((await inDashboard.getAttribute('href')) ?? '', /^\/dashboard\/restaurants\/[0-9a-f-]{36}$/);
  assert.ok(await page.getByText('Signed in as katherine@dev.example.test').isVisible());
  await screenshot(page, 'console-sign-up-done');
  await page.close();
});
