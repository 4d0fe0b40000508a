import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import type { Plan } from '../../src/domain/shared/scopes.ts';
import { buildTestApp, call, json, newAccount, signInTo, type TestApp } from '../harness.ts';

/*
 * The store's pages over HTTP: each form's success (the store as the JSON API then shows it, and
 * its events), each refusal beside its field with nothing saved, times in the restaurant's zone
 * across a DST change, owners only (staff and other restaurants' owners get the 404), CSRF.
 */
let t: TestApp;
let owner: { id: string; email: string };
let ownerCookie: string;
before(async () => {
  t = await buildTestApp();
  owner = await newAccount(t, false);
  ownerCookie = await signInTo(t.app, 'dashboard', owner.email);
});
after(() => t.close());

let serial = 0;
async function newRestaurant(plan: Plan = 'pro', ownerId = owner.id): Promise<string> {
  serial += 1;
  const restaurant = await createRestaurant(t.ctx, {
    name: `Store pages ${serial} ${process.pid}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    country: 'DE',
    plan,
    livemode: true,
    ownerIds: [ownerId],
  });
  return restaurant.id;
}

type Fields = Record<string, string> | [string, string][];

/** The store pages of a restaurant as a signed-in browser sees them (session and CSRF cookies). */
async function pagesOf(restaurantId: string, cookie = ownerCookie) {
  const home = `/dashboard/restaurants/${restaurantId}/store`;
  const get = (path: string) => t.app.inject({ method: 'GET', url: `${home}${path}`, headers: { cookie } });
  const first = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(first.body)?.[1] ?? '';
  const cookies = [cookie, ...first.cookies.map((c) => `${c.name}=${c.value}`)].join('; ');
  const post = (path: string, fields: Fields, token = csrf) =>
    t.app.inject({
      method: 'POST',
      url: `${home}${path}`,
      headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams([
        ['_csrf', token],
        ['lang', 'en'],
        ...(Array.isArray(fields) ? fields : Object.entries(fields)),
      ]).toString(),
    });
  return { home, get, post };
}

/** The store as the JSON API shows it. */
async function storeOf(restaurantId: string) {
  const res = await call(t.app, 'GET', `/dashboard/api/restaurants/${restaurantId}/store`, ownerCookie);
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

/** The restaurant's events, oldest first: type and data. */
const eventsOf = async (restaurantId: string) =>
  (
    await t.database.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('tenant_id', '=', restaurantId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((row) => ({ type: row.type, data: row.data as { changed?: string[]; previous?: object } }));

/** A refused form: 400, and the errors beside its fields as [field id, message]. */
function errorsBeside(res: LightMyRequestResponse): string[][] {
  assert.equal(res.statusCode, 400, res.body.slice(0, 500));
  return [...res.body.matchAll(/<p class="field-error" id="([^"]+)-error">(.*?)<\/p>/g)].map((m) => [
    m[1] as string,
    m[2] as string,
  ]);
}

/** A refusal saves nothing: the store and its events are as before. */
async function refusedWithoutChange(
  restaurantId: string,
  refusals: Array<() => Promise<LightMyRequestResponse>>,
  expected: string[][][],
) {
  const store = await storeOf(restaurantId);
  const events = (await eventsOf(restaurantId)).length;
  for (const [index, refuse] of refusals.entries())
    assert.deepEqual(errorsBeside(await refuse()), expected[index], `refusal ${index}`);
  assert.deepEqual(await storeOf(restaurantId), store);
  assert.equal((await eventsOf(restaurantId)).length, events);
}

const settings: [string, string][] = [
  ['order_types', 'pickup'],
  ['order_types', 'delivery'],
  ['pickup_minutes', '20'],
  ['delivery_minutes', '50'],
  ['preorders', 'true'],
  ['min_order', '15,50'],
  ['guest_orders_per_minute', '150'],
  ['accent_color', '#7A1F5C'],
  ['order_statuses', 'pending'],
  ['order_statuses', 'ready'],
  ['phone', '+49 30 1234'],
  ['email', 'hallo@example.test'],
  ['website', ''],
  ['address_line', '10115 Berlin, Invalidenstraße 1'],
  ['vat_id', 'DE 123456789'],
  ['lat', '52.53'],
  ['lon', '13.38'],
];
const without = (name: string, fields = settings) => fields.filter(([field]) => field !== name);
const withField = (name: string, value: string, fields = settings): [string, string][] => [
  ...without(name, fields),
  [name, value],
];

test('settings: the state and the form; saved as the JSON API saves them, with store.updated', async () => {
  const id = await newRestaurant('starter');
  const pages = await pagesOf(id);
  const page = await pages.get('');
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<h1>Store<\/h1>/);
  assert.match(page.body, /<strong>Closed\.<\/strong>/);
  assert.match(page.body, /Times are the restaurant’s \(Europe\/Berlin\)/);
  // Dine-in is not in the Starter plan: shown, switched off, with the plans that have it.
  assert.match(page.body, /value="dine_in" disabled aria-describedby="order_types-dine_in-plan"/);
  assert.match(page.body, /Needs the Pro or Premium plan\./);
  assert.match(
    page.body,
    /name="min_order" type="text" class="short" inputmode="decimal" required value="0.00"/,
  );
  assert.match(page.body, /href="[^"]+\/store\/hours"/);

  const saved = await pages.post('', settings);
  assert.equal(saved.statusCode, 303, saved.body);
  assert.equal(saved.headers.location, `${pages.home}?done=settingsSaved`);
  const store = await storeOf(id);
  assert.deepEqual(store.order_types, { pickup: true, delivery: true, dine_in: false });
  assert.deepEqual(store.lead_times, { pickup_minutes: 20, delivery_minutes: 50 });
  assert.equal(store.preorders, true);
  assert.equal(store.min_order, 1550);
  assert.deepEqual(store.order_statuses, ['pending', 'ready', 'completed', 'cancelled']);
  assert.deepEqual(store.contact, { phone: '+49 30 1234', email: 'hallo@example.test', website: null });
  assert.equal(store.address.line, '10115 Berlin, Invalidenstraße 1');
  assert.deepEqual(store.location, { lat: 52.53, lon: 13.38 });
  const [event] = await eventsOf(id);
  assert.equal(event?.type, 'store.updated');
  assert.deepEqual(event?.data.changed, [
    'preorders',
    'order_types',
    'order_statuses',
    'lead_times',
    'min_order',
    'contact',
    'address',
    'location',
  ]);
  const shown = await pages.get('?done=settingsSaved');
  assert.match(shown.body, /role="status">The settings were saved\./);
  assert.match(shown.body, /name="min_order"[^>]+value="15.50"/);
  // The guests' limit is the owner's alone: not in the API's store, saved and shown here.
  assert.match(page.body, /<label for="guest_orders_per_minute">Orders paid on site per minute, at most/);
  assert.match(page.body, /name="guest_orders_per_minute"[^>]+value="60"/, 'the standard limit');
  assert.match(shown.body, /name="guest_orders_per_minute"[^>]+value="150"/);
  assert.equal(store.guest_orders_per_minute, undefined);
  // So is the storefront's accent colour: none at first, kept in lowercase.
  assert.match(page.body, /<label for="accent_color">Accent colour \(optional\)<\/label>/);
  assert.match(page.body, /name="accent_color"[^>]+value=""/);
  assert.match(shown.body, /name="accent_color"[^>]+value="#7a1f5c"/);
  assert.equal(store.accent_color, undefined);
  // The VAT id (on the guests' receipts) likewise.
  assert.match(page.body, /<label for="vat_id">VAT ID \(optional\)<\/label>/);
  assert.match(shown.body, /name="vat_id"[^>]+value="DE 123456789"/);
  assert.equal(store.vat_id, undefined);

  // The same form again changes nothing: no event.
  assert.equal((await pages.post('', settings)).statusCode, 303);
  assert.equal((await eventsOf(id)).length, 1);

  // In the Pro plan dine-in can be switched on.
  const pro = await newRestaurant('pro');
  const proPages = await pagesOf(pro);
  assert.doesNotMatch((await proPages.get('')).body, /disabled/);
  assert.equal((await proPages.post('', [...settings, ['order_types', 'dine_in']])).statusCode, 303);
  assert.deepEqual((await storeOf(pro)).order_types, { pickup: true, delivery: true, dine_in: true });
});

test('settings: each refusal beside its field, nothing saved', async () => {
  const id = await newRestaurant('starter');
  const pages = await pagesOf(id);
  await refusedWithoutChange(
    id,
    [
      () => pages.post('', withField('pickup_minutes', '241')),
      () => pages.post('', withField('delivery_minutes', 'soon')),
      () => pages.post('', withField('min_order', '1.555')),
      () => pages.post('', without('order_statuses')),
      () => pages.post('', without('lon')),
      () => pages.post('', withField('lat', '91')),
      () => pages.post('', withField('phone', '1'.repeat(41))),
      () => pages.post('', withField('guest_orders_per_minute', '59')),
      () => pages.post('', withField('guest_orders_per_minute', '1001')),
      () => pages.post('', withField('guest_orders_per_minute', 'many')),
      // Gold: white text on it has a contrast of 1.4:1. Then two colours not written #rrggbb.
      () => pages.post('', withField('accent_color', '#ffd700')),
      () => pages.post('', withField('accent_color', 'purple')),
      () => pages.post('', withField('accent_color', '#7a1f5')),
      () => pages.post('', withField('vat_id', 'D'.repeat(41))),
      () => pages.post('', withField('vat_id', '<b>DE1</b>')),
      // Dine-in sent although the box is disabled: the plan's refusal, beside the order types.
      () => pages.post('', [...settings, ['order_types', 'dine_in']]),
    ],
    [
      [['pickup_minutes', 'Enter a whole number of minutes from 0 to 240.']],
      [['delivery_minutes', 'Enter a whole number of minutes from 0 to 360.']],
      [['min_order', 'Enter the minimum order as an amount, for example 15.00 (0 for none).']],
      [['order_statuses', 'Choose at least one status.']],
      [['lon', 'Enter both coordinates as decimal numbers (longitude −180 to 180), or neither.']],
      [['lat', 'Enter both coordinates as decimal numbers (latitude −90 to 90), or neither.']],
      [['phone', 'Enter a phone number of at most 40 characters.']],
      [['guest_orders_per_minute', 'Enter a whole number from 60 to 1,000.']],
      [['guest_orders_per_minute', 'Enter a whole number from 60 to 1,000.']],
      [['guest_orders_per_minute', 'Enter a whole number from 60 to 1,000.']],
      ...Array.from({ length: 3 }, () => [
        [
          'accent_color',
          'Enter a colour written #rrggbb that white text reads well on (a contrast of at least 4.5:1, as WCAG AA asks), e.g. #1d5c3a. This one is not, or is too light.',
        ],
      ]),
      ...Array.from({ length: 2 }, () => [
        ['vat_id', 'Enter the VAT ID with letters, digits, spaces, dots or dashes, at most 40 characters.'],
      ]),
      [['order_types', 'Your plan does not include this order type.']],
    ],
  );
  assert.match((await pages.get('')).body, /name="vat_id"[^>]+value=""/, 'no VAT id taken');
  const after = (await pages.get('')).body;
  assert.match(after, /name="guest_orders_per_minute"[^>]+value="60"/, 'the limit unchanged');
  assert.match(after, /name="accent_color"[^>]+value=""/, 'no accent colour taken');
  // Every error of a submit at once, in the form's order: what the form cannot read and what the
  // API's schema refuses alike.
  const wrong: Record<string, string> = {
    pickup_minutes: '241',
    delivery_minutes: 'soon',
    phone: '1'.repeat(41),
  };
  const several = await pages.post(
    '',
    settings.map(([name, value]) => [name, wrong[name] ?? value]),
  );
  assert.equal(several.statusCode, 400);
  assert.deepEqual(
    [...several.body.matchAll(/<p class="field-error" id="([^"]+)-error">/g)].map((m) => m[1]),
    ['pickup_minutes', 'delivery_minutes', 'phone'],
  );
  // A refused form shows what was sent, and its summary links to the field.
  const refused = await pages.post('', withField('min_order', 'abc'));
  assert.match(refused.body, /name="min_order"[^>]+value="abc"/);
  assert.match(refused.body, /<a href="#min_order">/);
});

test('hours: a weekly table with overnight ranges; a range’s error beside its row; nothing saved', async () => {
  const id = await newRestaurant();
  const pages = await pagesOf(id);
  const page = await pages.get('/hours');
  assert.equal(page.statusCode, 200);
  // Every weekday of both lists, each with an empty range to fill.
  assert.match(page.body, /<th scope="row">Monday<\/th>/);
  assert.match(page.body, /<th scope="row">Sunday<\/th>/);
  assert.match(page.body, /id="opening_hours-6-0" name="opening_hours-6-0-open" value=""/);
  assert.match(page.body, /id="delivery_hours-0-0-close" name="delivery_hours-0-0-close"/);

  const hours = {
    'opening_hours-0-0-open': '11:30',
    'opening_hours-0-0-close': '14:30',
    'opening_hours-0-1-open': '18:00',
    'opening_hours-0-1-close': '02:00',
    'opening_hours-4-0-open': '',
    'opening_hours-4-0-close': '',
    'opening_hours-5-0-open': '17:00',
    'opening_hours-5-0-close': '17:00',
    'delivery_hours-1-0-open': '17:00',
    'delivery_hours-1-0-close': '22:00',
  };
  const saved = await pages.post('/hours', hours);
  assert.equal(saved.statusCode, 303, saved.body);
  assert.equal(saved.headers.location, `${pages.home}/hours?done=hoursSaved`);
  const store = await storeOf(id);
  assert.equal(store.always_open, false);
  assert.deepEqual(store.opening_hours, [
    { weekday: 0, open: '11:30', close: '14:30' },
    { weekday: 0, open: '18:00', close: '02:00' },
    { weekday: 5, open: '17:00', close: '17:00' },
  ]);
  assert.deepEqual(store.delivery_hours, [{ weekday: 1, open: '17:00', close: '22:00' }]);
  const [event] = await eventsOf(id);
  assert.deepEqual(event?.data.changed, ['opening_hours', 'delivery_hours']);
  // The saved ranges are shown, with an empty one after them to add another.
  const shown = await pages.get('/hours?done=hoursSaved');
  assert.match(shown.body, /name="opening_hours-0-1-close" value="02:00"/);
  assert.match(shown.body, /name="opening_hours-0-2-open" value=""/);

  await refusedWithoutChange(
    id,
    [
      () => pages.post('/hours', { ...hours, 'opening_hours-5-0-close': '' }),
      () => pages.post('/hours', { ...hours, 'delivery_hours-1-0-open': '25:00' }),
      () => pages.post('/hours', { ...hours, always_open: 'true' }),
      () =>
        pages.post('/hours', { ...hours, 'opening_hours-5-0-close': '', 'delivery_hours-1-0-open': '25:00' }),
    ],
    [
      [['opening_hours-5-0', 'Enter both times of the range (hours and minutes), or leave both empty.']],
      [['delivery_hours-1-0', 'Enter both times of the range (hours and minutes), or leave both empty.']],
      [
        [
          'opening_hours',
          'A store open around the clock has no weekly opening hours: empty them, or untick “open around the clock”.',
        ],
      ],
      // Every error of a submit at once.
      [
        ['opening_hours-5-0', 'Enter both times of the range (hours and minutes), or leave both empty.'],
        ['delivery_hours-1-0', 'Enter both times of the range (hours and minutes), or leave both empty.'],
      ],
    ],
  );
  // The refused form keeps the rows sent (and no more).
  const refused = await pages.post('/hours', { ...hours, 'opening_hours-5-0-close': '' });
  assert.match(refused.body, /name="opening_hours-0-1-close" value="02:00"/);
  assert.doesNotMatch(refused.body, /name="opening_hours-0-2-open"/);

  const always = await pages.post('/hours', {
    always_open: 'true',
    'delivery_hours-1-0-open': '17:00',
    'delivery_hours-1-0-close': '22:00',
  });
  assert.equal(always.statusCode, 303);
  assert.equal((await storeOf(id)).always_open, true);
  assert.match((await pages.get('')).body, /<strong>Open: guests can order\.<\/strong>/);
});

test('special days: add closed or with own hours, list, change, delete; refusals beside their fields', async () => {
  const id = await newRestaurant();
  const pages = await pagesOf(id);
  const empty = await pages.get('/special-days');
  assert.equal(empty.statusCode, 200);
  assert.match(empty.body, /No special days ahead\./);
  // The date field starts at today in the restaurant's calendar (the clock: 2026-11-02 11:00 Berlin).
  assert.match(empty.body, /type="date" id="date" name="date" min="2026-11-02"/);

  const closed = await pages.post('/special-days', { date: '2026-12-25', closed: 'true', note: 'Christmas' });
  assert.equal(closed.statusCode, 303, closed.body);
  assert.equal(closed.headers.location, `${pages.home}/special-days?done=dayAdded`);
  const own = await pages.post('/special-days', {
    date: '2026-12-24',
    closed: 'false',
    'hours-0-open': '11:30',
    'hours-0-close': '15:00',
    'hours-1-open': '',
    'hours-1-close': '',
  });
  assert.equal(own.statusCode, 303, own.body);
  assert.deepEqual((await storeOf(id)).closures, [
    {
      object: 'closure',
      date: '2026-12-24',
      closed: false,
      hours: [{ open: '11:30', close: '15:00' }],
      note: null,
    },
    { object: 'closure', date: '2026-12-25', closed: true, hours: [], note: 'Christmas' },
  ]);
  const changed = await pages.post('/special-days', {
    date: '2026-12-25',
    closed: 'true',
    note: 'Weihnachten',
  });
  assert.equal(changed.headers.location, `${pages.home}/special-days?done=daySaved`);
  const list = await pages.get('/special-days?done=daySaved');
  assert.match(list.body, /role="status">The special day was changed\./);
  assert.match(list.body, /<td>Thursday, December 24, 2026<\/td>\s*<td>11:30–15:00<\/td>/);
  assert.match(
    list.body,
    /<td>Friday, December 25, 2026<\/td>\s*<td>Closed all day<\/td>\s*<td>Weihnachten<\/td>/,
  );
  assert.match(list.body, /Delete<span class="visually-hidden"> Friday, December 25, 2026<\/span>/);
  assert.deepEqual(
    (await eventsOf(id)).map((event) => [event.type, event.data.changed]),
    [
      ['store.updated', ['closures']],
      ['store.updated', ['closures']],
      ['store.updated', ['closures']],
    ],
  );

  const hoursError =
    'Closed all day: leave the hours empty. Own hours: enter one or two ranges, each with both times.';
  const dateError = 'Enter a date of the calendar, today or later.';
  await refusedWithoutChange(
    id,
    [
      () => pages.post('/special-days', { date: '2026-11-01', closed: 'true' }),
      () => pages.post('/special-days', { date: '2027-02-30', closed: 'true' }),
      () => pages.post('/special-days', { date: '', closed: 'true' }),
      () => pages.post('/special-days', { date: '2026-12-31', closed: 'false' }),
      () =>
        pages.post('/special-days', {
          date: '2026-12-31',
          closed: 'true',
          'hours-0-open': '10:00',
          'hours-0-close': '12:00',
        }),
      () => pages.post('/special-days', { date: '2026-12-31', closed: 'false', 'hours-0-open': '10:00' }),
      () => pages.post('/special-days', { date: '2026-12-31', closed: 'true', note: 'x'.repeat(201) }),
      () => pages.post('/special-days', { date: '', closed: 'true', note: 'x'.repeat(201) }),
    ],
    [
      [['date', dateError]],
      [['date', dateError]],
      [['date', dateError]],
      [['hours', hoursError]],
      [['hours', hoursError]],
      [['hours', hoursError]],
      [['note', 'Enter a note of at most 200 characters.']],
      [
        ['date', dateError],
        ['note', 'Enter a note of at most 200 characters.'],
      ],
    ],
  );

  const deleted = await pages.post('/special-days/2026-12-25/delete', {});
  assert.equal(deleted.statusCode, 303);
  assert.equal(deleted.headers.location, `${pages.home}/special-days?done=dayDeleted`);
  assert.deepEqual(
    (await storeOf(id)).closures.map((day: { date: string }) => day.date),
    ['2026-12-24'],
  );
  const again = await pages.post('/special-days/2026-12-25/delete', {});
  assert.equal(again.statusCode, 404);
  assert.match(again.body, /Special day not found/);
});

test('pause and busy mode: start, change, end, with the JSON API’s events; times in the restaurant’s zone across DST', async () => {
  const id = await newRestaurant();
  const pages = await pagesOf(id);
  const page = await pages.get('/pause');
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /Pause orders/);

  // Berlin is on CET (+01:00) now and on CEST (+02:00) from 2027-03-28 03:00: the wall-clock
  // time typed is the restaurant's on that date.
  const paused = await pages.post('/pause', { note: 'Private party', until: '2027-03-28T12:00' });
  assert.equal(paused.statusCode, 303, paused.body);
  assert.equal(paused.headers.location, `${pages.home}/pause?done=paused`);
  let store = await storeOf(id);
  assert.equal(store.status, 'paused');
  assert.equal(store.paused_until, '2027-03-28T10:00:00.000Z');
  assert.equal(store.pause_note, 'Private party');
  let shown = await pages.get('/pause?done=paused');
  assert.match(shown.body, /Paused until Mar 28, 2027, 12:00\WPM\./u);
  assert.match(shown.body, /name="until" type="datetime-local" value="2027-03-28T12:00"/);
  assert.match(shown.body, /End the pause/);

  const changed = await pages.post('/pause', { note: '', until: '2026-11-03T12:00' });
  assert.equal(changed.headers.location, `${pages.home}/pause?done=pauseChanged`);
  store = await storeOf(id);
  assert.equal(store.paused_until, '2026-11-03T11:00:00.000Z');
  assert.equal(store.pause_note, null);
  assert.match((await pages.get('')).body, /Paused until Nov 3, 2026, 12:00\WPM\./u);

  const openEnded = await pages.post('/pause', { note: 'Back soon', until: '' });
  assert.equal(openEnded.statusCode, 303);
  assert.equal((await storeOf(id)).paused_until, null);
  assert.match((await pages.get('/pause')).body, /Paused until you end the pause\./);

  const ended = await pages.post('/pause/end', {});
  assert.equal(ended.headers.location, `${pages.home}/pause?done=resumed`);
  assert.equal((await storeOf(id)).status, 'closed');

  const busy = await pages.post('/busy', { extra_minutes: '20', duration: '90' });
  assert.equal(busy.statusCode, 303, busy.body);
  assert.equal(busy.headers.location, `${pages.home}/pause?done=busyStarted`);
  // The clock reads 2026-11-02T10:00Z: 90 minutes later, 12:30 in Berlin.
  assert.deepEqual((await storeOf(id)).busy, { extra_minutes: 20, until: '2026-11-02T11:30:00.000Z' });
  shown = await pages.get('/pause?done=busyStarted');
  assert.match(shown.body, /Busy: 20 extra minutes on the lead times until Nov 2, 2026, 12:30\WPM\./u);
  const endedBusy = await pages.post('/busy/end', {});
  assert.equal(endedBusy.headers.location, `${pages.home}/pause?done=busyEnded`);
  assert.equal((await storeOf(id)).busy, null);

  assert.deepEqual(
    (await eventsOf(id)).map((event) => [event.type, event.data.changed]),
    [
      ['store.paused', undefined],
      ['store.updated', ['paused_until', 'pause_note']],
      ['store.updated', ['paused_until', 'pause_note']],
      ['store.resumed', undefined],
      ['store.updated', ['busy']],
      ['store.updated', ['busy']],
    ],
  );

  await refusedWithoutChange(
    id,
    [
      () => pages.post('/pause', { note: '', until: '2026-11-02T10:59' }),
      () => pages.post('/pause', { note: '', until: 'tomorrow' }),
      () => pages.post('/pause', { note: 'x'.repeat(141), until: '' }),
      () => pages.post('/busy', { extra_minutes: '4', duration: '60' }),
      () => pages.post('/busy', { extra_minutes: '121', duration: '60' }),
      () => pages.post('/busy', { extra_minutes: '15', duration: '1500' }),
      () => pages.post('/pause', { note: 'x'.repeat(141), until: 'tomorrow' }),
      () => pages.post('/busy', { extra_minutes: '121', duration: '1500' }),
    ],
    [
      [['until', 'Enter a time in the future, or leave it empty.']],
      [['until', 'Enter a time in the future, or leave it empty.']],
      [['note', 'Enter a note of at most 140 characters.']],
      [['extra_minutes', 'Enter a whole number of minutes from 5 to 120.']],
      [['extra_minutes', 'Enter a whole number of minutes from 5 to 120.']],
      [['duration', 'Choose how long busy mode lasts.']],
      [
        ['note', 'Enter a note of at most 140 characters.'],
        ['until', 'Enter a time in the future, or leave it empty.'],
      ],
      [
        ['extra_minutes', 'Enter a whole number of minutes from 5 to 120.'],
        ['duration', 'Choose how long busy mode lasts.'],
      ],
    ],
  );
});

test('owners only: staff and another restaurant’s owner get the restaurant’s 404, and nothing changes', async () => {
  const id = await newRestaurant();
  const staff = await newAccount(t, false);
  await t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: id, account_id: staff.id, role: 'staff' })
    .execute();
  const stranger = await newAccount(t, false);
  await newRestaurant('pro', stranger.id);
  const before = await storeOf(id);
  for (const email of [staff.email, stranger.email]) {
    const pages = await pagesOf(id, await signInTo(t.app, 'dashboard', email));
    for (const path of ['', '/hours', '/special-days', '/pause']) {
      const res = await pages.get(path);
      assert.equal(res.statusCode, 404, path);
      assert.match(res.body, /Restaurant not found/);
    }
    for (const [path, fields] of [
      ['', settings],
      ['/hours', { always_open: 'true' }],
      ['/special-days', { date: '2026-12-24', closed: 'true' }],
      ['/pause', { note: '' }],
      ['/pause/end', {}],
      ['/busy', { extra_minutes: '10', duration: '60' }],
      ['/busy/end', {}],
    ] as const) {
      assert.equal((await pages.post(path, fields as Fields)).statusCode, 404, path);
    }
  }
  assert.deepEqual(await storeOf(id), before);
  assert.deepEqual(await eventsOf(id), []);
});

test('a form without its CSRF token is refused (403) and changes nothing', async () => {
  const id = await newRestaurant();
  const pages = await pagesOf(id);
  const refused = await pages.post('/pause', { note: 'x' }, 'forged');
  assert.equal(refused.statusCode, 403);
  assert.match(refused.body, /expired/i);
  assert.equal((await storeOf(id)).status, 'closed');
  assert.deepEqual(await eventsOf(id), []);
});

test('delivery zones: add, edit, remove as the JSON API saves them; every refusal at once beside its zone’s field', async () => {
  const id = await newRestaurant();
  const pages = await pagesOf(id);
  const empty = await pages.get('/delivery-zones');
  assert.equal(empty.statusCode, 200);
  assert.match(empty.body, /No delivery zones: you deliver to any address, without a delivery fee\./);
  assert.match(empty.body, /<legend>Add a zone<\/legend>/);
  const zone = (row: number, name: string, codes: string, fee: string, min: string): [string, string][] => [
    [`zone-${row}-name`, name],
    [`zone-${row}-postal_codes`, codes],
    [`zone-${row}-fee`, fee],
    [`zone-${row}-min_order`, min],
  ];

  // Add two (German decimal commas, codes by comma, space and new line); an empty row adds nothing.
  const added = await pages.post('/delivery-zones', [
    ...zone(0, 'Mitte', '10115, 10117\n10119', '2,50', '15'),
    ...zone(1, 'Prenzlauer Berg', '104* 10435', '4.00', '20.00'),
    ...zone(2, '', '', '', ''),
  ]);
  assert.equal(added.statusCode, 303, added.body);
  assert.equal(added.headers.location, `${pages.home}/delivery-zones?done=zonesSaved`);
  assert.deepEqual((await storeOf(id)).delivery_zones, [
    { name: 'Mitte', postal_codes: ['10115', '10117', '10119'], fee: 250, min_order: 1500 },
    { name: 'Prenzlauer Berg', postal_codes: ['104*', '10435'], fee: 400, min_order: 2000 },
  ]);
  const shown = await pages.get('/delivery-zones?done=zonesSaved');
  assert.match(shown.body, /The delivery zones were saved\./);
  assert.match(shown.body, /<legend>Zone 1: Mitte<\/legend>/);
  assert.match(shown.body, /name="zone-0-postal_codes"[^>]*>10115, 10117, 10119<\/textarea>/);
  assert.match(shown.body, /name="zone-1-fee"[^>]+value="4.00"/);
  assert.match(shown.body, /<legend>Add a zone<\/legend>/);

  // Edit the first, remove the second, add a third.
  const edited = await pages.post('/delivery-zones', [
    ...zone(0, 'Mitte', '10115 10117', '3.00', '15.00'),
    ...zone(1, 'Prenzlauer Berg', '104*', '4.00', '20.00'),
    ['zone-1-remove', 'yes'],
    ...zone(2, 'Kreuzberg', '109*', '0', '0'),
  ]);
  assert.equal(edited.statusCode, 303, edited.body);
  assert.deepEqual((await storeOf(id)).delivery_zones, [
    { name: 'Mitte', postal_codes: ['10115', '10117'], fee: 300, min_order: 1500 },
    { name: 'Kreuzberg', postal_codes: ['109*'], fee: 0, min_order: 0 },
  ]);
  const updates = (await eventsOf(id)).filter((event) => event.type === 'store.updated');
  assert.deepEqual(
    updates.map((event) => event.data.changed),
    [['delivery_zones'], ['delivery_zones']],
  );

  // Every error of a submit at once, each beside its zone's field, nothing saved.
  await refusedWithoutChange(
    id,
    [
      () =>
        pages.post('/delivery-zones', [
          ...zone(0, 'x'.repeat(81), '10115', 'free', '15.00'),
          ...zone(1, 'Kreuzberg', '10*9', '0', '-1'),
          ...zone(2, 'New', '', '1.999', '0'),
        ]),
      // A name twice (the service's own check, after the form's).
      () =>
        pages.post('/delivery-zones', [
          ...zone(0, 'Mitte', '10115', '0', '0'),
          ...zone(1, 'mitte', '1', '0', '0'),
        ]),
    ],
    [
      [
        ['zone-0-name', 'Enter a name of at most 80 characters that no other zone has.'],
        ['zone-0-fee', 'Enter the delivery fee as an amount, for example 2.50 (0 for free delivery).'],
        [
          'zone-1-postal_codes',
          'Enter up to 200 postal codes, separated by commas, spaces or new lines: letters, digits and dashes, with * at the end for all codes that start so (101*).',
        ],
        ['zone-1-min_order', 'Enter the minimum order as an amount, for example 15.00 (0 for none).'],
        [
          'zone-2-postal_codes',
          'Enter up to 200 postal codes, separated by commas, spaces or new lines: letters, digits and dashes, with * at the end for all codes that start so (101*).',
        ],
        ['zone-2-fee', 'Enter the delivery fee as an amount, for example 2.50 (0 for free delivery).'],
      ],
      [['zone-1-name', 'Enter a name of at most 80 characters that no other zone has.']],
    ],
  );
  // Removing every zone: delivery anywhere again.
  const cleared = await pages.post('/delivery-zones', [
    ...zone(0, 'Mitte', '10115', '3.00', '15.00'),
    ['zone-0-remove', 'yes'],
    ...zone(1, 'Kreuzberg', '109*', '0', '0'),
    ['zone-1-remove', 'yes'],
  ]);
  assert.equal(cleared.statusCode, 303, cleared.body);
  assert.deepEqual((await storeOf(id)).delivery_zones, []);
});
