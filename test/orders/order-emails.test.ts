import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { jobs } from '../../src/worker/worker.ts';
import { buildTestApp, type TestApp, testBaseUrl } from '../harness.ts';
import { assertError, ok } from '../menu/menu-helpers.ts';
import { mimeParts, type SmtpReceiver, smtpReceiver } from '../worker/smtp-receiver.ts';
import {
  guest,
  type OrderingTenant,
  orderingTenant,
  pickupOrder,
  place,
  placeRestaurant,
  storefrontPreview,
} from './order-helpers.ts';

/*
 * The guest's mails about an order (docs/storefront.md, "What the guest hears"), placed through
 * the guest API and moved through /v1, sent by the worker's queue to a real SMTP server on a
 * local port: the confirmation with the receipt as text and HTML in the restaurant's language (an
 * online order's once paid), accepted with the ready time, rejected and cancelled with the reason;
 * none without an e-mail, none from a test restaurant; the e-mail never in the API or events.
 */

interface Mail {
  raw: string;
  /** The text and HTML parts, decoded. */
  text: string;
  html: string;
}

const queueJob = jobs.find((job) => job.name === 'run queued jobs');
const log = pino({ level: 'silent' });

/** A header's encoded words (RFC 2047, UTF-8) as text. */
function subjectOf(raw: string): string {
  const header = /^Subject: (.*(?:\r\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
  return header
    .replace(/\r\n[ \t]+/g, ' ')
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, encoding: string, word: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(word, 'base64').toString('utf8')
        : Buffer.from(
            word
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (__, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ).toString('utf8'),
    );
}

describe('the guest’s order e-mails', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  before(async () => {
    smtp = await smtpReceiver();
    t = await buildTestApp();
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  /** The mails to `to` the queue sends now, with their parts. */
  async function sendQueued(to = 'ada@example.test'): Promise<(Mail & { subject: string })[]> {
    smtp.received.length = 0;
    assert.ok(queueJob);
    await queueJob.run(t.database.db, t.clock, { log, emailTransport: smtp.transport });
    return smtp.received
      .filter((raw) => new RegExp(`^To: ${to.replace('.', '\\.')}`, 'm').test(raw))
      .map((raw) => {
        const decoded = mimeParts(raw);
        return {
          raw,
          subject: subjectOf(raw),
          text: decoded.find((part) => part.type === 'text/plain')?.content ?? '',
          html: decoded.find((part) => part.type === 'text/html')?.content ?? '',
        };
      });
  }

  /** A German restaurant with its address and VAT id (as its owner sets them). */
  async function germanRestaurant(): Promise<OrderingTenant> {
    const tenant = await orderingTenant(t);
    await placeRestaurant(t, tenant);
    await t.database.db
      .updateTable('restaurants')
      .set({ language: 'de' })
      .where('id', '=', tenant.restaurantId)
      .execute();
    await t.database.db
      .updateTable('stores')
      .set({ vat_id: 'DE123456789' })
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    return tenant;
  }

  it('an order paid on site: the confirmation with the receipt, text and HTML, in the restaurant’s German', async () => {
    const tenant = await germanRestaurant();
    const placed = await place(t, tenant, pickupOrder(tenant, { guest_email: 'ada@example.test', tip: 200 }));
    const code: string = placed.order.code;
    const [mail, ...more] = await sendQueued();
    assert.equal(more.length, 0);
    assert.ok(mail, 'the guest got a mail');
    assert.match(mail.raw, /Content-Type: multipart\/alternative/i);
    assert.ok(mail.subject.includes(`Ihre Bestellung ${code} bei`), mail.subject);
    for (const part of [mail.text, mail.html]) {
      assert.ok(part.includes(code), 'the code');
      assert.ok(part.includes('Pizza') && part.includes('Cheese') && part.includes('Lemonade'), 'the items');
      assert.ok(part.includes('27,00\u00a0€'), 'two pizzas with cheese');
      assert.ok(part.includes('4,50\u00a0€'), 'a large lemonade');
      assert.ok(part.includes('inkl. 7\u00a0% MwSt.'), 'the food’s VAT');
      assert.ok(part.includes('inkl. 19\u00a0% MwSt.'), 'the drink’s VAT');
      assert.ok(part.includes('Trinkgeld') && part.includes('2,00\u00a0€'), 'the tip');
      assert.ok(part.includes('Gesamt') && part.includes('33,50\u00a0€'), 'the total');
      assert.ok(part.includes('Zahlung im Restaurant'), 'to pay on site');
      assert.ok(part.includes('Torstraße 1, 10115 Berlin'), 'the restaurant’s address');
      assert.ok(part.includes('USt-IdNr.: DE123456789'), 'its VAT id');
    }
    assert.match(mail.html, /^<!doctype html>\s*<html lang="de">/);
    assert.match(mail.html, /<table[^>]*>\s*<caption[^>]*>Ihre Artikel<\/caption>/);
    assert.match(mail.html, /<th scope="col"[^>]*>Artikel<\/th>/);
    // The link opens the order's page, and its print view.
    const link = new RegExp(`${testBaseUrl}/s/${tenant.slug}/o/(sgk_[A-Za-z0-9_-]+)`).exec(mail.text)?.[1];
    assert.equal(link, placed.guest_key);
    assert.ok(mail.html.includes(`href="${testBaseUrl}/s/${tenant.slug}/o/${link}"`));
    assert.ok(mail.text.includes(`${testBaseUrl}/s/${tenant.slug}/o/${link}/receipt`));
    const receipt = await t.app.inject({ method: 'GET', url: `/s/${tenant.slug}/o/${link}/receipt` });
    assert.equal(receipt.statusCode, 200);
    assert.ok(receipt.body.includes('USt-IdNr.: DE123456789'));
  });

  it('escapes what it shows in the HTML', async () => {
    const tenant = await orderingTenant(t);
    await t.database.db
      .updateTable('stores')
      .set({ vat_id: '<b>DE1</b>', address_line: 'A & B <i>street</i>' })
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    await place(t, tenant, pickupOrder(tenant, { guest_email: 'ada@example.test' }));
    const [mail] = await sendQueued();
    assert.ok(mail);
    assert.ok(mail.html.includes('VAT ID: &lt;b&gt;DE1&lt;/b&gt;'));
    assert.ok(mail.html.includes('A &amp; B &lt;i&gt;street&lt;/i&gt;'));
    assert.ok(!mail.html.includes('<b>DE1'));
    assert.ok(mail.text.includes('VAT ID: <b>DE1</b>'), 'the text part is as it is');
  });

  it('an online order: no mail at checkout, the confirmation once paid, its link opening the order', async () => {
    const tenant = await germanRestaurant();
    const placed = await place(
      t,
      tenant,
      pickupOrder(tenant, { payment_method: 'online', guest_email: 'ada@example.test' }),
    );
    assert.deepEqual(await sendQueued(), [], 'nothing before the payment');
    const key = placed.guest_key;
    assert.equal((await guest(t, tenant.slug, 'POST', `/orders/${key}/payment`)).statusCode, 200);
    const paid = await guest(t, tenant.slug, 'POST', `/orders/${key}/payment/test`, { outcome: 'succeeded' });
    assert.equal(paid.statusCode, 200, paid.body);
    const [mail, ...more] = await sendQueued();
    assert.equal(more.length, 0);
    assert.ok(mail);
    assert.ok(mail.text.includes(placed.order.code));
    assert.ok(mail.text.includes('Online bezahlt'));
    const mailKey = new RegExp(`${testBaseUrl}/s/${tenant.slug}/o/(sgk_[A-Za-z0-9_-]+)`).exec(mail.text)?.[1];
    assert.ok(mailKey, 'the mail links to the order');
    assert.notEqual(mailKey, key, 'with a key of its own');
    const page = await guest(t, tenant.slug, 'GET', `/orders/${mailKey}`);
    assert.equal(page.statusCode, 200);
    assert.equal(page.json().id, placed.order.id);
  });

  it('accepted with the ready time; rejected and cancelled with the reason', async () => {
    const tenant = await germanRestaurant();
    const a = await place(t, tenant, pickupOrder(tenant, { guest_email: 'ada@example.test' }));
    const b = await place(t, tenant, pickupOrder(tenant, { guest_email: 'ada@example.test' }));
    const c = await place(t, tenant, pickupOrder(tenant, { guest_email: 'ada@example.test' }));
    await sendQueued();
    await ok(t, tenant.token, 'POST', `/orders/${a.order.id}/accept`, { prep_minutes: 20 }, 200);
    const ready = new Intl.DateTimeFormat('de', {
      hour: '2-digit',
      minute: '2-digit',
      timeZone: 'Europe/Berlin',
    }).format(t.clock.now().getTime() + 20 * 60_000);
    const [accepted] = await sendQueued();
    assert.ok(accepted);
    assert.ok(accepted.subject.includes(`hat Ihre Bestellung ${a.order.code} angenommen`), accepted.subject);
    assert.ok(accepted.text.includes(`Sie ist voraussichtlich um`), accepted.text);
    assert.ok(accepted.text.includes(ready), `ready at ${ready} in Berlin`);
    assert.ok(accepted.html.includes(ready));
    await ok(t, tenant.token, 'POST', `/orders/${b.order.id}/reject`, { reason: 'Out of dough' }, 200);
    const [rejected] = await sendQueued();
    assert.ok(rejected);
    assert.ok(rejected.subject.includes('nicht annehmen'), rejected.subject);
    assert.ok(rejected.text.includes('Grund: Out of dough'));
    await ok(t, tenant.token, 'POST', `/orders/${c.order.id}/accept`, {}, 200);
    await sendQueued();
    await ok(t, tenant.token, 'POST', `/orders/${c.order.id}/cancel`, { reason: 'Oven <broken>' }, 200);
    const [cancelled] = await sendQueued();
    assert.ok(cancelled);
    assert.ok(cancelled.subject.includes('storniert'), cancelled.subject);
    assert.ok(cancelled.text.includes('Grund: Oven <broken>'));
    assert.ok(cancelled.html.includes('Grund: Oven &lt;broken&gt;'));
  });

  it('no mail without an e-mail, and none at all from a test restaurant', async () => {
    const tenant = await orderingTenant(t);
    const plain = await place(t, tenant);
    await ok(t, tenant.token, 'POST', `/orders/${plain.order.id}/accept`, {}, 200);
    const test = await orderingTenant(t, { livemode: false });
    const cookie = await storefrontPreview(t, test);
    const headers = { cookie };
    const onSite = await guest(
      t,
      test.slug,
      'POST',
      '/orders',
      pickupOrder(test, { guest_email: 'ada@example.test' }),
      headers,
    );
    assert.equal(onSite.statusCode, 201, onSite.body);
    const online = await guest(
      t,
      test.slug,
      'POST',
      '/orders',
      pickupOrder(test, { payment_method: 'online', guest_email: 'ada@example.test' }),
      headers,
    );
    assert.equal(online.statusCode, 201, online.body);
    const key = online.json().guest_key;
    await guest(t, test.slug, 'POST', `/orders/${key}/payment`, undefined, headers);
    const paid = await guest(
      t,
      test.slug,
      'POST',
      `/orders/${key}/payment/test`,
      { outcome: 'succeeded' },
      headers,
    );
    assert.equal(paid.statusCode, 200, paid.body);
    await ok(t, test.token, 'POST', `/orders/${onSite.json().order.id}/accept`, {}, 200);
    await ok(t, test.token, 'POST', `/orders/${online.json().order.id}/cancel`, { reason: 'Test' }, 200);
    assert.deepEqual(await sendQueued(), []);
    assert.deepEqual(await sendQueued('alex@example.test'), []);
  });

  it('keeps the e-mail to itself: never in the API’s order nor in its events', async () => {
    const tenant = await orderingTenant(t);
    const placed = await place(t, tenant, pickupOrder(tenant, { guest_email: 'hidden@example.test' }));
    assert.ok(!JSON.stringify(placed).includes('hidden@'), 'not in the guest’s answer');
    const order = await ok(t, tenant.token, 'GET', `/orders/${placed.order.id}`);
    assert.ok(!JSON.stringify(order).includes('hidden@'));
    await ok(t, tenant.token, 'POST', `/orders/${placed.order.id}/cancel`, { reason: 'x' }, 200);
    const events = await ok(t, tenant.token, 'GET', '/events?types=order.*&limit=100');
    assert.ok(events.data.length >= 2);
    assert.ok(!JSON.stringify(events).includes('hidden@'));
    const guestView = await guest(t, tenant.slug, 'GET', `/orders/${placed.guest_key}`);
    assert.ok(!guestView.body.includes('hidden@'));
  });

  it('refuses a bad e-mail (400 guest_email, nothing written), and an online payment without one', async () => {
    const tenant = await orderingTenant(t);
    const count = async () =>
      (
        await t.database.db
          .selectFrom('orders')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', tenant.restaurantId)
          .executeTakeFirstOrThrow()
      ).n;
    const mailJobs = async () =>
      (
        await t.database.db
          .selectFrom('jobs')
          .select('payload')
          .where('tenant_id', '=', tenant.restaurantId)
          .where('kind', '=', 'email')
          .execute()
      ).length;
    const before = Number(await count());
    const jobsBefore = await mailJobs();
    for (const body of [
      pickupOrder(tenant, { guest_email: 'not an e-mail' }),
      pickupOrder(tenant, { guest_email: `${'a'.repeat(195)}@example.test` }),
      { ...pickupOrder(tenant, { payment_method: 'online' }), guest_email: undefined },
    ]) {
      const res = await guest(t, tenant.slug, 'POST', '/orders', body);
      assertError(res, 400, 'invalid_request', 'guest_email');
    }
    assert.equal(Number(await count()), before);
    assert.equal(await mailJobs(), jobsBefore);
  });
});
