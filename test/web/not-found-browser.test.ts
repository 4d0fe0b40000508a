import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { pagesInChromium, screenshot } from '../browser.ts';

/*
 * The site's not-found page in headless Chromium: an unknown address shows the site's page (status
 * 404) with its heading and a link back, which leads there; axe-core finds no accessibility
 * violations; the page's icon loads and the page's policy refuses nothing. Screenshots under
 * test-results/not-found*.png.
 */
const pages = pagesInChromium();

/** The console's errors (a refused policy, a script error), but the 404 answer's own. */
function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 404/.test(message.text())) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

test('an unknown address shows the site’s not-found page, accessible, with a way back to the front page', async () => {
  const page = await pages.browser.newPage();
  const errors = pageErrors(page);
  const icons: number[] = [];
  page.on('response', (response) => {
    if (/\/favicon\.svg$/.test(response.url())) icons.push(response.status());
  });
  const answer = await page.goto(`${pages.serviceUrl}/no-such-page?lang=en`);
  assert.equal(answer?.status(), 404);
  assert.match((await answer?.headerValue('content-type')) ?? '', /^text\/html/);
  await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
  assert.equal(await page.title(), 'Page not found · Servery');
  assert.ok(await page.getByText('If you typed the web address, check it is correct.').isVisible());
  const back = page.getByRole('link', { name: 'Go to Servery’s front page' });
  assert.equal(await back.getAttribute('href'), '/');
  assert.ok(await page.getByRole('link', { name: 'Deutsch' }).isVisible(), 'the language links');
  await screenshot(page, 'not-found'); // axe-core: no violation

  await back.click();
  await page.waitForURL(`${pages.serviceUrl}/`);
  await page.getByRole('heading', { name: 'Restaurant ordering with an open API', level: 1 }).waitFor();
  assert.deepEqual(errors, []);
  assert.ok(icons.length > 0 && icons.every((status) => status === 200), `icon answers ${icons}`);
  await page.close();
});

test('in the dashboard, the not-found page is the dashboard’s, in German, and leads back to it', async () => {
  const page = await pages.browser.newPage();
  const errors = pageErrors(page);
  const answer = await page.goto(`${pages.serviceUrl}/dashboard/restaurants/nope/menuu?lang=de`);
  assert.equal(answer?.status(), 404);
  await page.getByRole('heading', { name: 'Seite nicht gefunden', level: 1 }).waitFor();
  assert.ok(await page.getByText('Restaurant-Dashboard', { exact: true }).isVisible(), 'the header');
  const back = page.getByRole('link', { name: 'Zum Restaurant-Dashboard' });
  assert.equal(await back.getAttribute('href'), '/dashboard');
  await screenshot(page, 'not-found-dashboard-de');
  await back.click();
  // Not signed in: the dashboard asks to sign in first.
  await page.waitForURL(/\/dashboard\/sign-in$/);
  assert.deepEqual(errors, []);
  await page.close();
});
