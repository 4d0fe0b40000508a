import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What axe-core finds wrong on the page (its rules for WCAG 2.x A and AA, and best practices). */
async function accessibilityViolations(page: Page): Promise<string[]> {
  // Evaluated by the browser's debugging protocol: the page's own policy allows no script.
  await page.evaluate(axeSource);
  const { violations, passed } = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<AxeResults> } }).axe;
    const result = await axe.run();
    return {
      violations: result.violations.map(
        (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      ),
      passed: result.passes.map((rule) => rule.id),
    };
  });
  // axe ran its rules on this page (a page it could not check would pass vacuously).
  for (const rule of ['document-title', 'html-has-lang', 'color-contrast', 'landmark-one-main']) {
    assert.ok(passed.includes(rule), `axe checked ${rule}`);
  }
  return violations;
}
interface AxeResults {
  violations: { id: string; nodes: { target: string[] }[] }[];
  passes: { id: string }[];
}

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
  assert.deepEqual(await accessibilityViolations(page), []);
  await screenshot(page, 'not-found');

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
  assert.deepEqual(await accessibilityViolations(page), []);
  await screenshot(page, 'not-found-dashboard-de');
  await back.click();
  // Not signed in: the dashboard asks to sign in first.
  await page.waitForURL(/\/dashboard\/sign-in$/);
  assert.deepEqual(errors, []);
  await page.close();
});
