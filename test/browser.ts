import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { buildTestApp, password, type TestApp } from './harness.ts';
import { hangCatcherMs } from './waiting.ts';

/** Where the pages' screenshots are kept for a person to look at (ignored by git). */
export const screenshots = path.resolve(import.meta.dirname, '../test-results');

/**
 * Debian's headless Chromium with a fresh profile, for the page tests; `close()` ends it and
 * removes the profile. Every wait of its pages (an element, a navigation, a click's target) lasts
 * until what it waits for happens: the hang-catcher is its only bound, not Playwright's 30 s.
 */
export async function launchChromium(): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  mkdirSync(screenshots, { recursive: true });
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'servery-chromium-'));
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: hangCatcherMs,
  });
  browser.setDefaultTimeout(hangCatcherMs);
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Checks the page with axe-core (no violation allowed) and saves a screenshot of the whole page as
 * test-results/<name>.png: every page a test shows a person is a page axe has checked.
 */
export async function screenshot(page: Page, name: string, of: 'page' | 'email' = 'page'): Promise<void> {
  assert.deepEqual(await accessibilityViolations(page, of), [], `axe-core on ${name}`);
  await page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
}

/**
 * Saves a screenshot of the page as printed (print media) as test-results/<name>.png. axe-core
 * checks pages as shown on the screen (`screenshot`): in print what is only for the screen is
 * gone, the page's heading and navigation with it.
 */
export async function printScreenshot(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ media: 'print' });
  await page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * What axe-core finds wrong on the page as it is now (its rules for WCAG 2.x A and AA, and best
 * practices), one line per rule: the rule and the elements. An e-mail's HTML is shown inside a
 * mail program's page, as an article (role="article"), so the landmarks a page needs do not apply.
 */
async function accessibilityViolations(page: Page, of: 'page' | 'email'): Promise<string[]> {
  // Evaluated by the browser's debugging protocol: the pages' own policy allows no such script.
  await page.evaluate(axeSource);
  const pageOnly = of === 'email' ? ['landmark-one-main', 'region'] : [];
  const { violations, passed } = await page.evaluate(async (off) => {
    const axe = (window as unknown as { axe: { run(options: object): Promise<AxeResults> } }).axe;
    const result = await axe.run({ rules: Object.fromEntries(off.map((id) => [id, { enabled: false }])) });
    return {
      violations: result.violations.map(
        (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      ),
      passed: result.passes.map((rule) => rule.id),
    };
  }, pageOnly);
  // axe ran its rules on this page (a page it could not check would pass vacuously).
  for (const rule of ['document-title', 'html-has-lang'])
    assert.ok(passed.includes(rule), `axe checked ${rule}`);
  return violations;
}
interface AxeResults {
  violations: { id: string; nodes: { target: string[] }[] }[];
  passes: { id: string }[];
}

/** What a page test file drives: the service listening on 127.0.0.1, and a browser. */
export interface PagesUnderTest {
  readonly t: TestApp;
  /** http://127.0.0.1:<port> */
  readonly serviceUrl: string;
  readonly browser: BrowserContext;
}

/**
 * Serves a test app (built with `options`) on 127.0.0.1 and starts Chromium before the file's
 * tests, and ends both after them; the fields are there once the tests run.
 */
export function pagesInChromium(options: Parameters<typeof buildTestApp>[0] = {}): PagesUnderTest {
  const under = {} as { t: TestApp; serviceUrl: string; browser: BrowserContext };
  let closeBrowser: (() => Promise<void>) | undefined;
  before(async () => {
    under.t = await buildTestApp(options);
    await under.t.app.listen({ host: '127.0.0.1', port: 0 });
    under.serviceUrl = `http://127.0.0.1:${(under.t.app.server.address() as AddressInfo).port}`;
    ({ browser: under.browser, close: closeBrowser } = await launchChromium());
  });
  after(async () => {
    await closeBrowser?.();
    await under.t?.close();
  });
  return under;
}

/** Signs in to the dashboard as `email` (the harness's password) afresh: other sign-ins end. */
export async function signInToDashboard(pages: PagesUnderTest, page: Page, email: string): Promise<void> {
  await pages.browser.clearCookies();
  await page.goto(`${pages.serviceUrl}/dashboard/sign-in`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your restaurants' }).waitFor();
}
