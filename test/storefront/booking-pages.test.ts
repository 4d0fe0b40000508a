import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type QueuedEmail, renderEmail } from '../../src/domain/email/email-templates.ts';
import { buildTestApp, type TestApp, testBaseUrl } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { storefrontPreview } from '../orders/order-helpers.ts';
import {
  addTable,
  type BookingTenant,
  bookingTenant,
  setClock,
} from '../reservations/reservation-helpers.ts';

/*
 * Guests booking a table on the storefront and cancelling from their e-mail, over HTTP: the date
 * and party, the guest availability (online tables, lead time, horizon), the contact form with the
 * spec's limits, a time taken in between, a form sent twice, the confirmation, the cancel link
 * (wrong token, another restaurant, after seating, past), starter plans and restaurants without
 * weekly hours, test restaurants.
 */

/** The cancel link of a queued reservation e-mail. */
function cancelUrlOf(email: QueuedEmail | undefined): string {
  assert.ok(email && 'cancel_url' in email.params && email.params.cancel_url);
  return email.params.cancel_url;
}

/** A guest's browser: keeps the cookies the pages set, sends forms as a browser does. */
class Guest {
  cookies = new Map<string, string>();
  readonly t: TestApp;
  readonly headers: Record<string, string>;
  constructor(t: TestApp, headers: Record<string, string> = {}) {
    this.t = t;
    this.headers = headers;
  }

  async send(method: 'GET' | 'POST', url: string, form?: Record<string, string>) {
    const cookie = [this.headers.cookie, ...[...this.cookies].map(([name, value]) => `${name}=${value}`)]
      .filter(Boolean)
      .join('; ');
    const res = await this.t.app.inject({
      method,
      url,
      headers: {
        ...(cookie && { cookie }),
        ...(form && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form && { payload: new URLSearchParams(form).toString() }),
    });
    for (const set of res.cookies as { name: string; value: string }[]) this.cookies.set(set.name, set.value);
    return res;
  }
  get = (url: string) => this.send('GET', url);
  post = (url: string, form: Record<string, string>) => this.send('POST', url, form);
}

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');

function seeOther(res: LightMyRequestResponse, location: RegExp): string {
  assert.equal(res.statusCode, 303, res.body);
  const to = String(res.headers.location);
  assert.match(to, location);
  return to;
}

/** The times the page offers (the radio buttons' values). */
const offered = (html: string) => [...html.matchAll(/name="starts_at" value="([^"]+)"/g)].map((m) => m[1]);

/** Now: Monday 2 November 2026, 11:00 in Berlin; guests book from 13:00 (lead time 120 minutes). */
const now = '2026-11-02T10:00:00Z';
const contact = {
  guest_name: 'Ada Lovelace',
  guest_email: 'ada@example.test',
  guest_phone: '+49 30 1234567',
};

describe('booking a table on the storefront', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    setClock(t, now);
  });
  after(() => t.close());

  async function slugOf(tenant: BookingTenant): Promise<string> {
    const row = await t.database.db
      .selectFrom('restaurants')
      .select('slug')
      .where('id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();
    return row.slug;
  }

  async function restaurant(options: Parameters<typeof bookingTenant>[1] = {}) {
    const tenant = await bookingTenant(t, options);
    const base = `/s/${await slugOf(tenant)}`;
    return { tenant, base };
  }

  const reservationsOf = (tenant: BookingTenant) =>
    t.database.db
      .selectFrom('reservations')
      .selectAll()
      .where('tenant_id', '=', tenant.restaurantId)
      .orderBy('starts_at')
      .execute();

  const emailsOf = async (tenant: BookingTenant) =>
    (
      await t.database.db
        .selectFrom('jobs')
        .select('payload')
        .where('kind', '=', 'email')
        .where('tenant_id', '=', tenant.restaurantId)
        .orderBy('created_at')
        .execute()
    )
      .map((job) => job.payload as QueuedEmail)
      .filter((email) => email.template.startsWith('reservation'));

  const eventsOf = (tenant: BookingTenant) =>
    t.database.db
      .selectFrom('events')
      .select(['type', 'data', 'actor'])
      .where('tenant_id', '=', tenant.restaurantId)
      .where('type', 'like', 'reservation.%')
      .orderBy('id')
      .execute();

  /** Opens the times of `date` for `party` and books `at` with `fields`. */
  async function book(guest: Guest, base: string, at: string, fields: Record<string, string> = contact) {
    const times = await guest.get(`${base}/book/times?date=${at.slice(0, 10)}&party_size=2`);
    assert.equal(times.statusCode, 200, times.body);
    return guest.post(`${base}/book/times`, {
      date: at.slice(0, 10),
      party_size: '2',
      starts_at: at,
      ...fields,
    });
  }

  it('five bookings from one address in 10 minutes, then a page saying when to try again (429, Retry-After), nothing booked', async () => {
    const { tenant, base } = await restaurant();
    // Six tables, each taken by one booking of the same time.
    for (let n = 0; n < 6; n++) await addTable(tenant, { label: `T${n}`, seats: 4 });
    const at = '2026-11-03T11:00:00.000Z';
    for (let n = 0; n < 5; n++)
      seeOther(await book(new Guest(t), base, at), new RegExp(`^${base}/book/sbk_`));
    const refused = await book(new Guest(t), base, at);
    assert.equal(refused.statusCode, 429, refused.body);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 600, String(refused.headers['retry-after']));
    assert.match(
      text(refused.body),
      new RegExp(
        `Many bookings have just been made from here or at this restaurant\\. Please try again in ${Math.ceil(retryAfter / 60)} minutes?\\.`,
      ),
    );
    assert.match(refused.body, new RegExp(`<a href="${base}/book">Back to booking</a>`));
    assert.equal((await reservationsOf(tenant)).length, 5);
  });

  it('books: date and party, the free times, the contact form, the confirmation; the e-mail has the cancel link', async () => {
    const { tenant, base } = await restaurant();
    await addTable(tenant, { seats: 4 });
    const guest = new Guest(t);
    const menu = await guest.get(base);
    assert.match(menu.body, new RegExp(`<a href="${base}/book">Book a table</a>`));
    const first = await guest.get(`${base}/book`);
    assert.equal(first.statusCode, 200);
    assert.match(first.body, /<form method="get" action="[^"]+\/book\/times"/);
    assert.match(first.body, /name="date" type="date"[^>]* value="2026-11-02"/);
    assert.match(text(first.body), /From Monday, November 2, 2026 to Friday, January 1, 2027/);

    const times = await guest.get(`${base}/book/times?date=2026-11-03&party_size=2`);
    assert.equal(times.statusCode, 200);
    const free = offered(times.body);
    // 12:00 (11:00Z) to the last seating 20:30 (19:30Z), every 15 minutes.
    assert.equal(free[0], '2026-11-03T11:00:00.000Z');
    assert.equal(free.at(-1), '2026-11-03T19:30:00.000Z');
    assert.equal(free.length, 35);
    assert.match(text(times.body), /Tuesday, November 3, 2026/);
    assert.match(text(times.body), / 12:00 PM /);

    const sent = await guest.post(`${base}/book/times`, {
      date: '2026-11-03',
      party_size: '2',
      starts_at: '2026-11-03T18:00:00.000Z',
      ...contact,
      note: 'By the window',
    });
    const done = seeOther(sent, new RegExp(`^${base}/book/sbk_[A-Za-z0-9_-]{43}$`));
    const page = await guest.get(done);
    assert.equal(page.statusCode, 200);
    const [row, ...more] = await reservationsOf(tenant);
    assert.ok(row);
    assert.equal(more.length, 0);
    assert.equal(row.source, 'guest');
    assert.equal(row.status, 'confirmed');
    assert.equal(row.party_size, 2);
    assert.equal(row.guest_email, 'ada@example.test');
    assert.equal(row.guest_phone, '+49 30 1234567');
    assert.equal(row.note, 'By the window');
    assert.equal(row.starts_at.toISOString(), '2026-11-03T18:00:00.000Z');
    const shown = text(page.body);
    assert.match(shown, /Your table is booked/);
    assert.ok(shown.includes(row.code));
    assert.match(shown, /Tuesday, November 3, 2026 at 7:00 PM/); // 18:00Z in Berlin
    assert.match(shown, /2 people/);
    assert.match(shown, /Confirmed/);

    const [email, ...others] = await emailsOf(tenant);
    assert.ok(email);
    assert.equal(others.length, 0);
    assert.equal(email.template, 'reservationConfirmed');
    assert.equal(email.to, 'ada@example.test');
    assert.ok('cancel_url' in email.params);
    const link = email.params.cancel_url as string;
    assert.match(
      link,
      new RegExp(`^${testBaseUrl}${base}/reservations/${row.id}/cancel\\?token=rct_[A-Za-z0-9_-]{43}$`),
    );
    assert.ok(renderEmail(email).text.includes(`If you cannot come, cancel here: ${link}`));
    // Only the token's SHA-256 is stored.
    const token = new URL(link).searchParams.get('token') as string;
    assert.notEqual(row.cancel_token_hash, null);
    assert.ok(!JSON.stringify(row).includes(token));

    const events = await eventsOf(tenant);
    assert.deepEqual(
      events.map((e) => e.type),
      ['reservation.created'],
    );
    assert.equal((events[0]?.data as { object: { source: string } } | undefined)?.object.source, 'guest');
  });

  it('offers only times at least the lead time ahead, and refuses one sent anyway', async () => {
    const { tenant, base } = await restaurant();
    await addTable(tenant);
    const guest = new Guest(t);
    const times = await guest.get(`${base}/book/times?date=2026-11-02&party_size=2`);
    // Now 11:00 in Berlin, lead time 120 minutes: 13:00 (12:00Z) first.
    assert.equal(offered(times.body)[0], '2026-11-02T12:00:00.000Z');
    const early = await guest.post(`${base}/book/times`, {
      date: '2026-11-02',
      party_size: '2',
      starts_at: '2026-11-02T11:45:00.000Z',
      ...contact,
    });
    assert.equal(early.statusCode, 409);
    assert.match(text(early.body), /Sorry, this time is no longer free\. Choose another time\./);
    assert.match(early.body, /<a href="#starts_at">/);
    assert.deepEqual(await reservationsOf(tenant), []);
    // The form keeps what the guest typed.
    assert.match(early.body, /name="guest_name" type="text"[^>]* value="Ada Lovelace"/);
  });

  it('takes dates from today to the horizon only', async () => {
    const { tenant, base } = await restaurant();
    await addTable(tenant);
    const guest = new Guest(t);
    // Default horizon 60 days: up to 1 January 2027.
    const last = await guest.get(`${base}/book/times?date=2027-01-01&party_size=2`);
    assert.equal(last.statusCode, 200);
    assert.equal(offered(last.body).length, 35);
    const beyond = await guest.get(`${base}/book/times?date=2027-01-02&party_size=2`);
    assert.equal(beyond.statusCode, 400);
    assert.match(text(beyond.body), /Tables can be booked online up to January 1, 2027\./);
    const yesterday = await guest.get(`${base}/book/times?date=2026-11-01&party_size=2`);
    assert.equal(yesterday.statusCode, 400);
    assert.match(text(yesterday.body), /Choose today or a later date\./);
    const posted = await guest.post(`${base}/book/times`, {
      date: '2027-01-02',
      party_size: '2',
      starts_at: '2027-01-02T18:00:00.000Z',
      ...contact,
    });
    assert.equal(posted.statusCode, 400);
    // A time beyond the horizon sent with a date within it is refused by the booking itself.
    const sneaked = await guest.post(`${base}/book/times`, {
      date: '2027-01-01',
      party_size: '2',
      starts_at: '2027-01-02T18:00:00.000Z',
      ...contact,
    });
    assert.equal(sneaked.statusCode, 409);
    assert.deepEqual(await reservationsOf(tenant), []);
  });

  it('shows the date and party errors beside their fields', async () => {
    const { tenant, base } = await restaurant();
    await addTable(tenant);
    const res = await new Guest(t).get(`${base}/book/times?date=03.11.2026&party_size=0`);
    assert.equal(res.statusCode, 400);
    assert.match(text(res.body), /Enter the date as year-month-day/);
    assert.match(text(res.body), /Enter the number of people, from 1 to 200\./);
    assert.match(
      res.body,
      /id="party_size"[^>]*aria-describedby="party_size-hint party_size-error"[^>]*aria-invalid="true"/,
    );
    const big = await new Guest(t).get(`${base}/book/times?date=2026-11-03&party_size=201`);
    assert.equal(big.statusCode, 400);
  });

  it('books tables bookable online only', async () => {
    const { tenant, base } = await restaurant();
    await addTable(tenant, { bookable_online: false });
    const guest = new Guest(t);
    const times = await guest.get(`${base}/book/times?date=2026-11-03&party_size=2`);
    assert.deepEqual(offered(times.body), []);
    assert.match(text(times.body), /No table is free for your party on this day/);
    const sent = await book(guest, base, '2026-11-03T18:00:00.000Z');
    assert.equal(sent.statusCode, 409);
    assert.deepEqual(await reservationsOf(tenant), []);
    // Staff and the API may still book that table.
    await ok(t, tenant.token, 'POST', '/reservations', {
      starts_at: '2026-11-03T18:00:00Z',
      party_size: 2,
      guest_name: 'Staff',
    });
  });

  it('a time taken in between shows the times again, saying so, and never overbooks', async () => {
    const { tenant, base } = await restaurant();
    await addTable(tenant);
    const guest = new Guest(t);
    const times = await guest.get(`${base}/book/times?date=2026-11-03&party_size=2`);
    assert.ok(offered(times.body).includes('2026-11-03T18:00:00.000Z'));
    await ok(t, tenant.token, 'POST', '/reservations', {
      starts_at: '2026-11-03T18:00:00Z',
      party_size: 2,
      guest_name: 'Taken',
    });
    const sent = await guest.post(`${base}/book/times`, {
      date: '2026-11-03',
      party_size: '2',
      starts_at: '2026-11-03T18:00:00.000Z',
      ...contact,
    });
    assert.equal(sent.statusCode, 409);
    assert.match(text(sent.body), /Sorry, this time is no longer free\. Choose another time\./);
    assert.ok(!offered(sent.body).includes('2026-11-03T18:00:00.000Z'));
    assert.equal((await reservationsOf(tenant)).length, 1);
  });

  it('a form sent twice books once and shows the same booking', async () => {
    const { tenant, base } = await restaurant();
    await addTable(tenant);
    await addTable(tenant);
    const guest = new Guest(t);
    await guest.get(`${base}/book/times?date=2026-11-03&party_size=2`);
    const before = new Map(guest.cookies);
    const form = { date: '2026-11-03', party_size: '2', starts_at: '2026-11-03T18:00:00.000Z', ...contact };
    const first = seeOther(await guest.post(`${base}/book/times`, form), /\/book\/sbk_/);
    // The second click carries the cookie the first had.
    const again = new Guest(t);
    again.cookies = before;
    const second = seeOther(await again.post(`${base}/book/times`, form), /\/book\/sbk_/);
    assert.equal(second, first);
    assert.equal((await reservationsOf(tenant)).length, 1);
    assert.equal((await emailsOf(tenant)).length, 1);
    // Both at once: one booking still.
    const both = new Guest(t);
    await both.get(`${base}/book/times?date=2026-11-03&party_size=2`);
    const other = { ...form, starts_at: '2026-11-03T12:00:00.000Z' };
    const [a, b] = await Promise.all([
      both.post(`${base}/book/times`, other),
      both.post(`${base}/book/times`, other),
    ]);
    assert.equal(seeOther(a, /\/book\/sbk_/), seeOther(b, /\/book\/sbk_/));
    assert.equal((await reservationsOf(tenant)).length, 2);
    // After a booking the guest gets a new key: the next one is a new booking.
    const next = seeOther(await guest.post(`${base}/book/times`, other), /\/book\/sbk_/);
    assert.notEqual(next, first);
    assert.equal((await reservationsOf(tenant)).length, 3);
  });

  it('shows every contact field error at once, with the spec’s limits, and books nothing', async () => {
    const { tenant, base } = await restaurant();
    await addTable(tenant);
    const guest = new Guest(t);
    const res = await book(guest, base, '2026-11-03T18:00:00.000Z', {
      guest_name: '   ',
      guest_email: 'not-an-address',
      guest_phone: '12-34',
      note: 'x'.repeat(501),
    });
    assert.equal(res.statusCode, 400);
    const shown = text(res.body);
    assert.match(shown, /Enter your name \(at most 120 characters\)\./);
    assert.match(shown, /Enter your e-mail address, like name@example\.com/);
    assert.match(shown, /Enter a phone number with at least six digits/);
    assert.match(shown, /Shorten your note to at most 500 characters\./);
    for (const field of ['guest_name', 'guest_email', 'guest_phone', 'note'])
      assert.match(res.body, new RegExp(`<a href="#${field}">`));
    // The chosen time stays chosen.
    assert.match(res.body, /value="2026-11-03T18:00:00.000Z" checked/);
    const long = await book(guest, base, '2026-11-03T18:00:00.000Z', {
      ...contact,
      guest_name: 'n'.repeat(121),
      guest_email: `${'e'.repeat(190)}@example.test`,
    });
    assert.equal(long.statusCode, 400);
    assert.match(text(long.body), /Enter your name \(at most 120 characters\)\./);
    assert.match(text(long.body), /Enter your e-mail address/);
    const noEmail = await book(guest, base, '2026-11-03T18:00:00.000Z', {
      guest_name: 'Ada',
      guest_email: '',
    });
    assert.equal(noEmail.statusCode, 400);
    const noTime = await guest.post(`${base}/book/times`, {
      date: '2026-11-03',
      party_size: '2',
      ...contact,
    });
    assert.equal(noTime.statusCode, 400);
    assert.match(text(noTime.body), /Choose a time\./);
    assert.deepEqual(await reservationsOf(tenant), []);
    // Optional fields may be left empty.
    seeOther(
      await book(guest, base, '2026-11-03T18:00:00.000Z', {
        guest_name: 'Ada',
        guest_email: 'a@example.test',
        guest_phone: '',
        note: '',
      }),
      /\/book\/sbk_/,
    );
    const [row] = await reservationsOf(tenant);
    assert.equal(row?.guest_phone, null);
    assert.equal(row?.note, null);
  });

  it('cancels from the e-mail’s link: a wrong token or another restaurant is not found', async () => {
    const { tenant, base } = await restaurant();
    await addTable(tenant);
    const guest = new Guest(t);
    seeOther(await book(guest, base, '2026-11-03T18:00:00.000Z'), /\/book\/sbk_/);
    const [email] = await emailsOf(tenant);
    const link = new URL(cancelUrlOf(email));
    const path = link.pathname;
    const token = link.searchParams.get('token') as string;
    const [row] = await reservationsOf(tenant);
    assert.ok(row);

    assert.equal((await guest.get(`${path}?token=${token}x`)).statusCode, 404);
    assert.equal((await guest.get(path)).statusCode, 404);
    assert.equal((await guest.post(path, { token: `${token}x` })).statusCode, 404);
    const elsewhere = await restaurant();
    const otherPath = path.replace(base, elsewhere.base);
    assert.equal((await guest.get(`${otherPath}?token=${token}`)).statusCode, 404);
    assert.equal((await guest.post(otherPath, { token })).statusCode, 404);
    assert.equal((await reservationsOf(tenant))[0]?.status, 'confirmed');

    const page = await guest.get(`${path}${link.search}`);
    assert.equal(page.statusCode, 200);
    assert.match(text(page.body), /Cancel your reservation/);
    assert.ok(text(page.body).includes(row.code));
    assert.match(page.body, /<form method="post" action="[^"]+\/cancel">/);
    const cancelled = await guest.post(path, { token });
    seeOther(cancelled, /\/cancel\?token=rct_/);
    const after = await guest.get(String(cancelled.headers.location));
    assert.match(text(after.body), /Your reservation is cancelled/);
    assert.doesNotMatch(after.body, /<form method="post"/);
    assert.equal((await reservationsOf(tenant))[0]?.status, 'cancelled');
    const events = await eventsOf(tenant);
    assert.deepEqual(
      events.map((e) => e.type),
      ['reservation.created', 'reservation.updated'],
    );
    const updated = events[1]?.data as {
      previous_status: string;
      changed: string[];
      object: { status: string };
    };
    assert.equal(updated.previous_status, 'confirmed');
    assert.deepEqual(updated.changed, ['status']);
    assert.equal(updated.object.status, 'cancelled');
    assert.deepEqual(events[1]?.actor, { kind: 'guest' });

    // Cancelling again changes nothing.
    const again = await guest.post(path, { token });
    assert.equal(again.statusCode, 409);
    assert.equal((await eventsOf(tenant)).length, 2);
  });

  it('a reservation seated, or whose time has come, can no longer be cancelled', async () => {
    const { tenant, base } = await restaurant();
    await addTable(tenant);
    await addTable(tenant);
    const guest = new Guest(t);
    seeOther(await book(guest, base, '2026-11-02T12:00:00.000Z'), /\/book\/sbk_/);
    seeOther(await book(guest, base, '2026-11-03T18:00:00.000Z'), /\/book\/sbk_/);
    const links = (await emailsOf(tenant)).map((email) => new URL(cancelUrlOf(email)));
    const [today, tomorrow] = await reservationsOf(tenant);
    assert.ok(today && tomorrow);
    const linkOf = (id: string) => links.find((link) => link.pathname.includes(id)) as URL;

    await ok(t, tenant.token, 'PATCH', `/reservations/${tomorrow.id}`, { status: 'seated' });
    const seated = linkOf(tomorrow.id);
    const page = await guest.get(`${seated.pathname}${seated.search}`);
    assert.equal(page.statusCode, 200);
    assert.match(text(page.body), /This reservation can no longer be cancelled online/);
    assert.doesNotMatch(page.body, /<form method="post"/);
    const refused = await guest.post(seated.pathname, { token: seated.searchParams.get('token') as string });
    assert.equal(refused.statusCode, 409);
    assert.match(text(refused.body), /can no longer be cancelled/);

    setClock(t, '2026-11-02T12:05:00Z');
    try {
      const started = linkOf(today.id);
      const late = await guest.post(started.pathname, { token: started.searchParams.get('token') as string });
      assert.equal(late.statusCode, 409);
    } finally {
      setClock(t, now);
    }
    const rows = await reservationsOf(tenant);
    assert.deepEqual(
      rows.map((r) => r.status),
      ['confirmed', 'seated'],
    );
  });

  it('starter plans and restaurants without weekly hours take no bookings and show no link', async () => {
    for (const options of [{ plan: 'starter' as const }, { alwaysOpen: true }]) {
      const { tenant, base } = await restaurant(options);
      await addTable(tenant);
      const guest = new Guest(t);
      const menu = await guest.get(base);
      assert.doesNotMatch(menu.body, /\/book"/);
      const page = await guest.get(`${base}/book`);
      assert.equal(page.statusCode, 200);
      assert.match(text(page.body), /This restaurant does not take table bookings online\./);
      assert.doesNotMatch(page.body, /<form/);
      const sent = await guest.post(`${base}/book/times`, {
        date: '2026-11-03',
        party_size: '2',
        starts_at: '2026-11-03T18:00:00.000Z',
        ...contact,
      });
      assert.equal(sent.statusCode, 200);
      assert.deepEqual(await reservationsOf(tenant), []);
    }
  });

  it('a test restaurant books too, for its members, and sends no e-mail', async () => {
    const { tenant, base } = await restaurant({ livemode: false });
    await addTable(tenant);
    assert.equal((await new Guest(t).get(`${base}/book`)).statusCode, 404);
    const guest = new Guest(t, { cookie: await storefrontPreview(t, tenant) });
    const page = await guest.get(`${base}/book`);
    assert.match(page.body, /class="test-banner"/);
    const done = seeOther(await book(guest, base, '2026-11-03T18:00:00.000Z'), /\/book\/sbk_/);
    const shown = text((await guest.get(done)).body);
    assert.match(shown, /This is a test restaurant: no e-mail is sent\./);
    assert.equal((await reservationsOf(tenant)).length, 1);
    assert.deepEqual(await emailsOf(tenant), []);
  });

  it('speaks the restaurant’s language: German pages, times in its zone, a German e-mail', async () => {
    const { tenant, base } = await restaurant();
    await addTable(tenant);
    await t.database.db
      .updateTable('restaurants')
      .set({ language: 'de' })
      .where('id', '=', tenant.restaurantId)
      .execute();
    const guest = new Guest(t);
    const times = await guest.get(`${base}/book/times?date=2026-11-03&party_size=1`);
    assert.match(text(times.body), /Dienstag, 3\. November 2026/);
    assert.match(text(times.body), / 1 Person /);
    assert.match(text(times.body), / 19:00 /);
    const done = seeOther(await book(guest, base, '2026-11-03T18:00:00.000Z'), /\/book\/sbk_/);
    assert.match(
      text((await guest.get(done)).body),
      /Ihr Tisch ist reserviert.*Dienstag, 3\. November 2026 um 19:00/,
    );
    const [email] = await emailsOf(tenant);
    assert.equal(email?.locale, 'de');
    assert.match(
      renderEmail(email as QueuedEmail).text,
      /Falls Sie nicht kommen können, stornieren Sie hier: http/,
    );
  });

  it('an unknown booking key is not found', async () => {
    const { base } = await restaurant();
    assert.equal((await new Guest(t).get(`${base}/book/sbk_${'a'.repeat(43)}`)).statusCode, 404);
    assert.equal((await new Guest(t).get(`${base}/book/nonsense`)).statusCode, 404);
  });
});
