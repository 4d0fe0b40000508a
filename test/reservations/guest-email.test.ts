import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { jobs } from '../../src/worker/worker.ts';
import { buildTestApp, type TestApp, testBaseUrl } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { mimeParts, type SmtpReceiver, smtpReceiver } from '../worker/smtp-receiver.ts';
import { addTable, type BookingTenant, bookingTenant, setClock } from './reservation-helpers.ts';

/*
 * The guest's e-mail on POST /reservations, through the worker's queue to a real SMTP server on a
 * local port: in the guest's language (else the restaurant's), "confirmed" or "request received",
 * with the reservation as a calendar file and the link to cancel on the storefront; none with
 * notify_guest false, none from a test restaurant. A cancelled reservation's mail, likewise.
 */

/** A message's MIME parts' contents, decoded. */
const contentsOf = (raw: string) => mimeParts(raw).map((part) => part.content);

const queueJob = jobs.find((job) => job.name === 'run queued jobs');
const log = pino({ level: 'silent' });

describe('reservation e-mail to the guest', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  before(async () => {
    smtp = await smtpReceiver();
    t = await buildTestApp();
    setClock(t, '2026-11-02T10:00:00Z');
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  /** The mails to guests the queue sends now (not the owners' mails about connected apps). */
  async function sendQueued(): Promise<string[]> {
    smtp.received.length = 0;
    assert.ok(queueJob);
    await queueJob.run(t.database.db, t.clock, { log, emailTransport: smtp.transport });
    return smtp.received.filter((mail) => /^To: (ada|a)@example\.test/m.test(mail));
  }

  async function restaurant(tenant: BookingTenant) {
    return t.database.db
      .selectFrom('restaurants')
      .select(['name'])
      .where('id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();
  }

  it('a confirmed reservation: German mail with a calendar file in UTC', async () => {
    const tenant = await bookingTenant(t);
    await addTable(tenant);
    const { name } = await restaurant(tenant);
    const r = await ok(t, tenant.token, 'POST', '/reservations', {
      starts_at: '2026-11-03T17:00:00Z',
      party_size: 2,
      guest_name: 'Ada',
      guest_email: 'ada@example.test',
      guest_locale: 'de',
    });
    const [mail, ...more] = await sendQueued();
    assert.equal(more.length, 0);
    assert.ok(mail);
    assert.match(mail, /^To: ada@example\.test/m);
    const parts = contentsOf(mail).join('\n');
    assert.match(parts, new RegExp(`Ihre Reservierung bei ${name} ist bestätigt`));
    assert.match(parts, /18:00/); // 17:00Z is 18:00 in Berlin
    assert.ok(parts.includes(r.code));
    assert.match(
      mail,
      /Content-Type: text\/calendar; charset=utf-8; method=PUBLISH;\s+name=reservation\.ics/i,
    );
    const ics = parts.slice(parts.indexOf('BEGIN:VCALENDAR'));
    assert.match(ics, /\r\nMETHOD:PUBLISH\r\n/);
    assert.match(ics, new RegExp(`\\r\\nUID:${r.id}@servery\\r\\n`));
    assert.match(ics, /\r\nDTSTART:20261103T170000Z\r\n/);
    assert.match(ics, /\r\nDTEND:20261103T183000Z\r\n/);
    assert.match(ics, new RegExp(`\\r\\nSUMMARY:Tisch bei ${name}\\r\\n`));
  });

  it('has the link to cancel on the storefront, which cancels the reservation booked through the API', async () => {
    const tenant = await bookingTenant(t);
    await addTable(tenant);
    const { slug } = await t.database.db
      .selectFrom('restaurants')
      .select('slug')
      .where('id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();
    const r = await ok(t, tenant.token, 'POST', '/reservations', {
      starts_at: '2026-11-03T17:00:00Z',
      party_size: 2,
      guest_name: 'Ada',
      guest_email: 'ada@example.test',
    });
    const [mail] = await sendQueued();
    assert.ok(mail);
    const path = `/s/${slug}/reservations/${r.id}/cancel`;
    const link = new RegExp(
      `If you cannot come, cancel here: ${testBaseUrl}${path}\\?token=(rct_[A-Za-z0-9_-]{43})`,
    );
    const token = link.exec(contentsOf(mail).join('\n'))?.[1];
    assert.ok(token, 'the mail has the cancel link');
    const cancelled = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token }).toString(),
    });
    assert.equal(cancelled.statusCode, 303, cancelled.body);
    assert.equal((await ok(t, tenant.token, 'GET', `/reservations/${r.id}`)).status, 'cancelled');
    await sendQueued(); // the cancellation's mail, tested below
  });

  it('a pending reservation: "request received" in the restaurant’s language', async () => {
    const tenant = await bookingTenant(t);
    await addTable(tenant);
    await t.database.db
      .updateTable('restaurants')
      .set({ language: 'fr' })
      .where('id', '=', tenant.restaurantId)
      .execute();
    await ok(t, tenant.token, 'POST', '/reservations', {
      starts_at: '2026-11-03T17:00:00Z',
      party_size: 2,
      guest_name: 'Ada',
      guest_email: 'ada@example.test',
      status: 'pending',
    });
    const [mail] = await sendQueued();
    assert.ok(mail);
    assert.match(contentsOf(mail).join('\n'), /Nous avons bien reçu votre demande/);
  });

  it('a cancelled reservation: a mail in the guest’s language, cancelled by an app or by the guest’s link', async () => {
    const tenant = await bookingTenant(t);
    await addTable(tenant);
    const { name, slug } = await t.database.db
      .selectFrom('restaurants')
      .select(['name', 'slug'])
      .where('id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();
    const byApp = await ok(t, tenant.token, 'POST', '/reservations', {
      starts_at: '2026-11-03T17:00:00Z',
      party_size: 2,
      guest_name: 'Ada',
      guest_email: 'ada@example.test',
      guest_locale: 'de',
    });
    await sendQueued();
    await ok(t, tenant.token, 'PATCH', `/reservations/${byApp.id}`, { status: 'cancelled' });
    const [cancelled, ...more] = await sendQueued();
    assert.equal(more.length, 0);
    assert.ok(cancelled);
    const [text, html] = contentsOf(cancelled).filter((part) => part.includes(byApp.code));
    assert.ok(text?.includes(`Ihre Reservierung bei ${name} am`), text);
    assert.ok(text?.includes('18:00'), 'at 18:00 in Berlin');
    assert.ok(text?.includes('2 Personen ist storniert'));
    assert.match(html ?? '', /<html lang="de">/);
    // Cancelled by the guest with the link of their confirmation.
    const byGuest = await ok(t, tenant.token, 'POST', '/reservations', {
      starts_at: '2026-11-03T19:00:00Z',
      party_size: 2,
      guest_name: 'Ada',
      guest_email: 'ada@example.test',
    });
    const [confirmation] = await sendQueued();
    assert.ok(confirmation);
    const token = /token=(rct_[A-Za-z0-9_-]{43})/.exec(contentsOf(confirmation).join('\n'))?.[1];
    assert.ok(token);
    const res = await t.app.inject({
      method: 'POST',
      url: `/s/${slug}/reservations/${byGuest.id}/cancel`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token }).toString(),
    });
    assert.equal(res.statusCode, 303, res.body);
    const [guestCancelled] = await sendQueued();
    assert.ok(guestCancelled);
    assert.match(contentsOf(guestCancelled).join('\n'), /Your reservation at .* is cancelled \(code /);
  });

  it('no cancellation mail without an e-mail address, with notify_guest false, or from a test restaurant', async () => {
    const body = { starts_at: '2026-11-03T17:00:00Z', party_size: 1, guest_name: 'Ada' };
    const tenant = await bookingTenant(t);
    await addTable(tenant);
    const noEmail = await ok(t, tenant.token, 'POST', '/reservations', body);
    await ok(t, tenant.token, 'PATCH', `/reservations/${noEmail.id}`, { status: 'cancelled' });
    const unnotified = await ok(t, tenant.token, 'POST', '/reservations', {
      ...body,
      starts_at: '2026-11-03T18:00:00Z',
      guest_email: 'ada@example.test',
      notify_guest: false,
    });
    await ok(t, tenant.token, 'PATCH', `/reservations/${unnotified.id}`, { status: 'cancelled' });
    const test = await bookingTenant(t, { livemode: false });
    await addTable(test);
    const inTest = await ok(t, test.token, 'POST', '/reservations', {
      ...body,
      guest_email: 'a@example.test',
    });
    await ok(t, test.token, 'PATCH', `/reservations/${inTest.id}`, { status: 'cancelled' });
    assert.deepEqual(await sendQueued(), []);
  });

  it('no mail with notify_guest false, without an e-mail address, or from a test restaurant', async () => {
    const tenant = await bookingTenant(t);
    await addTable(tenant);
    const body = { starts_at: '2026-11-03T17:00:00Z', party_size: 1, guest_name: 'Ada' };
    await ok(t, tenant.token, 'POST', '/reservations', {
      ...body,
      guest_email: 'a@example.test',
      notify_guest: false,
    });
    await ok(t, tenant.token, 'POST', '/reservations', { ...body, starts_at: '2026-11-03T19:00:00Z' });
    const test = await bookingTenant(t, { livemode: false });
    await addTable(test);
    await ok(t, test.token, 'POST', '/reservations', { ...body, guest_email: 'a@example.test' });
    assert.deepEqual(await sendQueued(), []);
  });
});
