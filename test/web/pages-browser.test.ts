import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { withSecondFactor } from '../accounts/second-factor-helpers.ts';
import { pagesInChromium, screenshot } from '../browser.ts';
import { newAccount, password } from '../harness.ts';
import { makeApp, makeRestaurant } from '../oauth/consent-helpers.ts';

/*
 * The console and the dashboard in headless Chromium: sign in (with a second factor), read the
 * lists, follow the links, sign out; a screenshot of every page under test-results/.
 */
const pages = pagesInChromium();

test('console: a developer signs in with a second factor, sees apps and test restaurant, signs out', async () => {
  const developer = await newAccount(pages.t, true);
  const { secret } = await withSecondFactor(pages.t.ctx, developer.id);
  const app = await makeApp(pages.t.ctx, developer.id, {
    name: 'Till Pro',
    redirectUris: ['https://till.test/cb'],
  });
  const pending = await makeApp(pages.t.ctx, developer.id, {
    name: 'Menu Sync',
    status: 'pending',
    redirectUris: ['https://menu.test/cb'],
  });
  const testKitchen = await makeRestaurant(pages.t.ctx, [developer.id], { livemode: false });

  const page = await pages.browser.newPage();
  await page.goto(`${pages.serviceUrl}/console`);
  await page.getByRole('heading', { name: 'Sign in to the developer console' }).waitFor();
  await screenshot(page, 'console-sign-in');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  await screenshot(page, 'console-sign-in-errors');
  await page.getByLabel('E-mail').fill(developer.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
  await page.getByLabel('Code').fill('000000');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('alert').waitFor();
  await screenshot(page, 'console-second-factor-wrong');
  await page
    .getByLabel('Code')
    .fill(
      new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: pages.t.clock.now().getTime() }),
    );
  await page.getByRole('button', { name: 'Continue' }).click();

  await page.getByRole('heading', { name: 'Your apps' }).waitFor();
  const rows = page.getByRole('row');
  assert.ok(await rows.filter({ hasText: 'Till Pro' }).filter({ hasText: app.clientId }).isVisible());
  assert.ok(
    await rows.filter({ hasText: 'Menu Sync' }).filter({ hasText: 'Waiting for approval' }).isVisible(),
  );
  assert.ok(await rows.filter({ hasText: pending.clientId }).isVisible());
  assert.ok(await page.getByText(testKitchen.name).isVisible());
  const nav = page.getByRole('navigation', { name: 'Main navigation' });
  assert.equal(await nav.getByRole('link', { name: 'Home' }).getAttribute('aria-current'), 'page');
  for (const [name, href] of [
    ['Apps', '/console/apps'],
    ['Try it', '/console/try-it'],
    ['Account', '/console/account'],
  ])
    assert.equal(await nav.getByRole('link', { name }).getAttribute('href'), href);
  const inDashboard = page.getByRole('link', { name: testKitchen.name });
  assert.equal(await inDashboard.getAttribute('href'), `/dashboard/restaurants/${testKitchen.id}`);
  assert.equal(
    await rows.filter({ hasText: app.clientId }).getByRole('link', { name: 'Till Pro' }).getAttribute('href'),
    `/console/apps/${app.clientId}`,
  );
  await screenshot(page, 'console-home');
  await page.setViewportSize({ width: 375, height: 740 });
  await screenshot(page, 'console-home-mobile');
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to the developer console' }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/console/sign-in');
  await page.close();
});

test('dashboard: an owner and staff member sees their restaurants, opens one, switches language, signs out', async () => {
  const person = await newAccount(pages.t, false);
  const colleague = await newAccount(pages.t, false);
  const own = await makeRestaurant(pages.t.ctx, [person.id]);
  const staffed = await makeRestaurant(pages.t.ctx, [colleague.id]);
  await pages.t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: staffed.id, account_id: person.id, role: 'staff' })
    .execute();

  const page = await pages.browser.newPage();
  await page.goto(`${pages.serviceUrl}/dashboard`);
  await page.getByRole('heading', { name: 'Sign in to your restaurant dashboard' }).waitFor();
  await screenshot(page, 'dashboard-sign-in');
  await page.getByLabel('E-mail').fill(person.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await page.getByRole('heading', { name: 'Your restaurants' }).waitFor();
  assert.ok(
    await page.getByRole('row').filter({ hasText: own.name }).filter({ hasText: 'Owner' }).isVisible(),
  );
  assert.ok(
    await page.getByRole('row').filter({ hasText: staffed.name }).filter({ hasText: 'Staff' }).isVisible(),
  );
  await screenshot(page, 'dashboard-home');

  await page.getByRole('link', { name: staffed.name }).click();
  await page.getByRole('heading', { name: staffed.name }).waitFor();
  const nav = page.getByRole('navigation', { name: 'Main navigation' });
  for (const section of ['Store', 'Tables', 'Webhooks', 'Orders', 'Menu'])
    assert.ok(await nav.getByText(section).isVisible());
  assert.ok(await page.getByText('Your role: Staff').isVisible());
  await screenshot(page, 'dashboard-restaurant');

  await page.getByRole('link', { name: 'Deutsch' }).click();
  await page.getByRole('heading', { name: staffed.name }).waitFor();
  assert.equal(await page.getAttribute('html', 'lang'), 'de');
  assert.ok(await page.getByText('Ihre Rolle: Personal').isVisible());
  await screenshot(page, 'dashboard-restaurant-de');

  await page.goto(`${pages.serviceUrl}/dashboard/restaurants/00000000-0000-0000-0000-000000000000`);
  await page.getByRole('heading', { name: 'Restaurant nicht gefunden' }).waitFor();
  await screenshot(page, 'dashboard-not-found-de');

  await page.getByRole('button', { name: 'Abmelden' }).click();
  await page.getByRole('heading', { name: 'Beim Restaurant-Dashboard anmelden' }).waitFor();
  await page.close();
});
