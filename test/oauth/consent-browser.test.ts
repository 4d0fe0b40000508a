import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type BrowserContext, chromium } from 'playwright-core';
import { buildTestApp, type TestApp, testBaseUrl } from '../harness.ts';
import { authorizeQuery, makeAccount, makeApp, makeRestaurant, password } from './consent-helpers.ts';
import { pkce } from './oauth-helpers.ts';

/** Where the pages' screenshots are kept for a person to look at (ignored by git). */
const screenshots = path.resolve(import.meta.dirname, '../../test-results');
mkdirSync(screenshots, { recursive: true });

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
let userDataDir: string;
let browser: BrowserContext;

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
  userDataDir = mkdtempSync(path.join(tmpdir(), 'servery-chromium-'));
  browser = await chromium.launchPersistentContext(userDataDir, {
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
});

after(async () => {
  await browser?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
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
  await page.screenshot({ path: path.join(screenshots, 'consent-sign-in.png'), fullPage: true });
  await page.getByRole('button', { name: 'Sign in' }).click();

  await page.getByRole('heading', { name: 'Connect Till Pro to your restaurant' }).waitFor();
  assert.ok(await page.getByText('see your orders').isVisible());
  assert.ok(await page.getByText('see your menu', { exact: true }).isVisible());
  await page.getByRole('radio', { name: chosen.name }).check();
  await page.screenshot({ path: path.join(screenshots, 'consent-connect.png'), fullPage: true });
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
