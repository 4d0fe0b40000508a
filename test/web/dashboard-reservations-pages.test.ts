import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { updateReservationSettings } from '../../src/domain/reservations/reservation-settings.service.ts';
import { createReservation, updateReservation } from '../../src/domain/reservations/reservations.service.ts';
import type { Ctx } from '../../src/domain/shared/context.ts';
import { createArea } from '../../src/domain/store/areas.service.ts';
import { putStoreHours } from '../../src/domain/store/store.service.ts';
import { createTable } from '../../src/domain/store/tables.service.ts';
import { buildTestApp, newAccount, signInTo, type TestApp, testBaseUrl } from '../harness.ts';
import { makeRestaurant } from '../oauth/consent-helpers.ts';
import { everyDayNoonToTen } from '../reservations/reservation-helpers.ts';

/*
 * The dashboard's reservation pages over HTTP: the day grid (rows of tables by area, columns of the
 * day's times, each reservation across its duration, overlapping ones on lines of their own), the
 * day's list, other days; booking (as staff: source `staff`, the guest e-mailed only when asked),
 * moving, each status move, deleting (owners, after a confirmation), the booking settings with
 * their field errors; every refusal shows the form again and changes nothing. Staff, other
 * restaurants, another restaurant's reservation, the starter plan and a missing CSRF token.
 * The test clock: Monday 2 November 2026, 11:00 in Berlin; times 12:00 to 20:30 every 15 minutes.
 */
let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

interface Restaurant {
  id: string;
  ctx: Ctx;
  cookie: string;
  home: string;
  tables: { t1: string; t2: string; bar: string };
}

/** An owner signed in, with a pro restaurant open every day 12:00–22:00 and three tables. */
async function newRestaurant(): Promise<Restaurant> {
  const account = await newAccount(t, false);
  const restaurant = await makeRestaurant(t.ctx, [account.id]);
  const ctx: Ctx = { ...t.ctx, tenantId: restaurant.id };
  await putStoreHours(ctx, { opening_hours: everyDayNoonToTen });
  const terrace = await createArea(ctx, { name: 'Terrace' });
  const t1 = (await createTable(ctx, { label: 'T1', seats: 2, area_id: terrace.id })).id;
  const t2 = (await createTable(ctx, { label: 'T2', seats: 4, area_id: terrace.id })).id;
  const bar = (await createTable(ctx, { label: 'Bar', seats: 6 })).id;
  return {
    id: restaurant.id,
    ctx,
    cookie: await signInTo(t.app, 'dashboard', account.email),
    home: `/dashboard/restaurants/${restaurant.id}/reservations`,
    tables: { t1, t2, bar },
  };
}

async function staffOf(restaurant: Restaurant): Promise<string> {
  const staff = await newAccount(t, false);
  await t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: restaurant.id, account_id: staff.id, role: 'staff' })
    .execute();
  return signInTo(t.app, 'dashboard', staff.email);
}

/** A booking as staff make it (Servery picks a table when none is named). */
const book = (
  restaurant: Restaurant,
  fields: Partial<Parameters<typeof createReservation>[1]> = {},
  source: 'staff' | 'api' = 'staff',
) =>
  createReservation(
    restaurant.ctx,
    { starts_at: '2026-11-02T17:00:00Z', party_size: 2, guest_name: 'Ada Lovelace', ...fields },
    source,
  );

const get = (cookie: string, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });

/** Posts forms as the pages do: the CSRF token of `formPage` and its cookies. */
async function poster(cookie: string, formPage: string) {
  const form = await get(cookie, formPage);
  assert.equal(form.statusCode, 200, form.body);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  const cookies = [cookie, ...form.cookies.map((c) => `${c.name}=${c.value}`)].join('; ');
  return (url: string, fields: Record<string, string | readonly string[]>, token = csrf) => {
    const body = new URLSearchParams({ _csrf: token, lang: 'en' });
    for (const [name, value] of Object.entries(fields))
      for (const item of typeof value === 'string' ? [value] : value) body.append(name, item);
    return t.app.inject({
      method: 'POST',
      url,
      headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
      payload: body.toString(),
    });
  };
}

function seeOther(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  to: string,
) {
  assert.equal(response.statusCode, 303, response.body);
  assert.equal(response.headers.location, to);
}

/** Text of the page as read: its escapes undone. */
const unescaped = (html: string) =>
  html.replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&');

/** The refused form's errors beside fields: [field id, message]. */
function fieldErrorsOf(body: string): string[][] {
  return [...body.matchAll(/<p class="field-error" id="([^"]+)-error">(.*?)<\/p>/g)].map((m) => [
    m[1] ?? '',
    unescaped(m[2] ?? ''),
  ]);
}

/** The error summary's messages. */
const summaryOf = (body: string) =>
  [
    ...(/<div class="error-summary"[\s\S]*?<\/div>/.exec(body)?.[0] ?? '').matchAll(
      /<li>(?:<a [^>]*>)?(.*?)(?:<\/a>)?<\/li>/g,
    ),
  ].map((m) => unescaped(m[1] ?? ''));

async function rowsOf(restaurant: Restaurant) {
  return t.database.db
    .selectFrom('reservations')
    .selectAll()
    .where('tenant_id', '=', restaurant.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The grid's body rows: each row's header (table) and its cells as [colspan, text]. */
function gridRows(body: string): { header: string | null; cells: [number, string][] }[] {
  const grid = /<table class="day-grid">[\s\S]*?<\/table>/.exec(body)?.[0] ?? '';
  const bodies = grid.split('<tbody>').slice(1).join('');
  return [...bodies.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => {
    const html = row[1] ?? '';
    const header = /<th scope="row"[^>]*>(.*?)<\/th>/.exec(html)?.[1]?.replace(/<[^>]+>/g, '') ?? null;
    const cells = [...html.matchAll(/<td([^>]*)>(.*?)<\/td>/g)].map(
      (cell) =>
        [
          Number(/colspan="(\d+)"/.exec(cell[1] ?? '')?.[1] ?? 1),
          (cell[2] ?? '').replace(/<[^>]+>/g, '').trim(),
        ] as [number, string],
    );
    return { header, cells };
  });
}

test('the day grid: tables by area, a column per time, each reservation across its duration; the list below', async () => {
  const restaurant = await newRestaurant();
  const ada = await book(restaurant); // party 2: T1, 90 minutes, 18:00
  const grace = await book(restaurant, {
    guest_name: 'Grace Hopper',
    party_size: 4,
    starts_at: '2026-11-02T16:00:00Z',
  });
  const gone = await book(restaurant, { guest_name: 'Gone Guest', starts_at: '2026-11-02T11:00:00Z' });
  await updateReservation(restaurant.ctx, gone.id, { status: 'cancelled' });
  // Finished early: T1 is free again at 18:30, so Ada's time and Alan's overlap on T1's row.
  await updateReservation(restaurant.ctx, ada.id, { status: 'seated' });
  await updateReservation(restaurant.ctx, ada.id, { status: 'done' });
  const alan = await book(restaurant, { guest_name: 'Alan Turing', starts_at: '2026-11-02T17:30:00Z' });
  await book(restaurant, { guest_name: 'Tomorrow Guest', starts_at: '2026-11-03T17:00:00Z' });
  assert.deepEqual(
    [ada.table_ids, grace.table_ids, alan.table_ids],
    [[restaurant.tables.t1], [restaurant.tables.t2], [restaurant.tables.t1]],
  );

  const page = await get(restaurant.cookie, restaurant.home);
  assert.equal(page.statusCode, 200, page.body);
  assert.match(page.body, /<h1>Reservations on Monday, November 2, 2026<\/h1>/);
  assert.match(page.body, /aria-current="page">Reservations</);
  assert.match(
    page.body,
    /<caption id="day-grid-caption">Reservations on Monday, November 2, 2026 by table and time<\/caption>/,
  );
  const times = [
    ...page.body.matchAll(
      /<th scope="col" class="grid-time[^"]*">.*?<span class="visually-hidden">(.*?)<\/span><\/th>/g,
    ),
  ].map((m) => m[1]);
  assert.equal(times.length, 35);
  assert.deepEqual([times[0], times[1], times.at(-1)], ['12:00 PM', '12:15 PM', '8:30 PM']);
  assert.match(page.body, /<th scope="rowgroup" colspan="36">Terrace<\/th>/);
  assert.match(page.body, /<th scope="rowgroup" colspan="36">Without an area<\/th>/);

  const rows = gridRows(page.body);
  // T1: Ada 18:00 (column 24, 6 columns) and Alan 18:30 on a second line; T2: Grace 17:00 (8 columns).
  assert.deepEqual(
    rows.map((row) => [row.header, row.cells.filter(([, text]) => text !== '')]),
    [
      ['T1 2 seats', [[6, 'Ada Lovelace 2 guests · Completed 6:00 PM–7:30 PM']]],
      [null, [[6, 'Alan Turing 2 guests · Confirmed 6:30 PM–8:00 PM']]],
      ['T2 4 seats', [[8, 'Grace Hopper 4 guests · Confirmed 5:00 PM–7:00 PM']]],
      ['Bar 6 seats', []],
    ],
  );
  for (const row of rows)
    assert.equal(
      row.cells.reduce((sum, [span]) => sum + span, 0),
      35,
    );
  assert.equal(
    rows[0]?.cells.findIndex(([, text]) => text !== ''),
    24,
  );
  assert.equal(
    rows[1]?.cells.findIndex(([, text]) => text !== ''),
    26,
  );
  assert.match(page.body, /<th scope="row" class="grid-table" rowspan="2">T1/);
  assert.doesNotMatch(/<table class="day-grid">[\s\S]*<\/table>/.exec(page.body)?.[0] ?? '', /Gone Guest/);

  // The list: every reservation of the day by time, the cancelled one too; not tomorrow's.
  const list = /<ol class="day-list">[\s\S]*?<\/ol>/.exec(page.body)?.[0] ?? '';
  assert.deepEqual(
    [...list.matchAll(/<a href="[^"]+\/([0-9a-f-]{36})">(.*?)<\/a>/g)].map((m) => m[2]),
    ['Gone Guest', 'Grace Hopper', 'Ada Lovelace', 'Alan Turing'],
  );
  assert.match(list, /Gone Guest[\s\S]*?Cancelled/);
  assert.match(page.body, /4 reservations this day/);
  assert.match(list, /2 guests · table T1/);
  assert.doesNotMatch(page.body, /Tomorrow Guest/);
  assert.match(page.body, new RegExp(`href="${restaurant.home}\\?date=2026-11-01"`));
  assert.match(page.body, new RegExp(`href="${restaurant.home}\\?date=2026-11-03"`));
  assert.match(page.body, new RegExp(`href="${restaurant.home}/new\\?date=2026-11-02"`));
  assert.match(page.body, new RegExp(`href="${restaurant.home}/settings"`));
});

/** The grid's header after "Table": each time column's visible label, a break as `| <its name> |`. */
function headerLabels(body: string): string[] {
  const head = /<thead>[\s\S]*?<\/thead>/.exec(body)?.[0] ?? '';
  return [
    ...head.matchAll(
      /<th scope="col" class="grid-(time|break)[^"]*"[^>]*>(?:<span aria-hidden="true">(.*?)<\/span>)?<span class="visually-hidden">(.*?)<\/span><\/th>/g,
    ),
  ].map((m) => (m[1] === 'break' ? `| ${m[3]} |` : (m[2] ?? '')));
}

test('the grid labels each column by its own time and marks the break between lunch and dinner', async () => {
  const restaurant = await newRestaurant();
  // Lunch 11:30–14:00, dinner 17:30–22:00, the last booking 15 minutes before closing.
  await putStoreHours(restaurant.ctx, {
    opening_hours: [0, 1, 2, 3, 4, 5, 6].flatMap((weekday) => [
      { weekday, open: '11:30', close: '14:00' },
      { weekday, open: '17:30', close: '22:00' },
    ]),
  });
  await updateReservationSettings(restaurant.ctx, { last_seating_minutes: 15 });
  // A long table from 13:00 to 18:00 runs across the break; an app's booking has no table yet.
  await book(restaurant, {
    guest_name: 'Long Lunch',
    starts_at: '2026-11-02T12:00:00Z',
    duration_minutes: 300,
  });
  await book(restaurant, { guest_name: 'App Guest', starts_at: '2026-11-02T17:00:00Z' }, 'api');

  const page = await get(restaurant.cookie, restaurant.home);
  assert.equal(page.statusCode, 200, page.body);
  const minutes = [':15', ':30', ':45'];
  assert.deepEqual(headerLabels(page.body), [
    '11:30 AM',
    ':45',
    ...['12 PM', '1 PM'].flatMap((hour) => [hour, ...minutes]),
    '| No booking times between 1:45 PM and 5:30 PM |',
    '5:30 PM',
    ':45',
    ...['6 PM', '7 PM', '8 PM', '9 PM'].flatMap((hour) => [hour, ...minutes]),
  ]);
  // The first time of a run off the hour shows in full (and may wrap), in bold as the hours.
  assert.match(page.body, /class="grid-time on-hour full-time"><span aria-hidden="true">5:30 PM<\/span>/);
  assert.match(
    page.body,
    /<th scope="col" class="grid-break" title="No booking times between 1:45 PM and 5:30 PM">/,
  );
  // 10 lunch times, the break, 18 dinner times: every row has a cell for each column.
  assert.match(page.body, /<th scope="rowgroup" colspan="30">Terrace<\/th>/);
  const rows = gridRows(page.body);
  for (const row of rows)
    assert.equal(
      row.cells.reduce((sum, [span]) => sum + span, 0),
      29,
      String(row.header),
    );
  assert.deepEqual(
    rows.map((row) => [row.header, row.cells.filter(([, text]) => text !== '')]),
    [
      ['T1 2 seats', [[7, 'Long Lunch 2 guests · Confirmed 1:00 PM–6:00 PM']]],
      ['T2 4 seats', []],
      ['Bar 6 seats', []],
      ['Without a table', [[6, 'App Guest 2 guests · Confirmed 6:00 PM–7:30 PM']]],
    ],
  );
  // The long table starts in 1 PM's column and spans the break; the others' break is its own cell.
  assert.equal(
    rows[0]?.cells.findIndex(([, text]) => text !== ''),
    6,
  );
  assert.equal((page.body.match(/<td class="grid-break"><\/td>/g) ?? []).length, 3);

  // In German, the restaurant's times as Germans write them.
  const german = await get(restaurant.cookie, `${restaurant.home}?lang=de`);
  const labels = headerLabels(german.body);
  assert.deepEqual(labels.slice(0, 3), ['11:30', ':45', '12 Uhr']);
  assert.deepEqual(labels.slice(9, 12), [
    ':45',
    '| Keine Buchungszeiten zwischen 13:45 und 17:30 |',
    '17:30',
  ]);
});

test('an app’s reservation without a table: kept without on saving, a table ticked is assigned, the hint says so', async () => {
  const restaurant = await newRestaurant();
  const app = await book(restaurant, { guest_name: 'App Guest' }, 'api');
  assert.deepEqual(app.table_ids, []);
  const url = `${restaurant.home}/${app.id}`;
  const page = await get(restaurant.cookie, url);
  assert.match(page.body, /<dt>Tables<\/dt><dd>None<\/dd>/);
  assert.match(unescaped(page.body), /None ticked: the reservation stays without a table/);
  const post = await poster(restaurant.cookie, url);
  const form = {
    date: '2026-11-02',
    starts_at: '2026-11-02T17:00:00.000Z',
    party_size: '2',
    duration_minutes: '90',
    guest_name: 'App Guest',
    note: 'Allergic to nuts',
  };
  seeOther(await post(url, form), `${url}?done=saved`);
  let [row] = await rowsOf(restaurant);
  assert.deepEqual([row?.note, row?.table_ids], ['Allergic to nuts', []]);
  seeOther(await post(url, { ...form, table_ids: [restaurant.tables.bar] }), `${url}?done=saved`);
  [row] = await rowsOf(restaurant);
  assert.deepEqual(row?.table_ids, [restaurant.tables.bar]);
  // The form of a reservation with tables, and the booking form, say Servery picks.
  assert.match((await get(restaurant.cookie, url)).body, /None ticked: Servery picks a free table/);
  assert.match(
    (await get(restaurant.cookie, `${restaurant.home}/new`)).body,
    /None ticked: Servery picks a free table/,
  );
});

test('another day: its own reservations and links; no date is an error; a closed day has no grid', async () => {
  const restaurant = await newRestaurant();
  await book(restaurant, { guest_name: 'Tomorrow Guest', starts_at: '2026-11-03T17:00:00Z' });
  const tomorrow = await get(restaurant.cookie, `${restaurant.home}?date=2026-11-03`);
  assert.equal(tomorrow.statusCode, 200);
  assert.match(tomorrow.body, /<h1>Reservations on Tuesday, November 3, 2026<\/h1>/);
  assert.match(tomorrow.body, /Tomorrow Guest/);
  assert.match(tomorrow.body, new RegExp(`href="${restaurant.home}">Today</a>`));
  assert.match(tomorrow.body, /id="date" name="date" type="date"[^>]* value="2026-11-03"/);

  for (const date of ['2026-02-30', 'tomorrow']) {
    const wrong = await get(restaurant.cookie, `${restaurant.home}?date=${date}`);
    assert.equal(wrong.statusCode, 400);
    assert.deepEqual(fieldErrorsOf(wrong.body), [['date', 'Enter a date as YYYY-MM-DD.']]);
    assert.match(wrong.body, /Reservations on Monday, November 2, 2026/);
  }

  // Monday runs past midnight: its late times are Monday's columns, and Tuesday's list only.
  await putStoreHours(restaurant.ctx, {
    opening_hours: [
      { weekday: 0, open: '18:00', close: '02:00' },
      ...everyDayNoonToTen.filter((w) => w.weekday !== 0 && w.weekday !== 2),
    ],
  });
  await book(restaurant, { guest_name: 'Night Owl', starts_at: '2026-11-02T23:30:00Z' });
  const monday = await get(restaurant.cookie, restaurant.home);
  assert.match(monday.body, /<span class="visually-hidden">12:30 AM<\/span><\/th>\s*<\/tr>/);
  assert.match(/<table class="day-grid">[\s\S]*<\/table>/.exec(monday.body)?.[0] ?? '', /Night Owl/);
  assert.match(/<ol class="day-list">[\s\S]*<\/ol>/.exec(monday.body)?.[0] ?? '', /Night Owl/);
  const tuesday = await get(restaurant.cookie, `${restaurant.home}?date=2026-11-03`);
  assert.doesNotMatch(/<table class="day-grid">[\s\S]*<\/table>/.exec(tuesday.body)?.[0] ?? '', /Night Owl/);
  assert.match(
    /<ol class="day-list">[\s\S]*<\/ol>/.exec(tuesday.body)?.[0] ?? '',
    /Night Owl[\s\S]*Tomorrow Guest/,
  );

  const closed = await get(restaurant.cookie, `${restaurant.home}?date=2026-11-04`);
  assert.match(closed.body, /No booking times on this day/);
  assert.doesNotMatch(closed.body, /class="day-grid"/);
});

test('booking: as staff books (source staff), the guest e-mailed when asked; a refusal keeps the form and books nothing', async () => {
  const restaurant = await newRestaurant();
  const form = await get(restaurant.cookie, `${restaurant.home}/new?date=2026-11-02`);
  assert.equal(form.statusCode, 200);
  assert.match(form.body, /<h1>Book a table<\/h1>/);
  // Times not past only (11:00 now): the first is 12:00 local.
  assert.match(form.body, /<option value="2026-11-02T11:00:00.000Z">12:00 PM<\/option>/);
  assert.match(
    form.body,
    /value="[^"]+" checked> Send the guest a confirmation|id="notify_guest" name="notify_guest" value="true"[^>]*checked/,
  );
  assert.match(form.body, /T1 \(2 seats, Terrace\)/);
  const post = await poster(restaurant.cookie, `${restaurant.home}/new`);

  const booked = await post(restaurant.home, {
    date: '2026-11-02',
    starts_at: '2026-11-02T17:00:00.000Z',
    party_size: '3',
    duration_minutes: '',
    guest_name: ' Ada Lovelace ',
    guest_phone: '+49 30 123456',
    guest_email: 'ada@example.test',
    note: 'Window',
    notify_guest: 'true',
  });
  seeOther(booked, `${restaurant.home}?date=2026-11-02&done=booked`);
  const [ada] = await rowsOf(restaurant);
  assert.deepEqual(
    [ada?.source, ada?.status, ada?.guest_name, ada?.party_size, ada?.duration_minutes, ada?.table_ids],
    ['staff', 'confirmed', 'Ada Lovelace', 3, 120, [restaurant.tables.t2]],
  );
  assert.deepEqual(
    [ada?.guest_phone, ada?.guest_email, ada?.note],
    ['+49 30 123456', 'ada@example.test', 'Window'],
  );
  const done = await get(restaurant.cookie, booked.headers.location as string);
  assert.match(done.body, /<p class="success" role="status">The table was booked.<\/p>/);

  // Named tables, a duration, no e-mail asked for.
  seeOther(
    await post(restaurant.home, {
      date: '2026-11-02',
      starts_at: '2026-11-02T17:00:00.000Z',
      party_size: '2',
      duration_minutes: '60',
      table_ids: [restaurant.tables.bar],
      guest_name: 'Grace Hopper',
      guest_email: 'grace@example.test',
    }),
    `${restaurant.home}?date=2026-11-02&done=booked`,
  );
  const grace = (await rowsOf(restaurant))[1];
  assert.deepEqual([grace?.table_ids, grace?.duration_minutes], [[restaurant.tables.bar], 60]);
  const emails = await t.database.db
    .selectFrom('jobs')
    .select('payload')
    .where('tenant_id', '=', restaurant.id)
    .where('kind', '=', 'email')
    .execute();
  assert.deepEqual(
    emails.map((job) => (job.payload as { to: string }).to),
    ['ada@example.test'],
  );
  // The guest's link to cancel, on the restaurant's storefront.
  const { slug } = await t.database.db
    .selectFrom('restaurants')
    .select('slug')
    .where('id', '=', restaurant.id)
    .executeTakeFirstOrThrow();
  const [adaMail] = emails;
  assert.ok(adaMail);
  assert.match(
    String((adaMail.payload as { params: { cancel_url?: string } }).params.cancel_url),
    new RegExp(`^${testBaseUrl}/s/${slug}/reservations/${ada?.id}/cancel\\?token=rct_[A-Za-z0-9_-]{43}$`),
  );
  assert.notEqual(ada?.cancel_token_hash, null);

  const refusals: [Record<string, string | string[]>, number, string[][]][] = [
    // The bar is taken at 18:00.
    [
      { table_ids: [restaurant.tables.bar] },
      409,
      [['table_ids', 'These tables are not free at this time, or do not seat the party together.']],
    ],
    // Nothing seats 7 (no combinations).
    [
      { party_size: '7' },
      409,
      [
        [
          'starts_at',
          'This time cannot be booked: no table is free for the party then, or the time has passed.',
        ],
      ],
    ],
    [{ starts_at: '' }, 400, [['starts_at', 'Choose one of the times.']]],
    [{ guest_name: '  ' }, 400, [['guest_name', "Enter the guest's name (at most 120 characters)."]]],
    [{ party_size: 'two' }, 400, [['party_size', 'Enter a party size from 1 to 200.']]],
    [
      { guest_phone: '123' },
      400,
      [
        [
          'guest_phone',
          'Enter a phone number with at least six digits (at most 40 characters), or leave it empty.',
        ],
      ],
    ],
    [
      { guest_email: 'not an address' },
      400,
      [['guest_email', 'Enter an e-mail address like name@example.com, or leave it empty.']],
    ],
    // Every error of a submit at once, in the form's order.
    [
      { starts_at: '', party_size: 'two', guest_name: '  ', guest_email: 'not an address' },
      400,
      [
        ['starts_at', 'Choose one of the times.'],
        ['party_size', 'Enter a party size from 1 to 200.'],
        ['guest_name', "Enter the guest's name (at most 120 characters)."],
        ['guest_email', 'Enter an e-mail address like name@example.com, or leave it empty.'],
      ],
    ],
  ];
  for (const [fields, status, errors] of refusals) {
    const refused = await post(restaurant.home, {
      date: '2026-11-02',
      starts_at: '2026-11-02T17:00:00.000Z',
      party_size: '2',
      guest_name: 'Alan Turing',
      ...fields,
    });
    assert.equal(refused.statusCode, status, JSON.stringify(fields));
    assert.deepEqual(fieldErrorsOf(refused.body), errors);
    assert.match(refused.body, /role="alert"/);
    assert.match(refused.body, /<h1>Book a table<\/h1>/);
  }
  // The form keeps what was typed.
  const kept = await post(restaurant.home, {
    date: '2026-11-02',
    starts_at: '',
    party_size: '5',
    guest_name: 'Alan',
  });
  assert.match(kept.body, /id="party_size" name="party_size" type="number"[^>]* value="5"/);
  assert.match(kept.body, /id="guest_name" name="guest_name"[^>]* value="Alan"/);
  assert.equal((await rowsOf(restaurant)).length, 2);
});

test('a reservation is moved; a refused move shows the form again with the message and changes nothing', async () => {
  const restaurant = await newRestaurant();
  const ada = await book(restaurant);
  await book(restaurant, {
    guest_name: 'Bar Guest',
    table_ids: [restaurant.tables.bar],
    starts_at: '2026-11-02T18:00:00Z',
  });
  const url = `${restaurant.home}/${ada.id}`;
  const page = await get(restaurant.cookie, url);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<h1>Reservation: Ada Lovelace<\/h1>/);
  assert.match(page.body, /<option value="2026-11-02T17:00:00.000Z" selected>6:00 PM<\/option>/);
  assert.match(page.body, new RegExp(`value="${restaurant.tables.t1}" checked`));
  assert.match(page.body, new RegExp(`<code>${ada.code}</code>`));
  const post = await poster(restaurant.cookie, url);
  const form = {
    date: '2026-11-02',
    starts_at: '2026-11-02T17:00:00.000Z',
    party_size: '2',
    duration_minutes: '90',
    table_ids: [restaurant.tables.t1],
    guest_name: 'Ada Lovelace',
    note: '',
  };

  seeOther(await post(url, form), `${url}?done=unchanged`);
  seeOther(
    await post(url, {
      ...form,
      starts_at: '2026-11-02T16:30:00.000Z',
      party_size: '4',
      table_ids: [restaurant.tables.t2],
      note: 'Birthday',
    }),
    `${url}?done=saved`,
  );
  let [row] = await rowsOf(restaurant);
  assert.deepEqual(
    [row?.starts_at.toISOString(), row?.party_size, row?.table_ids, row?.note, row?.duration_minutes],
    ['2026-11-02T16:30:00.000Z', 4, [restaurant.tables.t2], 'Birthday', 90],
  );
  const saved = await get(restaurant.cookie, `${url}?done=saved`);
  assert.match(saved.body, /The changes were saved./);

  // Another day's times, for moving there.
  const otherDay = await get(restaurant.cookie, `${url}?date=2026-11-05`);
  assert.match(otherDay.body, /<option value="2026-11-05T11:00:00.000Z">12:00 PM<\/option>/);

  const moved = {
    ...form,
    starts_at: '2026-11-02T16:30:00.000Z',
    party_size: '4',
    table_ids: [restaurant.tables.t2],
    note: 'Birthday',
  };
  for (const [fields, status, errors] of [
    // The bar is taken from 19:00.
    [
      { table_ids: [restaurant.tables.bar], starts_at: '2026-11-02T17:30:00.000Z' },
      409,
      [['table_ids', 'These tables are not free at this time, or do not seat the party together.']],
    ],
    [
      { starts_at: '2026-11-02T17:10:00.000Z' },
      409,
      [
        [
          'starts_at',
          'This time cannot be booked: no table is free for the party then, or the time has passed.',
        ],
      ],
    ],
    [{ party_size: '0' }, 400, [['party_size', 'Enter a party size from 1 to 200.']]],
    [
      { duration_minutes: '5' },
      400,
      [['duration_minutes', 'Enter a duration from 15 to 600 minutes, or leave it empty.']],
    ],
  ] as const) {
    const refused = await post(url, { ...moved, ...fields });
    assert.equal(refused.statusCode, status, JSON.stringify(fields));
    assert.deepEqual(fieldErrorsOf(refused.body), errors);
    assert.match(refused.body, /<h1>Reservation: Ada Lovelace<\/h1>/);
  }
  [row] = await rowsOf(restaurant);
  assert.deepEqual(
    [row?.starts_at.toISOString(), row?.table_ids],
    ['2026-11-02T16:30:00.000Z', [restaurant.tables.t2]],
  );
});

test('the status buttons: the moves possible now, each moving the reservation; a move no longer possible changes nothing', async () => {
  const restaurant = await newRestaurant();
  const buttonsOf = (body: string) => [...body.matchAll(/name="status" value="([a-z_]+)"/g)].map((m) => m[1]);
  const pending = await book(restaurant, { status: 'pending' });
  const url = `${restaurant.home}/${pending.id}`;
  const post = await poster(restaurant.cookie, url);
  assert.deepEqual(buttonsOf((await get(restaurant.cookie, url)).body), [
    'confirmed',
    'declined',
    'cancelled',
  ]);
  assert.match((await get(restaurant.cookie, url)).body, />Requested</);

  for (const [status, next] of [
    ['confirmed', ['seated', 'cancelled', 'no_show']],
    ['seated', ['done']],
    ['done', []],
  ] as const) {
    seeOther(await post(`${url}/status`, { status }), `${url}?done=status`);
    const page = await get(restaurant.cookie, `${url}?done=status`);
    assert.deepEqual(buttonsOf(page.body), next);
  }
  assert.match(
    (await get(restaurant.cookie, `${url}?done=status`)).body,
    /The reservation is now: Completed./,
  );
  // Done is final: a stale button (seat) is refused and changes nothing; time and tables are fixed now.
  const stale = await post(`${url}/status`, { status: 'seated' });
  assert.equal(stale.statusCode, 409);
  assert.deepEqual(summaryOf(stale.body), [
    "This is not possible in the reservation's status now. Nothing was changed.",
  ]);
  assert.doesNotMatch(stale.body, /name="starts_at"/);
  assert.match(stale.body, /can only change while the reservation is requested or confirmed/);
  assert.equal((await rowsOf(restaurant))[0]?.status, 'done');
  assert.equal((await post(`${url}/status`, { status: 'lost' })).statusCode, 400);

  for (const [start, moves, final] of [
    ['2026-11-02T12:00:00Z', ['declined'], 'declined'],
    ['2026-11-02T12:15:00Z', ['cancelled'], 'cancelled'],
    ['2026-11-02T12:30:00Z', ['confirmed', 'no_show'], 'no_show'],
    ['2026-11-02T12:45:00Z', ['confirmed', 'cancelled'], 'cancelled'],
  ] as const) {
    const reservation = await book(restaurant, { status: 'pending', starts_at: start });
    for (const status of moves)
      seeOther(
        await post(`${restaurant.home}/${reservation.id}/status`, { status }),
        `${restaurant.home}/${reservation.id}?done=status`,
      );
    const [row] = (await rowsOf(restaurant)).filter((r) => r.id === reservation.id);
    assert.equal(row?.status, final);
  }
});

test('deleting: owners only, after a confirmation; staff work the day but see no delete and no settings', async () => {
  const restaurant = await newRestaurant();
  const ada = await book(restaurant);
  const url = `${restaurant.home}/${ada.id}`;
  const staff = await staffOf(restaurant);

  const staffPage = await get(staff, url);
  assert.equal(staffPage.statusCode, 200);
  assert.doesNotMatch(staffPage.body, /Delete the reservation/);
  assert.doesNotMatch((await get(staff, restaurant.home)).body, /\/settings"/);
  assert.equal((await get(staff, `${url}/delete`)).statusCode, 404);
  assert.equal((await get(staff, `${restaurant.home}/settings`)).statusCode, 404);
  const staffPost = await poster(staff, url);
  assert.equal((await staffPost(`${url}/delete`, {})).statusCode, 404);
  assert.equal((await staffPost(`${restaurant.home}/settings`, { slot_minutes: '30' })).statusCode, 404);
  // Staff book, move and seat.
  seeOther(
    await staffPost(url, {
      guest_name: 'Ada L.',
      note: '',
      starts_at: ada.starts_at.toISOString(),
      party_size: '2',
      table_ids: ada.table_ids,
    }),
    `${url}?done=saved`,
  );
  seeOther(await staffPost(`${url}/status`, { status: 'seated' }), `${url}?done=status`);
  seeOther(
    await staffPost(restaurant.home, {
      date: '2026-11-02',
      starts_at: '2026-11-02T12:00:00.000Z',
      party_size: '2',
      guest_name: 'Staff Booking',
    }),
    `${restaurant.home}?date=2026-11-02&done=booked`,
  );
  assert.equal((await rowsOf(restaurant)).length, 2);

  const page = await get(restaurant.cookie, url);
  assert.match(page.body, new RegExp(`<a class="button" href="${url}/delete">Delete the reservation</a>`));
  const confirm = await get(restaurant.cookie, `${url}/delete`);
  assert.equal(confirm.statusCode, 200);
  assert.match(confirm.body, /<h1>Delete the reservation of Ada L.\?<\/h1>/);
  assert.equal((await rowsOf(restaurant))[0]?.deleted_at, null);
  const post = await poster(restaurant.cookie, `${url}/delete`);
  seeOther(await post(`${url}/delete`, {}), `${restaurant.home}?date=2026-11-02&done=deleted`);
  assert.ok((await rowsOf(restaurant))[0]?.deleted_at instanceof Date);
  const day = await get(restaurant.cookie, `${restaurant.home}?date=2026-11-02&done=deleted`);
  assert.match(day.body, /The reservation was deleted./);
  assert.doesNotMatch(day.body, /Ada L\./);
  const gone = await get(restaurant.cookie, url);
  assert.equal(gone.statusCode, 404);
  assert.match(gone.body, /This reservation does not exist/);
  assert.equal((await post(`${url}/delete`, {})).statusCode, 404);
});

test('the booking settings: every field saved; wrong values beside their fields, nothing saved', async () => {
  const restaurant = await newRestaurant();
  const url = `${restaurant.home}/settings`;
  const page = await get(restaurant.cookie, url);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /id="slot_minutes" name="slot_minutes" type="number"[^>]* value="15"/);
  assert.match(page.body, /id="durations-2-max_party"[^>]* value=""/);
  assert.match(page.body, /id="durations-2-minutes"[^>]* value="150"/);
  assert.match(page.body, /id="durations-4-minutes"/);
  const post = await poster(restaurant.cookie, url);
  const { t1, t2, bar } = restaurant.tables;
  const form = {
    slot_minutes: '30',
    last_seating_minutes: '60',
    guest_horizon_days: '30',
    guest_lead_minutes: '0',
    'durations-0-max_party': '2',
    'durations-0-minutes': '60',
    'durations-1-max_party': '',
    'durations-1-minutes': '',
    'durations-2-max_party': '',
    'durations-2-minutes': '100',
    new_combination: [t1, t2],
  };
  /** The settings as the JSON API answers them, without the time of their last change. */
  const settingsNow = async () => {
    const { updated_at: _, ...settings } = (
      await get(restaurant.cookie, `/dashboard/api/restaurants/${restaurant.id}/reservation-settings`)
    ).json();
    return settings;
  };
  seeOther(await post(url, form), `${url}?done=settingsSaved`);
  const saved = await settingsNow();
  assert.deepEqual(
    [saved.slot_minutes, saved.last_seating_minutes, saved.guest_horizon_days, saved.guest_lead_minutes],
    [30, 60, 30, 0],
  );
  assert.deepEqual(saved.durations, [
    { max_party: 2, minutes: 60 },
    { max_party: null, minutes: 100 },
  ]);
  assert.deepEqual(saved.combinations, [[t1, t2]]);
  const shown = await get(restaurant.cookie, `${url}?done=settingsSaved`);
  assert.match(shown.body, /The booking settings were saved./);
  assert.match(shown.body, new RegExp(`value="${t1},${t2}" checked> T1 \\+ T2`));
  // The day's times follow: every 30 minutes up to 21:00.
  const day = await get(restaurant.cookie, restaurant.home);
  assert.equal([...day.body.matchAll(/class="grid-time/g)].length, 19);

  const kept = { ...form, new_combination: [], combinations: [`${t1},${t2}`] };
  for (const [fields, errors] of [
    [{ slot_minutes: '3' }, [['slot_minutes', 'Enter a number of minutes from 5 to 120.']]],
    [
      { last_seating_minutes: 'late' },
      [['last_seating_minutes', 'Enter a number of minutes from 0 to 600.']],
    ],
    [{ guest_horizon_days: '400' }, [['guest_horizon_days', 'Enter a number of days from 1 to 365.']]],
    [
      { 'durations-1-max_party': '1', 'durations-1-minutes': '30' },
      [
        [
          'durations-1-max_party',
          "Party sizes go up from row to row (1 to 200); leave only the last row's size empty, for all larger parties.",
        ],
      ],
    ],
    [
      { 'durations-2-minutes': '700' },
      [['durations-2-minutes', 'Enter a duration from 15 to 600 minutes for each party size.']],
    ],
    [
      { 'durations-1-max_party': '4' },
      [['durations-1-minutes', 'Enter a duration from 15 to 600 minutes for each party size.']],
    ],
    [
      { new_combination: [bar] },
      [['new_combination', 'Tick 2 to 4 tables for a new combination, one not allowed yet.']],
    ],
    [
      { new_combination: [t2, t1] },
      [['new_combination', 'Tick 2 to 4 tables for a new combination, one not allowed yet.']],
    ],
    // Every error of a submit at once, in the form's order.
    [
      { slot_minutes: '3', guest_horizon_days: '400', 'durations-2-minutes': '700' },
      [
        ['slot_minutes', 'Enter a number of minutes from 5 to 120.'],
        ['durations-2-minutes', 'Enter a duration from 15 to 600 minutes for each party size.'],
        ['guest_horizon_days', 'Enter a number of days from 1 to 365.'],
      ],
    ],
  ] as const) {
    const refused = await post(url, { ...kept, ...fields });
    assert.equal(refused.statusCode, 400, JSON.stringify(fields));
    assert.deepEqual(fieldErrorsOf(refused.body), errors);
    assert.match(refused.body, /role="alert"/);
  }
  assert.deepEqual(await settingsNow(), saved);
  // An empty field keeps its value.
  seeOther(await post(url, { ...kept, guest_lead_minutes: '' }), `${url}?done=settingsSaved`);
  assert.deepEqual(await settingsNow(), saved);
  // Unticking a combination removes it.
  seeOther(await post(url, { ...form, new_combination: [] }), `${url}?done=settingsSaved`);
  assert.deepEqual((await settingsNow()).combinations, []);
});

test('another restaurant and its reservations: 404, and nothing changes', async () => {
  const mine = await newRestaurant();
  const theirs = await newRestaurant();
  const their = await book(theirs);
  const staff = await staffOf(mine);
  // Their reservation through my restaurant's pages: the reservation's 404.
  for (const cookie of [mine.cookie, staff]) {
    const page = await get(cookie, `${mine.home}/${their.id}`);
    assert.equal(page.statusCode, 404);
    assert.match(page.body, /This reservation does not exist/);
  }
  assert.equal((await get(mine.cookie, `${mine.home}/not-a-uuid`)).statusCode, 404);
  const post = await poster(mine.cookie, mine.home);
  for (const [url, fields] of [
    [`${mine.home}/${their.id}`, { guest_name: 'Renamed' }],
    [`${mine.home}/${their.id}/status`, { status: 'cancelled' }],
    [`${mine.home}/${their.id}/delete`, {}],
  ] as const)
    assert.equal((await post(url, fields)).statusCode, 404, url);
  // Their restaurant's pages: the restaurant's 404.
  for (const url of [
    theirs.home,
    `${theirs.home}/new`,
    `${theirs.home}/settings`,
    `${theirs.home}/${their.id}`,
  ]) {
    const page = await get(mine.cookie, url);
    assert.equal(page.statusCode, 404, url);
    assert.match(page.body, /Restaurant not found/);
  }
  for (const [url, fields] of [
    [theirs.home, { starts_at: '2026-11-02T12:00:00.000Z', party_size: '2', guest_name: 'Intruder' }],
    [`${theirs.home}/${their.id}/status`, { status: 'cancelled' }],
    [`${theirs.home}/settings`, { slot_minutes: '30' }],
  ] as const)
    assert.equal((await post(url, fields)).statusCode, 404, url);
  const [row] = await rowsOf(theirs);
  assert.deepEqual([row?.guest_name, row?.status, row?.deleted_at], ['Ada Lovelace', 'confirmed', null]);
  assert.equal((await rowsOf(theirs)).length, 1);
});

test('the starter plan: the page says reservations need the pro plan, and nothing else', async () => {
  const restaurant = await newRestaurant();
  const ada = await book(restaurant);
  const staff = await staffOf(restaurant);
  const post = await poster(restaurant.cookie, restaurant.home);
  await t.database.db
    .updateTable('restaurants')
    .set({ plan: 'starter' })
    .where('id', '=', restaurant.id)
    .execute();
  for (const cookie of [restaurant.cookie, staff])
    for (const url of [
      restaurant.home,
      `${restaurant.home}/new`,
      `${restaurant.home}/${ada.id}`,
      `${restaurant.home}/settings`,
    ]) {
      const page = await get(cookie, url);
      if (cookie === staff && url.endsWith('/settings')) continue;
      assert.equal(page.statusCode, 403, url);
      assert.match(page.body, /<h1>Reservations<\/h1>/);
      assert.match(page.body, /Reservations need the Pro or Premium plan/);
      assert.doesNotMatch(page.body, /<form method="post" action="[^"]*reservations/);
    }
  for (const [url, fields] of [
    [restaurant.home, { starts_at: '2026-11-02T12:00:00.000Z', party_size: '2', guest_name: 'Starter' }],
    [`${restaurant.home}/${ada.id}/status`, { status: 'cancelled' }],
    [`${restaurant.home}/settings`, { slot_minutes: '30' }],
  ] as const)
    assert.equal((await post(url, fields)).statusCode, 403, url);
  const rows = await rowsOf(restaurant);
  assert.deepEqual(
    rows.map((row) => row.status),
    ['confirmed'],
  );
});

test('a form without its CSRF token is refused (403) and changes nothing', async () => {
  const restaurant = await newRestaurant();
  const ada = await book(restaurant);
  const post = await poster(restaurant.cookie, restaurant.home);
  for (const token of ['', 'forged']) {
    assert.equal(
      (
        await post(
          restaurant.home,
          { starts_at: '2026-11-02T12:00:00.000Z', party_size: '2', guest_name: 'Forged' },
          token,
        )
      ).statusCode,
      403,
    );
    assert.equal(
      (await post(`${restaurant.home}/${ada.id}/status`, { status: 'cancelled' }, token)).statusCode,
      403,
    );
    assert.equal((await post(`${restaurant.home}/${ada.id}/delete`, {}, token)).statusCode, 403);
  }
  const rows = await rowsOf(restaurant);
  assert.deepEqual(
    rows.map((row) => [row.status, row.deleted_at]),
    [['confirmed', null]],
  );
});
