import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { buildTestApp, type TestApp } from './harness.ts';
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

/** Saves a screenshot of the whole page as test-results/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
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
