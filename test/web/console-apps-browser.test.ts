import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consentToApp } from '../../src/domain/connections/connections.service.ts';
import { pagesInChromium, screenshot } from '../browser.ts';
import { newAccount, password } from '../harness.ts';
import { makeRestaurant } from '../oauth/consent-helpers.ts';

/*
 * The console's app pages in headless Chromium, as a developer uses them: register a confidential
 * app and copy its secret, rotate it, change the redirect URIs (an error, then fixed), see the
 * connected restaurants, the list of apps, and the app's page in German. Screenshots of every step
 * under test-results/console-app*.png.
 */
const pages = pagesInChromium();

/** Whether the token endpoint accepts the client's credentials (a bogus grant then fails after). */
async function secretWorks(clientId: string, secret: string): Promise<boolean> {
  const res = await pages.t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: 'svc_rt_unknown',
      client_id: clientId,
      client_secret: secret,
    }).toString(),
  });
  return res.statusCode !== 401;
}

test('a developer registers an app, copies its secret, rotates it, fixes a redirect URI, sees its connections', async () => {
  const developer = await newAccount(pages.t, true);
  const page = await pages.browser.newPage();
  await page.goto(`${pages.serviceUrl}/console/apps`);
  await page.getByLabel('E-mail').fill(developer.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Apps' }).click();
  await page.getByRole('heading', { name: 'Your apps', level: 1 }).waitFor();
  assert.ok(await page.getByText('You have no apps yet.').isVisible());

  await page.getByRole('link', { name: 'Register an app' }).click();
  await page.getByRole('heading', { name: 'Register an app', level: 1 }).waitFor();
  await page.getByLabel('App name').fill('Kitchen Display');
  await page.getByLabel('Confidential').check();
  await page
    .getByLabel('Redirect URIs')
    .fill('https://kds.example.test/callback\nhttp://localhost:3000/callback');
  await page.getByLabel('orders:read: see your orders').check();
  await page.getByLabel(/orders:write:/).check();
  await page.getByLabel('Website (optional)').fill('https://kds.example.test');
  await screenshot(page, 'console-app-new');
  await page.getByRole('button', { name: 'Register the app' }).click();

  await page.getByRole('heading', { name: 'Kitchen Display', level: 1 }).waitFor();
  assert.ok(await page.getByText('Copy it now: it will not be shown again.').isVisible());
  const secret = (await page.locator('#new-secret').textContent()) ?? '';
  assert.match(secret, /^svc_cs_/);
  const clientId = (await page.locator('.app-details code').textContent()) ?? '';
  assert.match(clientId, /^svc_app_/);
  assert.ok(!page.url().includes(secret));
  assert.ok(!(await pages.browser.cookies()).some((cookie) => cookie.value.includes(secret)));
  assert.ok(await secretWorks(clientId, secret));
  await screenshot(page, 'console-app-created');

  await page.getByRole('button', { name: 'Rotate secret' }).click();
  await page.getByText(/The previous secret keeps working until Nov 3, 2026, 10:00 AM UTC\./).waitFor();
  const rotated = (await page.locator('#new-secret').textContent()) ?? '';
  assert.notEqual(rotated, secret);
  assert.ok(await secretWorks(clientId, rotated));
  assert.ok(await secretWorks(clientId, secret), 'the old secret still works for 24 hours');
  assert.ok(await page.getByRole('cell', { name: 'until Nov 3, 2026, 10:00 AM UTC' }).isVisible());
  await screenshot(page, 'console-app-rotated');

  // The app's page afresh: the secret is not there any more.
  await page.getByRole('link', { name: 'Back to your apps' }).click();
  await page.getByRole('link', { name: 'Kitchen Display' }).click();
  await page.getByRole('heading', { name: 'Kitchen Display', level: 1 }).waitFor();
  assert.equal(await page.locator('#new-secret').count(), 0);
  assert.ok(!(await page.content()).includes(rotated));

  await page
    .getByLabel('Redirect URIs')
    .fill('https://kds.example.test/callback\nhttp://kds.example.test/cb');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByLabel('Redirect URIs').getAttribute('aria-invalid'), 'true');
  assert.equal(
    await page.locator('#redirect_uris-error').textContent(),
    'The redirect URI “http://kds.example.test/cb” must use https: http is allowed only for 127.0.0.1, localhost and [::1].',
  );
  await page
    .getByLabel('Redirect URIs')
    .fill('https://kds.example.test/callback\nhttps://kds.example.test/cb');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The app’s settings were saved.').waitFor();
  assert.equal(
    await page.getByLabel('Redirect URIs').inputValue(),
    'https://kds.example.test/callback\nhttps://kds.example.test/cb',
  );
  await screenshot(page, 'console-app');

  const app = await pages.t.ctx.db
    .selectFrom('apps')
    .select('id')
    .where('client_id', '=', clientId)
    .executeTakeFirstOrThrow();
  const restaurant = await makeRestaurant(pages.t.ctx, [developer.id], { livemode: false });
  await consentToApp(pages.t.ctx, { tenantId: restaurant.id, appId: app.id, scopes: ['orders:read'] });
  await page.getByRole('link', { name: 'Connected restaurants' }).click();
  await page.getByRole('heading', { name: 'Connected restaurants', level: 1 }).waitFor();
  const row = page.getByRole('row', { name: new RegExp(restaurant.name) });
  assert.ok(await row.getByRole('cell', { name: 'orders:read', exact: true }).isVisible());
  assert.ok(await row.getByRole('cell', { name: 'Test', exact: true }).isVisible());
  await screenshot(page, 'console-app-connections');

  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Apps' }).click();
  await page
    .getByRole('row', { name: /Kitchen Display/ })
    .getByText('Waiting for approval')
    .waitFor();
  await screenshot(page, 'console-apps');

  await page.getByRole('link', { name: 'Deutsch' }).click();
  await page.getByRole('heading', { name: 'Ihre Apps', level: 1 }).waitFor();
  await page.getByRole('link', { name: 'Kitchen Display' }).click();
  await page.getByRole('heading', { name: 'Client-Secrets' }).waitFor();
  assert.equal(await page.getAttribute('html', 'lang'), 'de');
  assert.ok(await page.getByRole('button', { name: 'Secret erneuern' }).isVisible());
  assert.ok(await page.getByLabel('Weiterleitungs-URIs').isVisible());
  await screenshot(page, 'console-app-de');
  await page.close();
});
