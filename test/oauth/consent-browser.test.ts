import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { launchChromium, screenshot } from '../browser.ts';
import { buildTestApp, type TestApp, testBaseUrl } from '../harness.ts';
import { authorizeQuery, makeAccount, makeApp, makeRestaurant, password } from './consent-helpers.ts';
import { pkce } from './oauth-helpers.ts';

/*
 * A real click-through in headless Chromium: the service listens on a local port, the app's
 * redirect URI is a local HTTP receiver, and the browser signs in, picks a restaurant and
 * connects, landing on the receiver with code, state and iss.
 */
let t: TestApp;
let serviceUrl: string;
let receiver: Server;
let receiverPort: number;
const received: string[] = [];
let browser: BrowserContext;
let closeBrowser: (() => Promise<void>) | undefined;

before(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  serviceUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  receiver = createServer((request, response) => {
    received.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>Connected</h1>');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverPort = (receiver.address() as AddressInfo).port;
  ({ browser, close: closeBrowser } = await launchChromium());
});

after(async () => {
  await closeBrowser?.();
  await new Promise((resolve) => receiver?.close(resolve));
  await t?.close();
});

test('an owner signs in, picks a restaurant and connects; the browser lands on the redirect URI with code, state and iss', async () => {
  const developer = await makeAccount(t.ctx, { developer: true });
  const owner = await makeAccount(t.ctx);
  await makeRestaurant(t.ctx, [owner.id]);
  const chosen = await makeRestaurant(t.ctx, [owner.id]);
  const app = await makeApp(t.ctx, developer.id, {
    type: 'public',
    name: 'Till Pro',
    redirectUris: ['http://127.0.0.1/callback'],
  });
  const redirectUri = `http://127.0.0.1:${receiverPort}/callback`;
  const state = 'browser-state-42';
  const query = authorizeQuery({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    state,
    scope: 'orders:read menu:read',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
  });

  const page = await browser.newPage();
  await page.goto(`${serviceUrl}/oauth/authorize?${query}`);
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByLabel('Password').fill(password);
  await screenshot(page, 'consent-sign-in');
  await page.getByRole('button', { name: 'Sign in' }).click();

  await page.getByRole('heading', { name: 'Connect Till Pro to your restaurant' }).waitFor();
  assert.ok(await page.getByText('see your orders').isVisible());
  assert.ok(await page.getByText('see your menu', { exact: true }).isVisible());
  await page.getByRole('radio', { name: chosen.name }).check();
  await screenshot(page, 'consent-connect');
  await Promise.all([
    page.waitForURL(`${redirectUri}?**`),
    page.getByRole('button', { name: 'Connect' }).click(),
  ]);

  const landed = new URL(page.url());
  assert.equal(`${landed.origin}${landed.pathname}`, redirectUri);
  assert.match(landed.searchParams.get('code') ?? '', /^svc_ac_/);
  assert.equal(landed.searchParams.get('state'), state);
  assert.equal(landed.searchParams.get('iss'), testBaseUrl);
  assert.equal(await page.getByRole('heading').textContent(), 'Connected');
  assert.ok(received.some((url) => url.startsWith('/callback?code=svc_ac_')));

  const connection = await t.database.db
    .selectFrom('connections')
    .select(['tenant_id', 'scopes'])
    .where('app_id', '=', app.id)
    .executeTakeFirstOrThrow();
  assert.equal(connection.tenant_id, chosen.id);
  assert.deepEqual(connection.scopes, ['orders:read', 'menu:read']);
});

test('a German consent page: ui_locales=de, the scopes in German, Verbinden connects', async () => {
  const developer = await makeAccount(t.ctx, { developer: true });
  const owner = await makeAccount(t.ctx);
  await makeRestaurant(t.ctx, [owner.id]);
  const app = await makeApp(t.ctx, developer.id, {
    type: 'public',
    name: 'Kasse Plus',
    redirectUris: ['http://127.0.0.1/callback'],
  });
  const redirectUri = `http://127.0.0.1:${receiverPort}/callback`;
  const query = authorizeQuery({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    state: 'de-state',
    scope: 'orders:read store:read',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    ui_locales: 'de',
  });

  await browser.clearCookies(); // signed out of the test before
  const page = await browser.newPage();
  await page.goto(`${serviceUrl}/oauth/authorize?${query}`);
  assert.equal(await page.getAttribute('html', 'lang'), 'de');
  await page.getByLabel('E-Mail').fill(owner.email);
  await page.getByLabel('Passwort').fill('falsch');
  await page.getByRole('button', { name: 'Anmelden' }).click();
  await page.getByRole('alert').waitFor();
  assert.match(
    (await page.getByRole('alert').textContent()) ?? '',
    /Die E-Mail-Adresse oder das Passwort stimmt nicht/,
  );
  await screenshot(page, 'consent-de-sign-in-error');
  await page.getByLabel('Passwort').fill(password);
  await page.getByRole('button', { name: 'Anmelden' }).click();

  await page.getByRole('heading', { name: 'Kasse Plus mit Ihrem Restaurant verbinden' }).waitFor();
  assert.ok(await page.getByText('Ihre Bestellungen sehen').isVisible());
  assert.ok(
    await page
      .getByText('Ihre Restauranteinstellungen, Öffnungszeiten, Tische und Bereiche sehen')
      .isVisible(),
  );
  await screenshot(page, 'consent-de-connect');
  await Promise.all([
    page.waitForURL(`${redirectUri}?**`),
    page.getByRole('button', { name: 'Verbinden' }).click(),
  ]);
  assert.match(new URL(page.url()).searchParams.get('code') ?? '', /^svc_ac_/);
});
