import assert from 'node:assert/strict';
import { test } from 'node:test';
import { updateReservationSettings } from '../../src/domain/reservations/reservation-settings.service.ts';
import { createReservation, updateReservation } from '../../src/domain/reservations/reservations.service.ts';
import type { Ctx } from '../../src/domain/shared/context.ts';
import { createArea } from '../../src/domain/store/areas.service.ts';
import { putStoreHours } from '../../src/domain/store/store.service.ts';
import { createTable } from '../../src/domain/store/tables.service.ts';
import { pagesInChromium, screenshot } from '../browser.ts';
import { newAccount, password } from '../harness.ts';
import { makeRestaurant } from '../oauth/consent-helpers.ts';
import { everyDayNoonToTen } from '../reservations/reservation-helpers.ts';

/*
 * The reservations pages in headless Chromium, as a host uses them: the day grid (read by its
 * headers, as a screen reader does), booking a table, seating the party, an error on the
 * settings page; in English, on a phone, and in German; a day of lunch and dinner with the break
 * between them. Screenshots under test-results/dashboard-reservations-*.png. The test clock: Monday 2 November 2026, 11:00 Berlin.
 */
const pages = pagesInChromium();

test('a host books a table, sees it in the grid and seats the party; the owner sets the booking times', async () => {
  const owner = await newAccount(pages.t, false);
  const restaurant = await makeRestaurant(pages.t.ctx, [owner.id]);
  const ctx: Ctx = { ...pages.t.ctx, tenantId: restaurant.id };
  await putStoreHours(ctx, { opening_hours: everyDayNoonToTen });
  const terrace = await createArea(ctx, { name: 'Terrace' });
  const hall = await createArea(ctx, { name: 'Dining room' });
  for (const [label, seats, area] of [
    ['T1', 2, terrace.id],
    ['T2', 4, terrace.id],
    ['T3', 4, terrace.id],
    ['1', 2, hall.id],
    ['2', 6, hall.id],
    ['Bar', 2, null],
  ] as const)
    await createTable(ctx, { label, seats, area_id: area });
  const guests = [
    ['Ada Lovelace', '2026-11-02T11:00:00Z', 2],
    ['Grace Hopper', '2026-11-02T16:00:00Z', 4],
    ['Alan Turing', '2026-11-02T17:00:00Z', 2],
    ['Katherine Johnson', '2026-11-02T17:30:00Z', 5],
    ['Edsger Dijkstra', '2026-11-02T18:00:00Z', 3],
    ['Barbara Liskov', '2026-11-02T12:30:00Z', 2],
  ] as const;
  const booked = [];
  for (const [name, at, party] of guests)
    booked.push(
      await createReservation(
        ctx,
        { starts_at: at, party_size: party, guest_name: name, status: 'confirmed' },
        'staff',
      ),
    );
  await updateReservation(ctx, booked[0]?.id as string, { status: 'seated' });
  await updateReservation(ctx, booked[0]?.id as string, { status: 'done' });
  // An app's request: no table yet (the API assigns none unless asked).
  await createReservation(
    ctx,
    { starts_at: '2026-11-02T15:00:00Z', party_size: 2, guest_name: 'Pending Request', status: 'pending' },
    'api',
  );

  const page = await pages.browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${pages.serviceUrl}/dashboard/sign-in`);
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your restaurants' }).waitFor();
  await page.getByRole('link', { name: restaurant.name }).click();
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Reservations' })
    .click();
  await page.getByRole('heading', { name: 'Reservations on Monday, November 2, 2026', level: 1 }).waitFor();

  // The grid as a screen reader reads it: caption, a header per time, a row header per table.
  const grid = page.getByRole('table', {
    name: 'Reservations on Monday, November 2, 2026 by table and time',
  });
  assert.ok(await grid.isVisible());
  assert.equal(await grid.getByRole('columnheader', { name: '6:00 PM' }).count(), 1);
  const t2 = grid.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^T2/ }) });
  assert.match(
    (await t2.getByRole('link').first().textContent()) ?? '',
    /Grace Hopper.*4 guests · Confirmed/s,
  );
  const tableless = grid
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: 'Without a table' }) });
  assert.match((await tableless.getByRole('link').textContent()) ?? '', /Pending Request.*Requested/s);
  await screenshot(page, 'dashboard-reservations');

  // Booking: the form, then the grid shows it.
  await page.getByRole('link', { name: 'Book a table' }).click();
  await page.getByRole('heading', { name: 'Book a table', level: 1 }).waitFor();
  await page.getByLabel('Time').selectOption({ label: '7:00 PM' });
  await page.getByLabel('Party size').fill('2');
  await page.getByLabel('Bar (2 seats)').check();
  await page.getByLabel("Guest's name").fill('Margaret Hamilton');
  await screenshot(page, 'dashboard-reservations-book');
  await page.getByRole('button', { name: 'Book', exact: true }).click();
  await page.getByText('The table was booked.').waitFor();
  const bar = grid.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^Bar/ }) });
  assert.match((await bar.getByRole('link').textContent()) ?? '', /Margaret Hamilton/);

  // Seating the party from its page.
  await bar.getByRole('link', { name: /Margaret Hamilton/ }).click();
  await page.getByRole('heading', { name: 'Reservation: Margaret Hamilton' }).waitFor();
  await page.getByRole('button', { name: 'Seat' }).click();
  await page.getByText('The reservation is now: Seated.').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Completed' }).count(), 1);
  await screenshot(page, 'dashboard-reservations-reservation');

  // A refused move: the table is taken then.
  await page.getByRole('link', { name: 'Back to the day view' }).click();
  await page.getByRole('link', { name: 'Alan Turing' }).first().click();
  await page.getByLabel('T2 (4 seats, Terrace)').check();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('alert').waitFor();
  assert.match(
    (await page.locator('#table_ids-error').textContent()) ?? '',
    /These tables are not free at this time/,
  );
  await screenshot(page, 'dashboard-reservations-refused');

  // Deleting asks first; keeping it changes nothing.
  await page.getByRole('link', { name: 'Delete the reservation' }).click();
  await page.getByRole('heading', { name: 'Delete the reservation of Alan Turing?' }).waitFor();
  await screenshot(page, 'dashboard-reservations-delete');
  await page.getByRole('link', { name: 'Keep the reservation' }).first().click();
  await page.getByRole('heading', { name: 'Reservation: Alan Turing' }).waitFor();

  // The settings, with an error beside its field.
  await page.getByRole('link', { name: 'Back to the day view' }).click();
  await page.getByRole('link', { name: 'Booking settings' }).click();
  await page.getByRole('heading', { name: 'Booking settings', level: 1 }).waitFor();
  await page.getByLabel('Minutes between booking times').fill('2');
  await page.getByRole('button', { name: 'Save the settings' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByLabel('Minutes between booking times').getAttribute('aria-invalid'), 'true');
  await screenshot(page, 'dashboard-reservations-settings-error');
  await page.getByLabel('Minutes between booking times').fill('30');
  await page.getByRole('button', { name: 'Save the settings' }).click();
  await page.getByText('The booking settings were saved.').waitFor();

  await page.getByRole('link', { name: 'Back to the day view' }).click();
  await page.getByRole('heading', { name: /^Reservations on/ }).waitFor();
  await page.setViewportSize({ width: 375, height: 740 });
  await screenshot(page, 'dashboard-reservations-mobile');
  await page.setViewportSize({ width: 1280, height: 900 });

  await page.getByRole('link', { name: 'Deutsch' }).click();
  await page.getByRole('heading', { name: 'Reservierungen am Montag, 2. November 2026', level: 1 }).waitFor();
  assert.ok(await page.getByRole('link', { name: 'Tisch buchen' }).isVisible());
  await screenshot(page, 'dashboard-reservations-de');
  await page.close();
});

test('lunch and dinner: each column labelled by its own time, a marked break between them', async () => {
  const owner = await newAccount(pages.t, false);
  const restaurant = await makeRestaurant(pages.t.ctx, [owner.id]);
  const ctx: Ctx = { ...pages.t.ctx, tenantId: restaurant.id };
  await putStoreHours(ctx, {
    opening_hours: [0, 1, 2, 3, 4, 5, 6].flatMap((weekday) => [
      { weekday, open: '11:30', close: '14:00' },
      { weekday, open: '17:30', close: '22:00' },
    ]),
  });
  await updateReservationSettings(ctx, { last_seating_minutes: 15 });
  const hall = await createArea(ctx, { name: 'Dining room' });
  for (const [label, seats] of [
    ['1', 2],
    ['2', 4],
    ['3', 6],
  ] as const)
    await createTable(ctx, { label, seats, area_id: hall.id });
  for (const [name, at, party, minutes] of [
    ['Ada Lovelace', '2026-11-02T10:30:00Z', 2, 90],
    ['Grace Hopper', '2026-11-02T12:00:00Z', 4, 300],
    ['Alan Turing', '2026-11-02T16:30:00Z', 2, 120],
    ['Katherine Johnson', '2026-11-02T18:00:00Z', 5, 150],
  ] as const)
    await createReservation(
      ctx,
      { starts_at: at, party_size: party, guest_name: name, duration_minutes: minutes },
      'staff',
    );

  // A new visitor: the first test's session and language are gone.
  await pages.browser.clearCookies();
  const page = await pages.browser.newPage();
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`${pages.serviceUrl}/dashboard/sign-in`);
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your restaurants' }).waitFor();
  await page.goto(`${pages.serviceUrl}/dashboard/restaurants/${restaurant.id}/reservations`);
  const grid = page.getByRole('table', {
    name: 'Reservations on Monday, November 2, 2026 by table and time',
  });
  await grid.waitFor();
  const header = (name: string) => grid.getByRole('columnheader', { name, exact: true });
  const first = header('11:30 AM');
  const lastLunch = header('1:45 PM');
  const gap = header('No booking times between 1:45 PM and 5:30 PM');
  const dinner = header('5:30 PM');
  // What the eye reads: 11:30 AM and 5:30 PM in full, the break between the two runs, visible.
  const shown = async (cell: typeof gap) =>
    (await cell.locator('[aria-hidden="true"]').innerText()).replace(/\s+/g, ' ');
  assert.equal(await shown(first), '11:30 AM');
  assert.equal(await shown(dinner), '5:30 PM');
  const box = async (cell: typeof gap) => (await cell.boundingBox()) ?? assert.fail('not shown');
  const [lunchBox, gapBox, dinnerBox] = [await box(lastLunch), await box(gap), await box(dinner)];
  assert.ok(gapBox.width >= 8, `the break is ${gapBox.width}px wide`);
  assert.ok(lunchBox.x < gapBox.x && gapBox.x < dinnerBox.x, 'the break lies between 1:45 PM and 5:30 PM');
  // Grace's long table runs across the break.
  const two = grid.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^2/ }) });
  const grace = two.getByRole('cell', { name: /Grace Hopper/ });
  assert.equal(await grace.getAttribute('colspan'), '7');
  await screenshot(page, 'dashboard-reservations-lunch-dinner');

  await page.goto(`${pages.serviceUrl}/dashboard/restaurants/${restaurant.id}/reservations?lang=de`);
  await page.getByRole('heading', { name: 'Reservierungen am Montag, 2. November 2026', level: 1 }).waitFor();
  assert.equal(
    await page.getByRole('columnheader', { name: 'Keine Buchungszeiten zwischen 13:45 und 17:30' }).count(),
    1,
  );
  assert.equal(await shown(page.getByRole('columnheader', { name: '17:30', exact: true })), '17:30');
  await screenshot(page, 'dashboard-reservations-lunch-dinner-de');
  await page.close();
});
