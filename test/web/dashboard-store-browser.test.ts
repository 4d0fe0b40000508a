import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import { pagesInChromium, screenshot } from '../browser.ts';
import { newAccount, password } from '../harness.ts';

/*
 * The store's pages in headless Chromium, as an owner uses them: sign in, change the settings (and
 * see an error beside a field), set the weekly hours with an overnight range, add and delete a
 * special day, pause and end the pause, busy mode; once in German. Screenshots of each page under
 * test-results/dashboard-store*.png. The service's clock reads 2026-11-02 11:00 in Berlin.
 */
const pages = pagesInChromium();

test('an owner runs the store: settings, hours, special days, pause and busy mode, in English and German', async () => {
  const owner = await newAccount(pages.t, false);
  const restaurant = await createRestaurant(pages.t.ctx, {
    name: 'Trattoria Sole',
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    country: 'DE',
    plan: 'starter',
    livemode: true,
    ownerIds: [owner.id],
  });

  const page = await pages.browser.newPage();
  await page.goto(`${pages.serviceUrl}/dashboard/restaurants/${restaurant.id}/store`);
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Trattoria Sole' }).click();
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Store' })
    .click();
  await page.getByRole('heading', { name: 'Store', level: 1 }).waitFor();
  assert.ok(await page.getByText('Closed.', { exact: true }).isVisible());
  assert.ok(await page.getByLabel('Dine-in (ordering at the table)').isDisabled());
  assert.ok(await page.getByText('Needs the Pro or Premium plan.').isVisible());

  // Settings: lead times, minimum order (a decimal amount), preorders, contact.
  await page.getByLabel('Delivery', { exact: true }).check();
  await page.getByLabel('Lead time for pickup, in minutes').fill('25');
  await page.getByLabel('Minimum order for delivery in EUR').fill('12.50');
  await page.getByLabel('Guests may order for a later time, also while the store is closed').check();
  await page.getByLabel('Phone (optional)').fill('+49 30 555 0101');
  await page.getByLabel('Address (optional)').fill('10115 Berlin, Invalidenstraße 1');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByText('The settings were saved.').waitFor();
  assert.equal(await page.getByLabel('Minimum order for delivery in EUR').inputValue(), '12.50');
  assert.ok(await page.getByLabel('Delivery', { exact: true }).isChecked());
  await screenshot(page, 'dashboard-store');

  // A lead time out of range: the summary links to the field, the error is beside it.
  await page.getByLabel('Lead time for pickup, in minutes').fill('300');
  await page.getByRole('button', { name: 'Save settings' }).click();
  const summary = page.getByRole('alert');
  await summary.waitFor();
  assert.ok(await summary.getByRole('link', { name: /from 0 to 240/ }).isVisible());
  assert.equal(
    await page.getByLabel('Lead time for pickup, in minutes').getAttribute('aria-invalid'),
    'true',
  );
  assert.match((await page.locator('#pickup_minutes-error').textContent()) ?? '', /from 0 to 240/);
  await screenshot(page, 'dashboard-store-error');

  // Hours: Monday lunch and dinner, Friday past midnight; delivery on Monday evening.
  await page.getByRole('link', { name: 'Opening hours' }).click();
  await page.getByRole('heading', { name: 'Opening hours', level: 1 }).waitFor();
  await page.getByLabel('Opening hours, Monday, range 1: Opens').fill('11:30');
  await page.getByLabel('Opening hours, Monday, range 1: Closes').fill('14:30');
  await page.getByLabel('Opening hours, Friday, range 1: Opens').fill('18:00');
  await page.getByLabel('Opening hours, Friday, range 1: Closes').fill('02:00');
  await page.getByLabel('Delivery hours, Monday, range 1: Opens').fill('17:00');
  await page.getByLabel('Delivery hours, Monday, range 1: Closes').fill('21:00');
  await page.getByRole('button', { name: 'Save hours' }).click();
  await page.getByText('The hours were saved.').waitFor();
  // Monday gets an empty second range to add dinner.
  await page.getByLabel('Opening hours, Monday, range 2: Opens').fill('18:00');
  await page.getByLabel('Opening hours, Monday, range 2: Closes').fill('22:00');
  await page.getByRole('button', { name: 'Save hours' }).click();
  await page.getByText('The hours were saved.').waitFor();
  assert.equal(await page.getByLabel('Opening hours, Monday, range 2: Closes').inputValue(), '22:00');
  assert.equal(await page.getByLabel('Opening hours, Friday, range 1: Closes').inputValue(), '02:00');
  await screenshot(page, 'dashboard-store-hours');
  await page.setViewportSize({ width: 375, height: 740 });
  await screenshot(page, 'dashboard-store-hours-mobile');
  await page.setViewportSize({ width: 1280, height: 720 });

  // Special days: Christmas Eve with its own hours, a day closed, then deleted.
  await page.getByRole('link', { name: 'Special days' }).click();
  await page.getByRole('heading', { name: 'Special days', level: 1 }).waitFor();
  assert.ok(await page.getByText('No special days ahead.').isVisible());
  await page.getByLabel('Date').fill('2026-12-24');
  await page.getByLabel('Open with its own hours').check();
  await page.getByLabel('range 1: Opens').fill('11:30');
  await page.getByLabel('range 1: Closes').fill('15:00');
  await page.getByLabel('Note').fill('Christmas Eve: lunch only');
  await page.getByRole('button', { name: 'Save special day' }).click();
  await page.getByText('The special day was added.').waitFor();
  await page.getByLabel('Date').fill('2026-12-31');
  await page.getByRole('button', { name: 'Save special day' }).click();
  await page.getByText('The special day was added.').waitFor();
  const rows = page.getByRole('table', { name: 'Upcoming special days' }).getByRole('row');
  assert.equal(await rows.count(), 3);
  assert.match(
    (await rows.nth(1).textContent()) ?? '',
    /Thursday, December 24, 2026\s*11:30–15:00\s*Christmas Eve: lunch only/,
  );
  await page.getByRole('button', { name: 'Delete Thursday, December 31, 2026' }).click();
  await page.getByText('The special day was deleted.').waitFor();
  assert.equal(await rows.count(), 2);
  await screenshot(page, 'dashboard-store-special-days');

  // Pause until a time (the restaurant's), busy mode, then end both.
  await page.getByRole('link', { name: 'Pause and busy mode' }).click();
  await page.getByRole('heading', { name: 'Pause and busy mode', level: 1 }).waitFor();
  await page.getByLabel('Note for guests (optional)').fill('Private party, back at six.');
  await page.getByLabel('Paused until (optional)').fill('2026-11-02T18:00');
  await page.getByRole('button', { name: 'Pause orders' }).click();
  await page.getByText('The store is paused: guests cannot order.').waitFor();
  assert.ok(await page.getByText('Paused: guests cannot order.', { exact: true }).isVisible());
  assert.ok(await page.getByText(/^Paused until Nov 2, 2026, 6:00\WPM\.$/u).isVisible());
  await page.getByLabel('Extra minutes').fill('20');
  await page.getByLabel('For', { exact: true }).selectOption({ label: '2 hours' });
  await page.getByRole('button', { name: 'Start busy mode' }).click();
  await page.getByText('Busy mode is on.').waitFor();
  assert.ok(
    await page
      .getByText(/^Busy: 20 extra minutes on the lead times until Nov 2, 2026, 1:00\WPM\.$/u)
      .isVisible(),
  );
  await screenshot(page, 'dashboard-store-paused');
  await page.getByRole('button', { name: 'End the pause' }).click();
  await page.getByText('The pause has ended: guests can order again.').waitFor();
  await page.getByRole('button', { name: 'End busy mode' }).click();
  await page.getByText('Busy mode has ended.').waitFor();
  assert.ok(await page.getByText('Closed.', { exact: true }).isVisible());

  // In German: the settings page, amounts with the German decimal sign.
  await page
    .getByRole('link', { name: 'Zustand und Einstellungen' })
    .or(page.getByRole('link', { name: 'State and settings' }))
    .click();
  await page.getByRole('link', { name: 'Deutsch' }).click();
  await page.getByRole('heading', { name: 'Restaurant', level: 1 }).waitFor();
  assert.equal(await page.getAttribute('html', 'lang'), 'de');
  assert.equal(await page.getByLabel('Mindestbestellwert für Lieferungen in EUR').inputValue(), '12,50');
  await screenshot(page, 'dashboard-store-de');
  await page.close();
});
