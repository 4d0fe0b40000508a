import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import QRCode from 'qrcode';
import { tableAddress } from '../../src/http/storefront/storefront-address.ts';
import { buildTestApp, call, json, newAccount, signInTo, type TestApp, testBaseUrl } from '../harness.ts';
import { makeRestaurant } from '../oauth/consent-helpers.ts';

/*
 * The tables and areas pages over HTTP: every write with its refusals beside their fields (and
 * nothing saved then), the QR codes page (each code holds the table's storefront address, the key
 * is nowhere else on any page), a new QR key (the storefront refuses the old one), and who may see
 * them: owners only; staff, other restaurants' owners, another restaurant's table, a missing CSRF
 * token are refused and change nothing.
 */
let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

interface Owner {
  restaurantId: string;
  slug: string;
  cookie: string;
  /** The tables pages' path. */
  home: string;
}

/** An owner signed in to the dashboard, with a restaurant of their own. */
async function newOwner(): Promise<Owner> {
  const account = await newAccount(t, false);
  const restaurant = await makeRestaurant(t.ctx, [account.id]);
  const { slug } = await t.database.db
    .selectFrom('restaurants')
    .select('slug')
    .where('id', '=', restaurant.id)
    .executeTakeFirstOrThrow();
  const cookie = await signInTo(t.app, 'dashboard', account.email);
  return {
    restaurantId: restaurant.id,
    slug,
    cookie,
    home: `/dashboard/restaurants/${restaurant.id}/tables`,
  };
}

const get = (cookie: string, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });

/** Posts forms as the page does: its CSRF token (from `formPage`) and its cookies. */
async function poster(cookie: string, formPage: string) {
  const form = await get(cookie, formPage);
  assert.equal(form.statusCode, 200, form.body);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  const cookies = [cookie, ...form.cookies.map((c) => `${c.name}=${c.value}`)].join('; ');
  return (url: string, fields: Record<string, string>, token = csrf) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: token, lang: 'en', ...fields }).toString(),
    });
}

/** The restaurant's tables and areas as the JSON API lists them (with the QR keys). */
async function floor(owner: Owner) {
  const api = `/dashboard/api/restaurants/${owner.restaurantId}`;
  const tables = await call(t.app, 'GET', `${api}/tables?limit=100`, owner.cookie);
  const areas = await call(t.app, 'GET', `${api}/areas?limit=100`, owner.cookie);
  assert.equal(tables.statusCode, 200, tables.body);
  return { tables: json(tables).data, areas: json(areas).data };
}

/** The refused form's errors beside fields: [field id, message]. */
function fieldErrorsOf(body: string): string[][] {
  return [...body.matchAll(/<p class="field-error" id="([^"]+)-error">(.*?)<\/p>/g)].map((m) => [
    m[1] ?? '',
    m[2] ?? '',
  ]);
}

function seeOther(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  to: RegExp,
) {
  assert.equal(response.statusCode, 303, response.body);
  assert.match(response.headers.location as string, to);
}

test('an owner adds, changes and deletes areas and tables; refusals are beside their fields and save nothing', async () => {
  const owner = await newOwner();
  const empty = await get(owner.cookie, owner.home);
  assert.equal(empty.statusCode, 200);
  assert.match(empty.body, /<h1>Tables and areas<\/h1>/);
  assert.match(empty.body, /No areas or tables yet/);
  assert.match(empty.body, /aria-current="page">Tables</);
  const post = await poster(owner.cookie, `${owner.home}/areas/new`);

  const added = await post(`${owner.home}/areas`, { name: ' Terrace ', bookable_online: 'true' });
  seeOther(added, /\/tables\?done=areaCreated#area-[0-9a-f-]{36}$/);
  const [terrace] = (await floor(owner)).areas;
  assert.deepEqual([terrace.name, terrace.bookable_online], ['Terrace', true]);
  const done = await get(owner.cookie, added.headers.location as string);
  assert.match(done.body, /<p class="success" role="status">The area was added.<\/p>/);

  for (const [fields, errors] of [
    [{ name: '  ' }, [['name', 'Enter a name of at most 80 characters.']]],
    [{ name: 'x'.repeat(81) }, [['name', 'Enter a name of at most 80 characters.']]],
  ] as const) {
    const refused = await post(`${owner.home}/areas`, fields);
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(fieldErrorsOf(refused.body), errors);
    assert.match(refused.body, /role="alert"/);
  }
  assert.equal((await floor(owner)).areas.length, 1);

  const table = {
    label: '1',
    seats: '4',
    min_party: '2',
    area_id: terrace.id,
    bookable_online: 'true',
  };
  seeOther(await post(owner.home, table), /\/tables\?done=tableCreated#table-/);
  seeOther(
    await post(owner.home, { label: 'Bar', seats: '', min_party: '', area_id: '' }),
    /done=tableCreated/,
  );
  const [one, bar] = (await floor(owner)).tables;
  assert.deepEqual(
    [one.label, one.seats, one.seats_is_default, one.min_party, one.area_id, one.bookable_online],
    ['1', 4, false, 2, terrace.id, true],
  );
  assert.deepEqual(
    [bar.label, bar.seats_is_default, bar.min_party, bar.area_id, bar.bookable_online],
    ['Bar', true, null, null, false],
  );

  const secondTable = { ...table, label: '2' };
  const seatsError =
    'Enter a number of seats from 1 to 200, not fewer than the minimum party, or leave it empty.';
  const minPartyError =
    'Enter a party size from 1 to 200, not more than the table&#39;s seats, or leave it empty.';
  for (const [fields, errors] of [
    [{ label: '' }, [['label', 'Enter a name of at most 40 characters.']]],
    [{ label: 'x'.repeat(41) }, [['label', 'Enter a name of at most 40 characters.']]],
    [{ seats: '0' }, [['seats', seatsError]]],
    [{ seats: 'four' }, [['seats', seatsError]]],
    [{ seats: '201' }, [['seats', seatsError]]],
    [{ seats: '2', min_party: '3' }, [['min_party', minPartyError]]],
    // Every error of a submit at once, in the form's order.
    [
      { label: '', seats: '201', min_party: 'two' },
      [
        ['label', 'Enter a name of at most 40 characters.'],
        ['seats', seatsError],
        ['min_party', minPartyError],
      ],
    ],
    [
      { area_id: '0196f7d8-0000-7000-8000-000000000000' },
      [['area_id', 'Choose one of the areas, or no area.']],
    ],
    [{ area_id: 'terrace' }, [['area_id', 'Choose one of the areas, or no area.']]],
  ] as const) {
    const refused = await post(owner.home, { ...secondTable, ...fields });
    assert.equal(refused.statusCode, 400, JSON.stringify(fields));
    assert.deepEqual(fieldErrorsOf(refused.body), errors, JSON.stringify(fields));
    // The form keeps what was sent.
    if ('seats' in fields)
      assert.match(refused.body, new RegExp(`name="seats" [^>]*value="${fields.seats}"`));
  }
  const refusedEdit = await post(`${owner.home}/${one.id}`, {
    ...table,
    label: 'One',
    seats: '2',
    min_party: '3',
  });
  assert.equal(refusedEdit.statusCode, 400);
  assert.match(refusedEdit.body, /<h1>Edit table 1<\/h1>/);
  assert.deepEqual(fieldErrorsOf(refusedEdit.body), [['min_party', minPartyError]]);
  assert.deepEqual(
    (await floor(owner)).tables.map((row: { label: string; seats: number }) => [row.label, row.seats]),
    [
      ['1', 4],
      ['Bar', bar.seats],
    ],
  );

  // Every field the API takes, changed: no area, the default size, no minimum, not bookable.
  const editPage = await get(owner.cookie, `${owner.home}/${one.id}`);
  assert.match(editPage.body, /<h1>Edit table 1<\/h1>/);
  assert.match(editPage.body, /name="seats" [^>]*value="4"/);
  assert.match(editPage.body, new RegExp(`<option value="${terrace.id}" selected>Terrace</option>`));
  assert.match(editPage.body, /name="bookable_online" value="true"[^>]* checked/);
  seeOther(
    await post(`${owner.home}/${one.id}`, { label: 'One', seats: '', min_party: '', area_id: '' }),
    new RegExp(`done=tableSaved#table-${one.id}$`),
  );
  seeOther(
    await post(`${owner.home}/${bar.id}`, {
      label: 'Bar',
      seats: '6',
      area_id: terrace.id,
      bookable_online: 'true',
    }),
    /done=tableSaved/,
  );
  const changed = (await floor(owner)).tables;
  assert.deepEqual(
    changed.map((row: Record<string, unknown>) => [
      row.label,
      row.seats_is_default,
      row.min_party,
      row.area_id,
      row.bookable_online,
    ]),
    [
      ['One', true, null, null, false],
      ['Bar', false, null, terrace.id, true],
    ],
  );

  const list = await get(owner.cookie, owner.home);
  assert.match(list.body, /<h2 id="area-[^"]+-heading">Terrace<\/h2>/);
  assert.match(list.body, /<h2 id="without-area">Without an area<\/h2>/);
  assert.match(
    list.body,
    /<th scope="row"><a href="[^"]+">Bar<\/a><\/th>\s*<td>6<\/td>\s*<td>–<\/td>\s*<td>Yes<\/td>/,
  );
  assert.match(
    list.body,
    /<th scope="row"><a href="[^"]+">One<\/a><\/th>\s*<td>\d+ \(default\)<\/td>\s*<td>–<\/td>\s*<td>No<\/td>/,
  );

  seeOther(await post(`${owner.home}/areas/${terrace.id}`, { name: 'Garden' }), /done=areaSaved/);
  assert.deepEqual(
    (await floor(owner)).areas.map((area: { name: string; bookable_online: boolean }) => [
      area.name,
      area.bookable_online,
    ]),
    [['Garden', false]],
  );
  const refusedArea = await post(`${owner.home}/areas/${terrace.id}`, { name: '' });
  assert.equal(refusedArea.statusCode, 400);
  assert.equal((await floor(owner)).areas[0].name, 'Garden');

  // Deleting the area leaves its table without one.
  seeOther(await post(`${owner.home}/areas/${terrace.id}/delete`, {}), /done=areaDeleted$/);
  assert.equal((await post(`${owner.home}/areas/${terrace.id}/delete`, {})).statusCode, 404);
  assert.equal((await get(owner.cookie, `${owner.home}/areas/${terrace.id}`)).statusCode, 404);
  const left = await floor(owner);
  assert.deepEqual([left.areas.length, left.tables[1].area_id], [0, null]);

  seeOther(await post(`${owner.home}/${one.id}/delete`, {}), /done=tableDeleted$/);
  assert.equal((await post(`${owner.home}/${one.id}/delete`, {})).statusCode, 404);
  assert.deepEqual(
    (await floor(owner)).tables.map((row: { label: string }) => row.label),
    ['Bar'],
  );
  for (const missing of [one.id, 'not-a-table', `${one.id}/qr-key`]) {
    const page = await get(owner.cookie, `${owner.home}/${missing}`);
    assert.equal(page.statusCode, 404, missing);
    assert.match(page.body, /This table or area does not exist/);
  }
});

test('an owner sets the size of tables without their own seats; a refused size is beside its field and saves nothing', async () => {
  const owner = await newOwner();
  const post = await poster(owner.cookie, owner.home);
  seeOther(
    await post(owner.home, { label: 'Window', seats: '', min_party: '', area_id: '' }),
    /done=tableCreated/,
  );
  const page = await get(owner.cookie, owner.home);
  const before = /id="default_table_seats"[^>]* value="(\d+)"/.exec(page.body)?.[1];
  assert.ok(before, 'the form shows the current size');
  assert.match(page.body, new RegExp(`${before} \\(default\\)`));

  seeOther(
    await post(`${owner.home}/default-seats`, { default_table_seats: '6' }),
    /\/tables\?done=defaultSeatsSaved$/,
  );
  const [window] = (await floor(owner)).tables;
  assert.deepEqual([window.seats, window.seats_is_default], [6, true]);
  const saved = await get(owner.cookie, `${owner.home}?done=defaultSeatsSaved`);
  assert.match(saved.body, /The size of tables without their own seats was saved./);
  assert.match(saved.body, /id="default_table_seats"[^>]* value="6"/);
  assert.match(saved.body, /6 \(default\)/);

  for (const value of ['0', '201', 'four', '']) {
    const refused = await post(`${owner.home}/default-seats`, { default_table_seats: value });
    assert.equal(refused.statusCode, 400, value);
    assert.deepEqual(fieldErrorsOf(refused.body), [
      ['default_table_seats', 'Enter a whole number of seats from 1 to 200.'],
    ]);
  }
  assert.equal((await floor(owner)).tables[0].seats, 6);
});

test('the QR codes hold each table’s storefront address; the key is in no page’s text, link or attribute', async () => {
  const owner = await newOwner();
  const post = await poster(owner.cookie, `${owner.home}/new`);
  seeOther(await post(owner.home, { label: 'Window', seats: '2' }), /done=tableCreated/);
  seeOther(await post(owner.home, { label: 'Corner', seats: '4' }), /done=tableCreated/);
  const [windowTable, corner] = (await floor(owner)).tables;
  const keys = [windowTable.qr_key, corner.qr_key];
  const svgOf = (key: string) =>
    QRCode.toString(`${testBaseUrl}/s/${owner.slug}/t/${key}`, { type: 'svg', errorCorrectionLevel: 'M' });

  const all = await get(owner.cookie, `${owner.home}/qr-codes`);
  assert.equal(all.statusCode, 200);
  assert.match(all.body, /<h1>QR codes to print<\/h1>/);
  assert.match(all.body, /<h2 id="card-[^"]+">Table Window<\/h2>/);
  assert.match(all.body, /<h2 id="card-[^"]+">Table Corner<\/h2>/);
  // No decoder is installed: the page's code is compared with the code of the expected address,
  // made by the same library with the same options (deterministic).
  assert.ok(all.body.includes(await svgOf(windowTable.qr_key)));
  assert.ok(all.body.includes(await svgOf(corner.qr_key)));
  assert.match(all.body, /role="img" aria-label="QR code of table Window"/);

  const one = await get(owner.cookie, `${owner.home}/qr-codes?table=${corner.id}`);
  assert.equal(one.statusCode, 200);
  assert.equal(one.body.match(/<svg/g)?.length, 1);
  assert.ok(one.body.includes(await svgOf(corner.qr_key)));
  assert.doesNotMatch(one.body, /Table Window/);
  assert.equal(
    (await get(owner.cookie, `${owner.home}/qr-codes?table=${crypto.randomUUID()}`)).statusCode,
    404,
  );

  // The storefront takes the code's address: the key opens the table.
  const scanned = await t.app.inject({ method: 'GET', url: `/s/${owner.slug}/t/${corner.qr_key}` });
  assert.equal(scanned.statusCode, 303);

  for (const url of [
    owner.home,
    `${owner.home}/qr-codes`,
    `${owner.home}/qr-codes?table=${corner.id}`,
    `${owner.home}/new`,
    `${owner.home}/${corner.id}`,
    `${owner.home}/${corner.id}/qr-key`,
  ]) {
    const page = await get(owner.cookie, url);
    assert.equal(page.statusCode, 200, url);
    for (const key of keys) assert.ok(!page.body.includes(key), `${url} shows a key`);
  }
});

test('a new QR code: confirmed first; then the storefront refuses the old key and takes the new one', async () => {
  const owner = await newOwner();
  const post = await poster(owner.cookie, `${owner.home}/new`);
  seeOther(await post(owner.home, { label: '7' }), /done=tableCreated/);
  const [before] = (await floor(owner)).tables;
  const scan = (key: string) => t.app.inject({ method: 'GET', url: `/s/${owner.slug}/t/${key}` });
  assert.equal((await scan(before.qr_key)).statusCode, 303);

  const confirm = await get(owner.cookie, `${owner.home}/${before.id}/qr-key`);
  assert.equal(confirm.statusCode, 200);
  assert.match(confirm.body, /<h1>New QR code for table 7<\/h1>/);
  assert.match(confirm.body, /stops working at once/);
  assert.match(confirm.body, new RegExp(`<form method="post" action="${owner.home}/${before.id}/qr-key">`));
  assert.equal((await floor(owner)).tables[0].qr_key, before.qr_key);

  seeOther(
    await post(`${owner.home}/${before.id}/qr-key`, {}),
    new RegExp(`done=qrKeyChanged#table-${before.id}$`),
  );
  const [renewed] = (await floor(owner)).tables;
  assert.notEqual(renewed.qr_key, before.qr_key);
  assert.equal((await scan(before.qr_key)).statusCode, 404);
  assert.equal((await scan(renewed.qr_key)).statusCode, 303);
  const done = await get(owner.cookie, `${owner.home}?done=qrKeyChanged`);
  assert.match(done.body, /The table has a new QR code/);

  const codes = await get(owner.cookie, `${owner.home}/qr-codes`);
  const svgOf = (key: string) =>
    QRCode.toString(`${testBaseUrl}/s/${owner.slug}/t/${key}`, { type: 'svg', errorCorrectionLevel: 'M' });
  assert.ok(codes.body.includes(await svgOf(renewed.qr_key)));
  assert.ok(!codes.body.includes(await svgOf(before.qr_key)));
  assert.equal((await post(`${owner.home}/${crypto.randomUUID()}/qr-key`, {})).statusCode, 404);
});

test('staff, other restaurants’ owners and another restaurant’s tables: 404, and nothing changes', async () => {
  const owner = await newOwner();
  const post = await poster(owner.cookie, `${owner.home}/new`);
  seeOther(await post(owner.home, { label: 'Mine' }), /done=tableCreated/);
  const [mine] = (await floor(owner)).tables;

  const staff = await newAccount(t, false);
  await t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: owner.restaurantId, account_id: staff.id, role: 'staff' })
    .execute();
  const staffCookie = await signInTo(t.app, 'dashboard', staff.email);
  const other = await newOwner();
  const otherPost = await poster(other.cookie, `${other.home}/new`);
  seeOther(await otherPost(other.home, { label: 'Theirs' }), /done=tableCreated/);
  const [theirs] = (await floor(other)).tables;

  for (const cookie of [staffCookie, other.cookie]) {
    for (const url of [
      owner.home,
      `${owner.home}/new`,
      `${owner.home}/qr-codes`,
      `${owner.home}/${mine.id}`,
      `${owner.home}/${mine.id}/qr-key`,
    ]) {
      const page = await get(cookie, url);
      assert.equal(page.statusCode, 404, url);
      assert.match(page.body, /Restaurant not found/);
      assert.ok(!page.body.includes(mine.qr_key));
    }
  }
  const overview = await get(staffCookie, `/dashboard/restaurants/${owner.restaurantId}`);
  assert.doesNotMatch(overview.body, /href="[^"]*\/tables"/);

  // The other owner's valid form token, sent to this restaurant's pages.
  for (const [url, fields] of [
    [owner.home, { label: 'Intruder' }],
    [`${owner.home}/${mine.id}`, { label: 'Renamed' }],
    [`${owner.home}/${mine.id}/qr-key`, {}],
    [`${owner.home}/${mine.id}/delete`, {}],
    [`${owner.home}/areas`, { name: 'Intruders' }],
  ] as const) {
    assert.equal((await otherPost(url, fields)).statusCode, 404, url);
  }
  // This owner's pages, naming the other restaurant's table.
  for (const url of [
    `${owner.home}/${theirs.id}`,
    `${owner.home}/${theirs.id}/qr-key`,
    `${owner.home}/qr-codes?table=${theirs.id}`,
  ]) {
    assert.equal((await get(owner.cookie, url)).statusCode, 404, url);
  }
  for (const [url, fields] of [
    [`${owner.home}/${theirs.id}`, { label: 'Renamed' }],
    [`${owner.home}/${theirs.id}/qr-key`, {}],
    [`${owner.home}/${theirs.id}/delete`, {}],
  ] as const) {
    assert.equal((await post(url, fields)).statusCode, 404, url);
  }
  assert.deepEqual((await floor(owner)).tables, [mine]);
  assert.deepEqual((await floor(owner)).areas, []);
  assert.deepEqual((await floor(other)).tables, [theirs]);
});

test('a form without its CSRF token is refused (403) and saves nothing', async () => {
  const owner = await newOwner();
  const post = await poster(owner.cookie, `${owner.home}/new`);
  for (const token of ['', 'forged']) {
    const refused = await post(owner.home, { label: 'Forged' }, token);
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /expired|form/i);
    assert.equal((await post(`${owner.home}/areas`, { name: 'Forged' }, token)).statusCode, 403);
  }
  assert.deepEqual(await floor(owner), { tables: [], areas: [] });
});

test('the code’s address: /s/{slug} under BASE_URL, or the restaurant’s own host under STOREFRONT_DOMAIN', () => {
  assert.equal(
    tableAddress({ baseUrl: 'https://servery.example/' }, 'roma', 'k3y'),
    'https://servery.example/s/roma/t/k3y',
  );
  // STOREFRONT_DOMAIN's default is BASE_URL's host: still the path form.
  assert.equal(
    tableAddress({ baseUrl: 'https://servery.example', storefrontDomain: 'servery.example' }, 'roma', 'k3y'),
    'https://servery.example/s/roma/t/k3y',
  );
  assert.equal(
    tableAddress({ baseUrl: 'https://servery.example', storefrontDomain: 'Menus.example' }, 'roma', 'k3y'),
    'https://roma.menus.example/t/k3y',
  );
});
