import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pagesInChromium, screenshot } from '../browser.ts';
import { newAccount } from '../harness.ts';

/*
 * "Forgot password" and the account page in headless Chromium, as an owner uses them: from the
 * sign-in page to the forgot page, the mailed link (read from the queued mail) to a new password,
 * signing in with it, and the account page with its forms and sessions. Screenshots at 1280 and
 * 390 px under test-results/account-*.png (axe-core finds nothing on each).
 */
const pages = pagesInChromium();

test('an owner who forgot the password sets a new one from the mailed link, then sees the account page', async () => {
  const owner = await newAccount(pages.t, false);
  const page = await pages.browser.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${pages.serviceUrl}/dashboard/sign-in`);
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByRole('heading', { name: 'Set a new password' }).waitFor();
  await screenshot(page, 'account-forgot-1280');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'account-forgot-390');
  await page.getByRole('button', { name: 'Send link' }).click();
  await page.getByRole('alert').waitFor();
  assert.ok(await page.locator('#email-error').isVisible());
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByRole('button', { name: 'Send link' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  await screenshot(page, 'account-forgot-sent-390');

  const mail = await pages.t.ctx.db
    .selectFrom('jobs')
    .select('payload')
    .where('kind', '=', 'email')
    .executeTakeFirstOrThrow();
  const { url } = (mail.payload as { params: { url: string } }).params;
  await page.goto(`${pages.serviceUrl}${new URL(url).pathname}${new URL(url).search}`);
  await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshot(page, 'account-reset-1280');
  await page.getByLabel('New password').fill('a brand new password');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByText('Your password is set. Sign in with it.').waitFor();
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByLabel('Password').fill('a brand new password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your restaurants' }).waitFor();

  // Another session of the account (the console's JSON API is for developers: the dashboard's).
  await pages.t.app.inject({
    method: 'POST',
    url: '/dashboard/api/sessions',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ email: owner.email, password: 'a brand new password' }),
  });
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Account' })
    .click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  assert.equal(await page.locator('table.sessions tbody tr').count(), 2);
  await screenshot(page, 'account-page-1280');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'account-page-390');
  await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
  await page.getByText('You are signed out everywhere else.').waitFor();
  assert.equal(await page.locator('table.sessions tbody tr').count(), 1);
});
