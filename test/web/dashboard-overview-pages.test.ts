import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { newId } from '../../src/domain/shared/ids.ts';
import { buildTestApp, makeTenant, newAccount, password, type TestApp } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { Browser, csrfOf } from '../oauth/consent-helpers.ts';
import { type OrderingTenant, orderingTenant } from '../orders/order-helpers.ts';
import { type BulkOrder, berlin, insertOrders, simpleOrder } from '../reports/report-helpers.ts';

/*
 * The restaurant's overview over HTTP, at the test clock's Monday 2 November 2026, 11:00 in Berlin:
 * today's orders and takings against Monday 26 October until 11:00 as the sales report counts
 * them (restaurant-local midnight, cancelled and unpaid orders left out), the open orders by
 * status and those waiting long, the next reservations, what is sold out, the store's state and
 * its switches, switched-off webhooks; staff without takings, webhooks or switches; the fragment
 * the page's script fetches; another restaurant's data never shown, and its overview a 404.
 */
let t: TestApp;
let a: OrderingTenant;
let b: OrderingTenant;
let owner: Browser;
let staff: Browser;
let home: string;
/** A's orders by name, for their codes. */
const codes = new Map<string, string>();

/** An order of one line of `amount`, placed at a Berlin wall-clock time. */
const order = (local: string, amount: number, more: Partial<BulkOrder> = {}) =>
  simpleOrder(berlin(local), {
    lines: [{ product_id: newId(), name: 'Pizza', quantity: 1, unit_price: amount, tax_rate_bps: 700 }],
    ...more,
  });

async function insertNamed(tenantId: string, named: Record<string, BulkOrder>): Promise<void> {
  for (const [name, bulk] of Object.entries(named)) {
    await insertOrders(t.ctx.db, tenantId, [bulk]);
    const row = await t.ctx.db
      .selectFrom('orders')
      .select('code')
      .where('tenant_id', '=', tenantId)
      .where('created_at', '=', bulk.created_at)
      .executeTakeFirstOrThrow();
    codes.set(name, row.code);
  }
}

async function member(tenantId: string, role: 'owner' | 'staff'): Promise<Browser> {
  const account = await newAccount(t, false);
  await t.ctx.db
    .insertInto('restaurant_members')
    .values({ tenant_id: tenantId, account_id: account.id, role })
    .execute();
  const browser = new Browser(t.app);
  const form = await browser.get('/dashboard/sign-in');
  const res = await browser.post('/dashboard/sign-in', {
    _csrf: csrfOf(form),
    email: account.email,
    password,
  });
  assert.equal(res.statusCode, 303);
  return browser;
}

async function table(tenantId: string, label: string): Promise<string> {
  const id = newId();
  await t.ctx.db
    .insertInto('store_tables')
    .values({
      tenant_id: tenantId,
      id,
      label,
      qr_key: randomBytes(12).toString('hex'),
      created_at: t.clock.now(),
    })
    .execute();
  return id;
}

async function reservation(
  tenantId: string,
  local: string,
  more: {
    name?: string;
    party?: number;
    minutes?: number;
    status?: 'pending' | 'confirmed' | 'cancelled';
    tables?: string[];
    deleted?: boolean;
  } = {},
): Promise<void> {
  const now = t.clock.now();
  await t.ctx.db
    .insertInto('reservations')
    .values({
      tenant_id: tenantId,
      id: newId(),
      code: randomBytes(4).toString('hex').toUpperCase(),
      status: more.status ?? 'confirmed',
      starts_at: berlin(local),
      duration_minutes: more.minutes ?? 90,
      party_size: more.party ?? 2,
      table_ids: more.tables ?? [],
      source: 'staff',
      guest_name: more.name ?? null,
      guest_phone: null,
      guest_email: null,
      guest_locale: null,
      note: null,
      created_at: now,
      updated_at: now,
      deleted_at: more.deleted ? now : null,
      cancel_token_hash: null,
      guest_key_hash: null,
    })
    .execute();
}

async function switchedOffWebhook(
  owner: { tenantId: string } | { appId: string },
  url: string,
): Promise<string> {
  const id = newId();
  const now = t.clock.now();
  await t.ctx.db
    .insertInto('webhooks')
    .values({
      id,
      app_id: 'appId' in owner ? owner.appId : null,
      tenant_id: 'tenantId' in owner ? owner.tenantId : null,
      url,
      events: ['order.*'],
      enabled: false,
      disabled_at: now,
      disabled_reason: '10 deliveries in a row failed.',
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

before(async () => {
  t = await buildTestApp();
  a = await orderingTenant(t);
  b = await orderingTenant(t);
  home = `/dashboard/restaurants/${a.restaurantId}`;

  await insertNamed(a.restaurantId, {
    // Today, Monday 2 November, Berlin (UTC+1): from local midnight, which is 23:00 UTC on Sunday.
    afterMidnight: order('2026-11-02T00:30', 1000),
    beforeMidnight: order('2026-11-01T23:50', 7000),
    oldPending: order('2026-11-02T10:30', 2000, { status: 'pending' }),
    newPending: order('2026-11-02T10:51', 500, { status: 'pending' }),
    confirmed: order('2026-11-02T10:55', 1500, { status: 'confirmed' }),
    cancelledToday: order('2026-11-02T09:00', 5000, { status: 'cancelled' }),
    unpaidToday: order('2026-11-02T09:30', 4000, { status: 'pending', listed: false }),
    readyYesterday: order('2026-11-01T20:00', 900, { status: 'ready' }),
    // A week ago, Monday 26 October, until 11:00.
    weekAgoEarly: order('2026-10-26T00:10', 1000),
    weekAgoMorning: order('2026-10-26T10:00', 1200),
    weekAgoAfterTime: order('2026-10-26T11:30', 8000),
    weekAgoBeforeMidnight: order('2026-10-25T23:50', 8000),
    weekAgoCancelled: order('2026-10-26T08:00', 8000, { status: 'cancelled' }),
  });
  // Restaurant B: busy with orders of its own, today.
  await insertNamed(b.restaurantId, {
    bToday: order('2026-11-02T10:00', 99_900, { status: 'pending' }),
    bPreparing: order('2026-11-02T10:10', 99_900, { status: 'preparing' }),
  });

  const window = await table(a.restaurantId, 'Window 1');
  const garden = await table(a.restaurantId, 'Garden 3');
  await reservation(a.restaurantId, '2026-11-02T09:00', { name: 'Over', minutes: 60 });
  await reservation(a.restaurantId, '2026-11-02T10:00', { name: 'Seated Late', minutes: 90 });
  await reservation(a.restaurantId, '2026-11-02T12:30', {
    name: 'Rossi',
    party: 4,
    tables: [window, garden],
  });
  await reservation(a.restaurantId, '2026-11-02T13:00', { name: 'Bianchi', status: 'pending' });
  await reservation(a.restaurantId, '2026-11-02T14:00', { name: 'Cancelled', status: 'cancelled' });
  await reservation(a.restaurantId, '2026-11-02T15:00', { name: 'Deleted', deleted: true });
  await reservation(a.restaurantId, '2026-11-02T18:00', { name: 'Verdi', party: 6, tables: [garden] });
  await reservation(a.restaurantId, '2026-11-02T19:30', { name: 'Sixth' });
  await reservation(a.restaurantId, '2026-11-03T00:30', { name: 'Tomorrow' });
  await reservation(b.restaurantId, '2026-11-02T12:00', { name: 'Restaurant B guest' });

  // Sold out: the Calzone (orderingTenant's, until put back), the large lemonade until 15:00; the
  // olives' end has passed (back on sale, even before the worker runs).
  await ok(t, a.token, 'PATCH', `/menu/options/${a.options.large}`, {
    available: false,
    unavailable_until: '2026-11-02T14:00:00Z',
  });
  await t.ctx.db
    .updateTable('menu_options')
    .set({ available: false, unavailable_until: new Date('2026-11-02T09:59:00Z') })
    .where('tenant_id', '=', a.restaurantId)
    .where('id', '=', a.options.olives)
    .execute();
  await ok(t, b.token, 'PATCH', `/menu/products/${b.products.pizza}`, { available: false });
  await t.ctx.db
    .updateTable('menu_products')
    .set({ name: 'B Pizza' })
    .where('tenant_id', '=', b.restaurantId)
    .where('id', '=', b.products.pizza)
    .execute();

  await switchedOffWebhook({ tenantId: a.restaurantId }, 'https://hooks.example.test/servery');
  await switchedOffWebhook({ appId: a.appId }, 'https://till.example.test/hook');
  await switchedOffWebhook({ tenantId: b.restaurantId }, 'https://b-only.example.test/hook');

  owner = await member(a.restaurantId, 'owner');
  staff = await member(a.restaurantId, 'staff');
});
after(() => t.close());

/** The text of an element (tags dropped, spaces collapsed). */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

/** The text of the section headed by `headingId`, or null when the page has none. */
function section(res: LightMyRequestResponse, headingId: string): string | null {
  const found = new RegExp(`<section[^>]*aria-labelledby="${headingId}">([\\s\\S]*?)</section>`).exec(
    res.body,
  );
  return found ? text(found[1] ?? '') : null;
}

/** The figures table's rows: [label, today, a week ago, change]. */
function figures(res: LightMyRequestResponse): string[][] {
  const body = /<table class="overview-figures">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(res.body)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? '').matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => text(cell[1] ?? '')),
  );
}

async function overviewOf(browser: Browser, path = home): Promise<LightMyRequestResponse> {
  const res = await browser.get(path);
  assert.equal(res.statusCode, 200, res.body.slice(0, 500));
  return res;
}

describe('today against a week ago', () => {
  test('orders and takings from local midnight to now, as the reports count them', async () => {
    const res = await overviewOf(owner);
    // Today: 00:30, the two pending and the confirmed (Sunday 23:50, the cancelled and the unpaid
    // left out); a week ago: 00:10 and 10:00 (not 11:30, Sunday's 23:50 or the cancelled).
    assert.deepEqual(figures(res), [
      ['Orders', '4', '2', '+2 (+100%)'],
      ['Takings', '€50.00', '€22.00', '+€28.00 (+127%)'],
    ]);
    assert.match(
      text(res.body),
      /Today until 11:00 AM, compared with Monday, October 26 until the same time/,
    );
    assert.match(text(res.body), /As of 11:00 AM, restaurant time \(Europe\/Berlin\)/);
  });

  test('the figures agree with the sales report of the day', async () => {
    const report = await owner.get(`${home}/reports?kind=sales&from=2026-11-02&to=2026-11-02&group_by=day`);
    assert.equal(report.statusCode, 200);
    assert.match(text(report.body), /Orders 4/);
    assert.match(text(report.body), /€50\.00/);
  });

  test('in the viewer’s language', async () => {
    const res = await overviewOf(owner, `${home}?lang=de`);
    await overviewOf(owner, `${home}?lang=en`);
    assert.deepEqual(figures(res), [
      ['Bestellungen', '4', '2', '+2 (+100 %)'],
      ['Einnahmen', '50,00 €', '22,00 €', '+28,00 € (+127 %)'],
    ]);
  });
});

describe('open orders', () => {
  test('counted by status (every day’s, listed only), linking to the board’s columns', async () => {
    const res = await overviewOf(owner);
    assert.equal(
      section(res, 'open-heading')?.startsWith('Open orders Pending 2 Confirmed 1 Preparing 0 Ready 1'),
      true,
      section(res, 'open-heading') ?? '',
    );
    for (const status of ['pending', 'confirmed', 'preparing', 'ready'])
      assert.ok(res.body.includes(`href="${home}/orders#column-${status}"`), status);
  });

  test('the oldest pending order’s wait, and a problem once one waits over 10 minutes', async () => {
    const res = await overviewOf(owner);
    assert.match(
      section(res, 'open-heading') ?? '',
      new RegExp(`Oldest pending: ${codes.get('oldPending')}, placed at 10:30 AM, waiting 30 minutes\\.`),
    );
    assert.match(
      section(res, 'problems-heading') ?? '',
      /1 order has waited over 10 minutes to be accepted\./,
    );
    // The one placed at 10:51 waits 9 minutes; a minute on, it too has waited 10.
    t.clock.advance(60_000);
    try {
      const later = await overviewOf(owner);
      assert.match(
        section(later, 'problems-heading') ?? '',
        /2 orders have waited over 10 minutes to be accepted\./,
      );
    } finally {
      t.clock.advance(-60_000);
    }
  });
});

describe('reservations', () => {
  test('today’s next five not over nor seated, with party, name and tables, linking to the day', async () => {
    const res = await overviewOf(owner);
    assert.equal(
      section(res, 'reservations-heading'),
      'Next reservations today ' +
        '10:00 AM · Seated Late 2 guests ' +
        '12:30 PM · Rossi 4 guests · tables Window 1, Garden 3 ' +
        '1:00 PM · Bianchi 2 guests · to be confirmed ' +
        '6:00 PM · Verdi 6 guests · table Garden 3 ' +
        '7:30 PM · Sixth 2 guests ' +
        'Today’s reservations',
    );
    assert.ok(res.body.includes(`href="${home}/reservations?date=2026-11-02"`));
  });

  test('not on a plan without reservations', async () => {
    const starter = await makeTenant(t.ctx, { plan: 'starter' });
    const browser = await member(starter.restaurantId, 'owner');
    const res = await overviewOf(browser, `/dashboard/restaurants/${starter.restaurantId}`);
    assert.equal(section(res, 'reservations-heading'), null);
    assert.ok(section(res, 'sold-out-heading'));
  });
});

describe('sold out', () => {
  test('products and options sold out now, with their end, linking to the menu', async () => {
    const res = await overviewOf(owner);
    assert.equal(
      section(res, 'sold-out-heading'),
      'Sold out Calzone Until it is marked available Large (Size) Back on sale Nov 2, 2026, 3:00 PM Menu',
    );
    assert.ok(res.body.includes(`href="${home}/menu/products/${a.products.soldOut}"`));
    assert.ok(res.body.includes(`href="${home}/menu/options/${a.options.large}"`));
  });
});

describe('the store', () => {
  test('open, paused (until, note) and busy, with the switches posting to the store’s pages', async () => {
    let res = await overviewOf(owner);
    assert.equal(
      section(res, 'store-heading'),
      'Store Open: guests can order. Busy mode is off. Pause or busy mode',
    );
    await ok(
      t,
      a.token,
      'POST',
      '/store/pause',
      { note: 'Back at noon', until: '2026-11-02T11:00:00Z' },
      200,
    );
    await ok(
      t,
      a.token,
      'PATCH',
      '/store',
      { busy: { extra_minutes: 20, until: '2026-11-02T10:45:00Z' } },
      200,
    );
    res = await overviewOf(owner);
    assert.equal(
      section(res, 'store-heading'),
      'Store Paused: guests cannot order. Paused until Nov 2, 2026, 12:00 PM. Note for guests: Back at noon ' +
        'Opens Nov 2, 2026, 12:00 PM. Busy: 20 extra minutes on the lead times until 11:45 AM. ' +
        'End the pause End busy mode Change pause or busy mode',
    );
    // A pause with an end is no problem to act on.
    assert.doesNotMatch(section(res, 'problems-heading') ?? '', /paused/);

    const ended = await owner.post(`${home}/store/pause/end`, { _csrf: csrfOf(res) });
    assert.equal(ended.statusCode, 303);
    assert.equal(ended.headers.location, `${home}/store/pause?done=resumed`);
    const busyEnded = await owner.post(`${home}/store/busy/end`, { _csrf: csrfOf(res) });
    assert.equal(busyEnded.statusCode, 303);
    res = await overviewOf(owner);
    assert.match(section(res, 'store-heading') ?? '', /^Store Open: guests can order\. Busy mode is off\./);
  });

  test('a pause without end is a problem to act on', async () => {
    await ok(t, a.token, 'POST', '/store/pause', {}, 200);
    try {
      const res = await overviewOf(owner);
      assert.match(
        section(res, 'problems-heading') ?? '',
        /Orders are paused with no end: guests cannot order until the pause is ended\. End or change the pause/,
      );
      assert.match(section(res, 'store-heading') ?? '', /Paused until you end the pause\./);
    } finally {
      await ok(t, a.token, 'DELETE', '/store/pause', undefined, 200);
    }
  });
});

describe('switched-off webhooks', () => {
  test('the restaurant’s own and a connected app’s are problems to act on, another restaurant’s never', async () => {
    const res = await overviewOf(owner);
    const problems = section(res, 'problems-heading') ?? '';
    assert.match(problems, /Your webhook to hooks\.example\.test was switched off after failing deliveries/);
    assert.match(problems, /The app App [^ ]+ receives no events from your restaurant/);
    assert.doesNotMatch(res.body, /b-only\.example\.test/);
    const own = await t.ctx.db
      .selectFrom('webhooks')
      .select('id')
      .where('tenant_id', '=', a.restaurantId)
      .executeTakeFirstOrThrow();
    assert.ok(res.body.includes(`href="${home}/webhooks/${own.id}"`));
    assert.ok(res.body.includes(`href="${home}/apps"`));
  });

  test('an app no longer connected is not listed', async () => {
    await t.ctx.db
      .updateTable('connections')
      .set({ ended_at: t.clock.now() })
      .where('tenant_id', '=', a.restaurantId)
      .execute();
    try {
      const res = await overviewOf(owner);
      assert.doesNotMatch(section(res, 'problems-heading') ?? '', /The app /);
    } finally {
      await t.ctx.db
        .updateTable('connections')
        .set({ ended_at: null })
        .where('tenant_id', '=', a.restaurantId)
        .execute();
    }
  });
});

describe('staff', () => {
  test('see the orders, reservations, sold-out items and the store, without takings, webhooks or switches', async () => {
    const res = await overviewOf(staff);
    assert.match(res.body, /Your role: Staff/);
    assert.deepEqual(figures(res), [['Orders', '4', '2', '+2 (+100%)']]);
    assert.doesNotMatch(res.body, /€/);
    const problems = section(res, 'problems-heading') ?? '';
    assert.match(problems, /1 order has waited over 10 minutes/);
    assert.doesNotMatch(problems, /webhook|app/i);
    assert.equal(section(res, 'store-heading'), 'Store Open: guests can order. Busy mode is off.');
    assert.doesNotMatch(res.body, /store\/pause|\/menu\/|\/reports|<form method="post" action="[^"]*\/store/);
    assert.match(section(res, 'sold-out-heading') ?? '', /^Sold out Calzone/);
    assert.match(section(res, 'reservations-heading') ?? '', /Rossi/);
  });
});

describe('the fragment the page’s script fetches', () => {
  test('the figures alone, for owners and staff', async () => {
    for (const browser of [owner, staff]) {
      const res = await overviewOf(browser, `${home}/overview`);
      assert.match(res.body, /^\s*<div id="overview" class="overview"/);
      assert.doesNotMatch(res.body, /<html|<nav/);
      assert.equal(figures(res)[0]?.[1], '4');
    }
  });

  test('a newly placed order shows in the next fetch', async () => {
    await insertOrders(t.ctx.db, a.restaurantId, [order('2026-11-02T10:58', 300, { status: 'pending' })]);
    try {
      const res = await overviewOf(owner, `${home}/overview`);
      assert.deepEqual(figures(res)[0], ['Orders', '5', '2', '+3 (+150%)']);
      assert.match(section(res, 'open-heading') ?? '', /Pending 3/);
    } finally {
      await t.ctx.db
        .deleteFrom('orders')
        .where('tenant_id', '=', a.restaurantId)
        .where('created_at', '=', berlin('2026-11-02T10:58'))
        .execute();
    }
  });

  test('the page runs its own script only, and reads the fragment and stream from our origin', async () => {
    const res = await overviewOf(owner);
    assert.match(
      String(res.headers['content-security-policy']),
      /^default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self';/,
    );
    assert.match(res.body, /<script src="\/assets\/[0-9a-f]+\/overview\.js" defer><\/script>/);
    assert.ok(res.body.includes(`data-fragment="${home}/overview"`));
    assert.ok(res.body.includes(`data-stream="/dashboard/api/restaurants/${a.restaurantId}/orders/stream"`));
  });
});

describe('another restaurant', () => {
  test('its data never shows, and its overview is not found', async () => {
    const res = await overviewOf(owner);
    for (const theirs of ['B Pizza', 'Restaurant B guest', 'b-only', '€999', codes.get('bToday') as string])
      assert.ok(!res.body.includes(theirs), theirs);
    for (const path of [
      `/dashboard/restaurants/${b.restaurantId}`,
      `/dashboard/restaurants/${b.restaurantId}/overview`,
    ]) {
      const other = await owner.get(path);
      assert.equal(other.statusCode, 404, path);
      assert.match(other.body, /Restaurant not found/);
    }
  });
});
