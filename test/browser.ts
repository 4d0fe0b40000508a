import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Where the pages' screenshots are kept for a person to look at (ignored by git). */
export const screenshots = path.resolve(import.meta.dirname, '../test-results');

/**
 * Debian's headless Chromium with a fresh profile, for the page tests; `close()` ends it and
 * removes the profile.
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
  });
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
