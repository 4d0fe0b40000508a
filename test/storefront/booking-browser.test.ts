import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { QueuedEmail } from '../../src/domain/email/email-templates.ts';
import { pagesInChromium, screenshot } from '../browser.ts';
import {
  addTable,
  type BookingTenant,
  bookingTenant,
  setClock,
} from '../reservations/reservation-helpers.ts';

/*
 * Booking a table in headless Chromium on a phone's screen, as guests do: from the menu's link to
 * the date, the free times and the contact form (an error beside its field first), the
 * confirmation, then the cancel link of the e-mail; once in English, once in German.
 * Screenshots under test-results/storefront-booking-*.png.
 */

/** The cancel link of a queued reservation e-mail. */
function cancelUrlOf(email: QueuedEmail | undefined): string {
  assert.ok(email && 'cancel_url' in email.params && email.params.cancel_url);
  return email.params.cancel_url;
}
const pages = pagesInChromium();

/** A restaurant open every day 12:00–22:00 (Berlin) with two tables, in `language`; its slug. */
async function restaurant(language: string): Promise<{ tenant: BookingTenant; slug: string }> {
  setClock(pages.t, '2026-11-02T10:00:00Z');
  const tenant = await bookingTenant(pages.t);
  await addTable(tenant, { seats: 2 });
  await addTable(tenant, { seats: 6 });
  const { slug } = await pages.t.database.db
    .updateTable('restaurants')
    .set({ language })
    .where('id', '=', tenant.restaurantId)
    .returning('slug')
    .executeTakeFirstOrThrow();
  return { tenant, slug };
}

const phone = async (): Promise<Page> => {
  const page = await pages.browser.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  return page;
};

/** The cancel link of the guest's e-mail, on the service under test. */
async function cancelLink(tenant: BookingTenant): Promise<string> {
  const jobs = await pages.t.database.db
    .selectFrom('jobs')
    .select('payload')
    .where('kind', '=', 'email')
    .where('tenant_id', '=', tenant.restaurantId)
    .execute();
  const email = jobs
    .map((job) => job.payload as QueuedEmail)
    .find((mail) => mail.template === 'reservationConfirmed');
  const link = new URL(cancelUrlOf(email));
  return `${pages.serviceUrl}${link.pathname}${link.search}`;
}

test('a guest books a table from the menu, then cancels from the e-mail’s link', async () => {
  const { tenant, slug } = await restaurant('en');
  const page = await phone();
  await page.goto(`${pages.serviceUrl}/s/${slug}`);
  await page.getByRole('link', { name: 'Book a table' }).click();
  await page.getByRole('heading', { name: 'Book a table', level: 1 }).waitFor();
  await page.getByLabel('Date').fill('2026-11-03');
  await page.getByLabel('Number of people').fill('3');
  await screenshot(page, 'storefront-booking-date');
  await page.getByRole('button', { name: 'Show free times' }).click();

  await page.getByRole('heading', { name: 'Choose a time' }).waitFor();
  assert.ok(await page.getByText('Tuesday, November 3, 2026').isVisible());
  assert.ok(await page.getByText('3 people').isVisible());
  await page.getByLabel('7:00 PM').check();
  await page.getByLabel('E-mail address').fill('ada@example.test');
  await page.getByRole('button', { name: 'Book the table' }).click();
  // No name: the error beside the field and in the summary, the time still chosen.
  const summary = page.getByRole('alert');
  await summary.waitFor();
  assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
  assert.ok(await page.getByLabel('7:00 PM').isChecked());
  await screenshot(page, 'storefront-booking-error');
  await summary.getByRole('link', { name: 'Enter your name (at most 120 characters).' }).click();
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'guest_name');
  await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
  await page.getByLabel('Note for the restaurant').fill('A high chair, please.');
  await screenshot(page, 'storefront-booking-times');
  await page.getByRole('button', { name: 'Book the table' }).click();

  await page.getByRole('heading', { name: 'Your table is booked' }).waitFor();
  assert.ok(await page.getByText('Tuesday, November 3, 2026 at 7:00 PM').isVisible());
  const code = (await page.locator('.order-code strong').textContent()) ?? '';
  assert.match(code, /^[A-Z0-9]{6}$/);
  await screenshot(page, 'storefront-booking-done');

  await page.goto(await cancelLink(tenant));
  await page.getByRole('heading', { name: 'Cancel your reservation' }).waitFor();
  assert.ok(await page.getByText(code).isVisible());
  await screenshot(page, 'storefront-booking-cancel');
  await page.getByRole('button', { name: 'Cancel the reservation' }).click();
  await page.getByRole('heading', { name: 'Your reservation is cancelled' }).waitFor();
  await screenshot(page, 'storefront-booking-cancelled');
  const row = await pages.t.database.db
    .selectFrom('reservations')
    .select(['status', 'source', 'party_size'])
    .where('tenant_id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(row, { status: 'cancelled', source: 'guest', party_size: 3 });
  await page.close();
});

test('in German: the times in the restaurant’s zone, the confirmation and the cancel page', async () => {
  const { tenant, slug } = await restaurant('de');
  const page = await phone();
  await page.goto(`${pages.serviceUrl}/s/${slug}`);
  await page.getByRole('link', { name: 'Tisch reservieren' }).click();
  await page.getByLabel('Datum').fill('2026-11-04');
  await page.getByLabel('Anzahl der Personen').fill('2');
  await page.getByRole('button', { name: 'Freie Uhrzeiten zeigen' }).click();
  await page.getByRole('heading', { name: 'Uhrzeit wählen' }).waitFor();
  assert.ok(await page.getByText('Mittwoch, 4. November 2026').isVisible());
  await page.getByLabel('19:30').check();
  await page.getByLabel('Name', { exact: true }).fill('Grete Müller');
  await page.getByLabel('E-Mail-Adresse').fill('grete@example.test');
  await page.getByLabel('Telefon').fill('030 1234567');
  await screenshot(page, 'storefront-booking-times-de');
  await page.getByRole('button', { name: 'Tisch reservieren' }).click();
  await page.getByRole('heading', { name: 'Ihr Tisch ist reserviert' }).waitFor();
  assert.ok(await page.getByText('Mittwoch, 4. November 2026 um 19:30').isVisible());
  await screenshot(page, 'storefront-booking-done-de');
  await page.goto(await cancelLink(tenant));
  await page.getByRole('heading', { name: 'Reservierung stornieren' }).waitFor();
  await screenshot(page, 'storefront-booking-cancel-de');
  await page.close();
});

test('in French: past the guest limit a booking gets a page saying when to try again', async () => {
  const { tenant, slug } = await restaurant('fr');
  for (let n = 0; n < 4; n++) await addTable(tenant, { label: `Extra ${n}`, seats: 4 });
  // Five bookings from this machine's address, as the browser's, in the last 10 minutes.
  for (let n = 0; n < 5; n++) {
    const booked = await fetch(`${pages.serviceUrl}/s/${slug}/book/times`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: pages.serviceUrl },
      body: new URLSearchParams({
        date: '2026-11-05',
        party_size: '2',
        starts_at: '2026-11-05T18:00:00.000Z',
        guest_name: `Guest ${n}`,
        guest_email: `guest${n}@example.test`,
      }),
    });
    assert.equal(booked.status, 303, await booked.text());
  }
  const page = await phone();
  await page.goto(`${pages.serviceUrl}/s/${slug}/book/times?date=2026-11-05&party_size=2`);
  await page.getByLabel('19:30').check();
  await page.getByLabel('Nom', { exact: true }).fill('Jeanne Martin');
  await page.getByLabel('Adresse e-mail').fill('jeanne@example.test');
  await page.getByRole('button', { name: /Réserver/ }).click();
  await page.getByRole('heading', { name: 'Merci de patienter un instant' }).waitFor();
  assert.ok(await page.getByText(/Veuillez réessayer dans \d+ minutes?\./).isVisible());
  await screenshot(page, 'storefront-booking-limit-fr');
  await page.getByRole('link', { name: 'Retour à la réservation' }).click();
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.close();
});
