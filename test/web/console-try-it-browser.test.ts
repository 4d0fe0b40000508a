import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { buildApp } from '../../src/app.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { launchChromium, screenshot } from '../browser.ts';
import { freePort, openTestDatabase, TestClock } from '../harness.ts';
import { makeAccount, makeApp, makeRestaurant, password } from '../oauth/consent-helpers.ts';

/*
 * "Try it" in headless Chromium, the whole flow on a real socket: the console, the consent page and
 * the API all at the address the service listens on (its base URL, so the callback is a loopback
 * redirect URI and the page's commands name the real address). A confidential app (the callback
 * added from the page, a wrong secret, then the right one) and a public app in German, each ending
 * with a token that reads the test restaurant's store.
 */
let serviceUrl: string;
let close: () => Promise<void>;
let browser: BrowserContext;
let ctx: ReturnType<typeof systemCtx>;

before(async () => {
  const port = await freePort();
  serviceUrl = `http://127.0.0.1:${port}`;
  const database = await openTestDatabase();
  const clock = new TestClock(new Date());
  const app = await buildApp({ config: { baseUrl: serviceUrl }, db: database.db, clock });
  await app.listen({ host: '127.0.0.1', port });
  ctx = systemCtx(database.db, clock);
  const chromium = await launchChromium();
  browser = chromium.browser;
  close = async () => {
    await chromium.close();
    await app.close();
    await database.close();
  };
});
after(() => close?.());

async function developerWithTestRestaurant() {
  const account = await makeAccount(ctx, { developer: true });
  const restaurant = await makeRestaurant(ctx, [account.id], { livemode: false });
  return { ...account, restaurant };
}

/** The store the shown access token reads, as an app would call it. */
async function storeWith(page: Page): Promise<{ status: number; id: string }> {
  const token = (await page.locator('#access-token').textContent()) ?? '';
  assert.match(token, /^svc_at_/);
  const command = (await page.locator('#store-command').textContent()) ?? '';
  assert.equal(command, `curl -H "Authorization: Bearer ${token}" ${serviceUrl}/v1/store`);
  const response = await fetch(`${serviceUrl}/v1/store`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, id: ((await response.json()) as { id: string }).id };
}

test('a confidential app: add the callback, start, consent as the test restaurant’s owner, paste the secret, get tokens that work', async () => {
  const dev = await developerWithTestRestaurant();
  const app = await makeApp(ctx, dev.id, {
    name: 'Till Pro',
    redirectUris: ['https://till.example.test/callback'],
    scopes: ['orders:read', 'store:read'],
  });
  await browser.clearCookies();
  const page = await browser.newPage();
  await page.goto(`${serviceUrl}/console/sign-in`);
  await page.getByLabel('E-mail').fill(dev.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Try it' }).click();

  await page.getByRole('heading', { name: 'Try Till Pro' }).waitFor();
  assert.ok(await page.getByText(`${serviceUrl}/console/try-it/callback`).isVisible());
  await page.getByRole('button', { name: 'Add this redirect URI to the app' }).click();
  await page.getByRole('status').waitFor();
  assert.equal(await page.getByRole('status').textContent(), 'The redirect URI was added to the app.');
  await page.getByRole('checkbox', { name: 'orders:read' }).uncheck();
  await screenshot(page, 'console-try-it');
  await page.getByRole('button', { name: 'Start the OAuth flow' }).click();

  // The consent page has its own session: the developer signs in there as the restaurant's owner.
  await page.getByLabel('E-mail').fill(dev.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Connect Till Pro to your restaurant' }).waitFor();
  assert.equal(await page.getByRole('radio').count(), 1, 'a loopback callback: the test restaurant only');
  assert.ok(await page.getByRole('radio').isChecked());
  await screenshot(page, 'console-try-it-consent');
  await page.getByRole('button', { name: 'Connect', exact: true }).click();

  await page.getByRole('heading', { name: 'Exchange the code for Till Pro' }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/console/try-it/secret');
  await page.getByLabel('Client secret').fill('svc_cs_not-the-secret');
  await page.getByRole('button', { name: 'Exchange the code' }).click();
  await page.locator('#client_secret-error').waitFor();
  assert.equal(
    await page.locator('#client_secret-error').textContent(),
    'The token endpoint refused this client secret: it is wrong or has expired.',
  );
  await screenshot(page, 'console-try-it-secret');
  await page.getByLabel('Client secret').fill(app.clientSecret ?? '');
  await page.getByRole('button', { name: 'Exchange the code' }).click();

  await page.getByRole('heading', { name: `Till Pro is connected to ${dev.restaurant.name}` }).waitFor();
  assert.match((await page.getByRole('status').textContent()) ?? '', /shown only now/);
  assert.equal(
    await page
      .getByRole('row', { name: /Scopes/ })
      .locator('td')
      .textContent(),
    'store:read',
  );
  await screenshot(page, 'console-try-it-tokens');
  assert.deepEqual(await storeWith(page), { status: 200, id: dev.restaurant.id });
});

test('a public app in German: PKCE alone exchanges the code, the token reads the store', async () => {
  const dev = await developerWithTestRestaurant();
  await makeApp(ctx, dev.id, {
    type: 'public',
    status: 'pending',
    name: 'Kasse Mobil',
    redirectUris: [`${serviceUrl}/console/try-it/callback`],
    scopes: ['store:read'],
  });
  await browser.clearCookies();
  const page = await browser.newPage();
  await page.goto(`${serviceUrl}/console/sign-in?lang=de`);
  await page.getByLabel('E-Mail').fill(dev.email);
  await page.getByLabel('Passwort').fill(password);
  await page.getByRole('button', { name: 'Anmelden' }).click();
  await page.getByRole('link', { name: 'Ausprobieren' }).click();

  await page.getByRole('heading', { name: 'Kasse Mobil ausprobieren' }).waitFor();
  assert.ok(await page.getByText('Kasse Mobil wartet auf die Freigabe').isVisible());
  await screenshot(page, 'console-try-it-de');
  await page.getByRole('button', { name: 'OAuth-Ablauf starten' }).click();

  await page.getByLabel('E-Mail').fill(dev.email);
  await page.getByLabel('Passwort').fill(password);
  await page.getByRole('button', { name: 'Anmelden' }).click();
  await page.getByRole('heading', { name: 'Kasse Mobil mit Ihrem Restaurant verbinden' }).waitFor();
  await page.getByRole('button', { name: 'Verbinden' }).click();

  await page.getByRole('heading', { name: `Kasse Mobil ist mit ${dev.restaurant.name} verbunden` }).waitFor();
  assert.match((await page.getByRole('status').textContent()) ?? '', /nur jetzt angezeigt/);
  await screenshot(page, 'console-try-it-de-tokens');
  assert.deepEqual(await storeWith(page), { status: 200, id: dev.restaurant.id });
});
