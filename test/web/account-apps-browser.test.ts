import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { pagesInChromium, screenshot } from '../browser.ts';
import { bearer, makeTenant, newAccount, password } from '../harness.ts';

/*
 * The account page and the connected apps in headless Chromium: an owner sets up the second
 * factor from the secret the page shows, signs out and in again with it, then disconnects an app
 * of their restaurant (once in German); a screenshot of every page under test-results/.
 */
const pages = pagesInChromium();

const codeOf = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: pages.t.clock.now().getTime() });

test('an owner sets up the second factor, signs in with it, and disconnects an app', async () => {
  const owner = await newAccount(pages.t, false);
  const tenant = await makeTenant(pages.t.ctx, { scopes: ['orders:read', 'orders:write', 'menu:read'] });
  const other = await makeTenant(pages.t.ctx, { scopes: ['reports:read'] });
  for (const { restaurantId, appId } of [tenant, other]) {
    await pages.t.ctx.db
      .insertInto('restaurant_members')
      .values({ tenant_id: restaurantId, account_id: owner.id, role: 'owner' })
      .execute();
    await pages.t.ctx.db
      .updateTable('apps')
      .set({ website: 'https://till.example/' })
      .where('id', '=', appId)
      .execute();
  }
  await pages.t.ctx.db.updateTable('apps').set({ name: 'Till Pro' }).where('id', '=', tenant.appId).execute();

  const page = await pages.browser.newPage();
  const signIn = async () => {
    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  await page.goto(`${pages.serviceUrl}/dashboard`);
  await signIn();
  await page.getByRole('heading', { name: 'Your restaurants' }).waitFor();

  // The second factor: set up from the key on the page, confirmed with a code of it.
  const nav = page.getByRole('navigation', { name: 'Main navigation' });
  await nav.getByRole('link', { name: 'Account' }).click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  assert.ok(await page.getByText('The second factor is off.').isVisible());
  await page.getByRole('button', { name: 'Set up a second factor' }).click();
  await page.getByRole('heading', { name: 'Set up a second factor' }).waitFor();
  assert.ok(await page.getByRole('img', { name: 'QR code for your authenticator app' }).isVisible());
  const secret = ((await page.locator('#secret').textContent()) ?? '').replaceAll(' ', '');
  assert.match(secret, /^[A-Z2-7]{32}$/);
  await screenshot(page, 'account-second-factor-setup');
  await page.getByRole('textbox', { name: 'Code' }).fill('123456');
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByRole('alert').waitFor();
  assert.ok(await page.locator('#code-error').isVisible());
  await page.getByRole('textbox', { name: 'Code' }).fill(codeOf(secret));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByRole('status').waitFor();
  assert.ok(await page.getByText('The second factor is on.', { exact: true }).isVisible());
  await screenshot(page, 'account-second-factor-on');

  // Signing in again asks for a code; a fresh one (the next 30 seconds) gets in.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn();
  await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
  pages.t.clock.advance(30_000);
  await page.getByRole('textbox', { name: 'Code' }).fill(codeOf(secret));
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Your restaurants' }).waitFor();

  // The connected apps of a restaurant; disconnecting one after confirming.
  const restaurant = await pages.t.ctx.db
    .selectFrom('restaurants')
    .select('name')
    .where('id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
  await page.getByRole('link', { name: restaurant.name }).click();
  await nav.getByRole('link', { name: 'Apps' }).click();
  await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
  const row = page.getByRole('region', { name: 'Till Pro' });
  assert.ok(await row.getByText('take over, accept, advance and cancel your orders').isVisible());
  assert.ok(await row.getByRole('link', { name: 'till.example' }).isVisible());
  await screenshot(page, 'dashboard-apps');
  await page.setViewportSize({ width: 375, height: 740 });
  await screenshot(page, 'dashboard-apps-mobile');
  await page.setViewportSize({ width: 1280, height: 720 });
  await row.getByRole('link', { name: 'Disconnect Till Pro' }).click();
  await page.getByRole('heading', { name: 'Disconnect Till Pro?' }).waitFor();
  await screenshot(page, 'dashboard-apps-disconnect');
  await page.getByRole('button', { name: 'Disconnect' }).click();
  await page.getByRole('status').waitFor();
  assert.ok(await page.getByText('No apps are connected to this restaurant.').isVisible());
  const me = await pages.t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(tenant.token) });
  assert.equal(me.statusCode, 401);

  // In German, the other restaurant's app.
  await page.goto(`${pages.serviceUrl}/dashboard/restaurants/${other.restaurantId}/apps`);
  await page.getByRole('link', { name: 'Deutsch' }).click();
  await page.getByRole('heading', { name: 'Verbundene Apps' }).waitFor();
  assert.ok(await page.getByText('Ihre Umsatzberichte sehen').isVisible());
  await screenshot(page, 'dashboard-apps-de');
  await page.getByRole('link', { name: /^Trennen/ }).click();
  await page.getByRole('heading', { name: /trennen\?$/ }).waitFor();
  await screenshot(page, 'dashboard-apps-disconnect-de');
  await page.close();
});
