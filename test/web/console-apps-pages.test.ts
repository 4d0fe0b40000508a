import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { replacedSecretValidMs } from '../../src/domain/apps/apps.service.ts';
import { consentToApp } from '../../src/domain/connections/connections.service.ts';
import { buildTestApp, makeTenant, newAccount, signInTo, type TestApp } from '../harness.ts';
import { makeRestaurant } from '../oauth/consent-helpers.ts';

/*
 * The console's app pages over HTTP: registering each type (a confidential app's secret shown once,
 * in the answer, and working at the token endpoint), every field's refusal beside its field with
 * nothing created, changing an app, rotating the secret (the old one works 24 hours, not after),
 * the connections page, another developer's app (404, unchanged), and forms without the CSRF token.
 */
let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

type Fields = Record<string, string | string[]>;

/** A developer signed in to the console, posting forms as a browser does (session + CSRF cookies). */
async function developer() {
  const account = await newAccount(t, true);
  let cookies = '';
  let csrf = '';
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: cookies } });
  /** Signs in (again, after a day without a request ends the session) and reads a form's token. */
  const signIn = async () => {
    cookies = await signInTo(t.app, 'console', account.email);
    const page = await get('/console/apps/new');
    csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    cookies = [cookies, ...page.cookies.map((c) => `${c.name}=${c.value}`)].join('; ');
  };
  await signIn();
  const post = (url: string, fields: Fields, token = csrf) => {
    const body = new URLSearchParams({ lang: 'en' });
    if (token) body.append('_csrf', token);
    for (const [name, value] of Object.entries(fields))
      for (const item of typeof value === 'string' ? [value] : value) body.append(name, item);
    return t.app.inject({
      method: 'POST',
      url,
      headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
      payload: body.toString(),
    });
  };
  return { account, get, post, signIn };
}

const confidential: Fields = {
  name: 'Kitchen Display',
  type: 'confidential',
  redirect_uris: 'https://kds.example.test/callback\r\n\r\n  https://kds.example.test/other  ',
  scopes: ['orders:read', 'orders:write'],
  logo_url: 'https://kds.example.test/logo.png',
  website: 'https://kds.example.test',
};

const secretOn = (res: LightMyRequestResponse) => /<code id="new-secret">([^<]+)<\/code>/.exec(res.body)?.[1];
const clientIdOn = (res: LightMyRequestResponse) => /svc_app_[\w-]+/.exec(res.body)?.[0] ?? '';
/** The refused form's errors beside fields: [field id, message]. */
const fieldErrorsOf = (res: LightMyRequestResponse) =>
  [...res.body.matchAll(/<p class="field-error" id="([^"]+)-error">(.*?)<\/p>/g)].map((m) => [m[1], m[2]]);

/** Authenticates at the token endpoint: a known secret gets past client authentication to the grant. */
async function secretWorks(clientId: string, secret: string): Promise<boolean> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: 'svc_rt_unknown',
      client_id: clientId,
      client_secret: secret,
    }).toString(),
  });
  if (res.statusCode === 401) {
    assert.equal(res.json().error, 'invalid_client');
    return false;
  }
  assert.equal(res.json().error, 'invalid_grant', res.body);
  return true;
}

const appCount = async () =>
  Number(
    (
      await t.ctx.db
        .selectFrom('apps')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const appRow = (clientId: string) =>
  t.ctx.db.selectFrom('apps').selectAll().where('client_id', '=', clientId).executeTakeFirstOrThrow();

test('a confidential app: registered, its secret shown once in the answer, working, never shown again', async () => {
  const dev = await developer();
  const created = await dev.post('/console/apps', confidential);
  assert.equal(created.statusCode, 201, created.body);
  assert.match(created.body, /Copy it now: it will not be shown again\./);
  assert.match(created.body, /The app was registered\./);
  const secret = secretOn(created) ?? '';
  assert.match(secret, /^svc_cs_[\w-]{43}$/);
  assert.equal(created.headers['cache-control'], 'no-store');
  assert.ok(
    !JSON.stringify(created.headers).includes(secret),
    'the secret is in no header (cookie, location)',
  );
  const clientId = clientIdOn(created);
  assert.ok(await secretWorks(clientId, secret));

  const row = await appRow(clientId);
  assert.equal(row.developer_id, dev.account.id);
  assert.equal(row.status, 'pending');
  assert.deepEqual(row.redirect_uris, [
    'https://kds.example.test/callback',
    'https://kds.example.test/other',
  ]);
  assert.deepEqual(row.scopes, ['orders:read', 'orders:write']);
  assert.equal(row.logo_url, 'https://kds.example.test/logo.png');
  assert.equal(row.website, 'https://kds.example.test');

  const again = await dev.get(`/console/apps/${clientId}`);
  assert.equal(again.statusCode, 200);
  assert.ok(!again.body.includes(secret), 'the secret is not shown again');
  assert.equal(secretOn(again), undefined);
  assert.match(again.body, /<td>Nov 2, 2026, 10:00 AM UTC<\/td><td>current<\/td>/);
  assert.match(again.body, /waiting for an operator’s approval/);
  assert.match(again.body, new RegExp(`href="/console/apps/${clientId}/webhook"`));
  assert.match(again.body, new RegExp(`href="/console/apps/${clientId}/connections"`));

  const list = await dev.get('/console/apps');
  assert.equal(list.statusCode, 200);
  assert.match(
    list.body,
    new RegExp(
      `<a href="/console/apps/${clientId}">Kitchen Display</a></td><td><code>${clientId}</code></td><td>Confidential</td><td>Waiting for approval</td>`,
    ),
  );
  assert.match(list.body, /An operator approves it before other restaurants can connect it\./);
  assert.ok(!list.body.includes(secret));
});

test('a public app: registered with loopback and custom-scheme URIs, no secret, on to its page', async () => {
  const dev = await developer();
  const created = await dev.post('/console/apps', {
    name: 'Waiter Tablet',
    type: 'public',
    redirect_uris: 'http://127.0.0.1:8123/cb\ncom.example.waiter:/callback\nhttp://[::1]:9/cb',
    scopes: 'orders:read',
  });
  assert.equal(created.statusCode, 303, created.body);
  const location = created.headers.location as string;
  assert.match(location, /^\/console\/apps\/svc_app_[\w-]+\?done=created$/);
  const clientId = location.slice('/console/apps/'.length, location.indexOf('?'));
  const page = await dev.get(location);
  assert.match(page.body, /The app was registered\./);
  assert.match(page.body, /A public app has no client secret/);
  assert.ok(!page.body.includes('Rotate secret'));
  const row = await appRow(clientId);
  assert.equal(row.type, 'public');
  const secrets = await t.ctx.db
    .selectFrom('app_secrets')
    .select('id')
    .where('app_id', '=', row.id)
    .execute();
  assert.deepEqual(secrets, []);
  const rotate = await dev.post(`/console/apps/${clientId}/secrets`, {});
  assert.equal(rotate.statusCode, 400);
  assert.match(rotate.body, /A public app has no client secret to rotate\./);
});

test('every field refused beside it, the bad redirect URI named; nothing is created', async () => {
  const dev = await developer();
  const before = await appCount();
  const long = `https://kds.example.test/${'a'.repeat(280)}`;
  const cases: [Fields, string, string][] = [
    [{ name: '' }, 'name', 'Enter a name of 1 to 80 characters.'],
    [{ name: 'x'.repeat(81) }, 'name', 'Enter a name of 1 to 80 characters.'],
    [{ type: 'secretive' }, 'type', 'Choose whether the app is confidential or public.'],
    [{ redirect_uris: '\n  \n' }, 'redirect_uris', 'Enter 1 to 10 redirect URIs, one per line.'],
    [
      { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://kds.example.test/${i}`).join('\n') },
      'redirect_uris',
      'Enter 1 to 10 redirect URIs, one per line.',
    ],
    [
      { redirect_uris: `https://kds.example.test/ok\n${long}` },
      'redirect_uris',
      `The redirect URI “${long}” is longer than 300 characters.`,
    ],
    [
      { redirect_uris: 'kds.example.test/callback' },
      'redirect_uris',
      'The redirect URI “kds.example.test/callback” is not a complete address: start it with a scheme such as https://.',
    ],
    [
      { redirect_uris: 'https://kds.example.test/cb#top' },
      'redirect_uris',
      'The redirect URI “https://kds.example.test/cb#top” must not have a fragment (#…).',
    ],
    [
      { redirect_uris: 'https://user:pw@kds.example.test/cb' },
      'redirect_uris',
      'The redirect URI “https://user:pw@kds.example.test/cb” must not contain a user name or password.',
    ],
    [
      { redirect_uris: 'http://kds.example.test/cb' },
      'redirect_uris',
      'The redirect URI “http://kds.example.test/cb” must use https: http is allowed only for 127.0.0.1, localhost and [::1].',
    ],
    [
      { redirect_uris: 'kds:/callback' },
      'redirect_uris',
      'The redirect URI “kds:/callback” must use https, a loopback http address, or a custom scheme containing a dot.',
    ],
    [{ scopes: [] }, 'scopes', 'Choose at least one scope.'],
    [{ scopes: ['orders:read', 'everything'] }, 'scopes', 'Choose at least one scope.'],
    [
      { logo_url: 'http://kds.example.test/logo.png' },
      'logo_url',
      'Enter the logo’s address as an https URL of at most 500 characters, or leave it empty.',
    ],
    [
      { website: 'kds.example.test' },
      'website',
      'Enter the website as an https URL of at most 500 characters, or leave it empty.',
    ],
  ];
  for (const [change, field, message] of cases) {
    const res = await dev.post('/console/apps', { ...confidential, ...change });
    assert.equal(res.statusCode, 400, `${field}: ${res.body.slice(0, 200)}`);
    assert.deepEqual(fieldErrorsOf(res), [[field, message.replaceAll('&', '&amp;')]], JSON.stringify(change));
    assert.match(res.body, new RegExp(`<a href="#${field}">`), 'the summary links to the field');
    assert.equal(secretOn(res), undefined);
  }
  // Every error of a submit at once, in the form's order.
  const several = await dev.post('/console/apps', {
    ...confidential,
    name: '',
    redirect_uris: 'kds:/callback',
    scopes: [],
    website: 'kds.example.test',
  });
  assert.equal(several.statusCode, 400);
  assert.deepEqual(
    fieldErrorsOf(several).map(([field]) => field),
    ['name', 'redirect_uris', 'scopes', 'website'],
  );
  assert.equal((several.body.match(/<li><a href="#/g) ?? []).length, 4, 'the summary lists all four');
  // What was typed stays in the form.
  const refused = await dev.post('/console/apps', { ...confidential, website: 'kds.example.test' });
  assert.match(refused.body, /value="Kitchen Display"/);
  assert.match(refused.body, /value="orders:write" checked/);
  assert.equal(await appCount(), before);
});

test('changing an app: saved after post/redirect/get; a refusal beside its field changes nothing', async () => {
  const dev = await developer();
  const clientId = clientIdOn(await dev.post('/console/apps', confidential));
  const saved = await dev.post(`/console/apps/${clientId}`, {
    name: 'KDS',
    redirect_uris: 'https://kds.example.test/new\nhttp://localhost:3000/cb',
    scopes: ['menu:read'],
    logo_url: '',
    website: 'https://kds.example.test/about',
  });
  assert.equal(saved.statusCode, 303, saved.body);
  assert.equal(saved.headers.location, `/console/apps/${clientId}?done=saved`);
  const page = await dev.get(saved.headers.location as string);
  assert.match(page.body, /<p class="success" role="status">The app’s settings were saved\.<\/p>/);
  assert.match(page.body, /<h1>KDS<\/h1>/);
  const row = await appRow(clientId);
  assert.equal(row.name, 'KDS');
  assert.deepEqual(row.redirect_uris, ['https://kds.example.test/new', 'http://localhost:3000/cb']);
  assert.deepEqual(row.scopes, ['menu:read']);
  assert.equal(row.logo_url, null);
  assert.equal(row.website, 'https://kds.example.test/about');
  assert.equal(row.type, 'confidential', 'the type stays, whatever is sent');

  const refused = await dev.post(`/console/apps/${clientId}`, {
    name: 'Renamed',
    redirect_uris: 'https://kds.example.test/ok\nhttp://kds.example.test/cb',
    scopes: ['menu:read'],
  });
  assert.equal(refused.statusCode, 400);
  assert.deepEqual(fieldErrorsOf(refused), [
    [
      'redirect_uris',
      'The redirect URI “http://kds.example.test/cb” must use https: http is allowed only for 127.0.0.1, localhost and [::1].',
    ],
  ]);
  assert.match(refused.body, /value="Renamed"/, 'the form shows what was sent');
  assert.deepEqual(await appRow(clientId), row);
});

test('rotating the secret: the new one shown once, the old one works 24 hours and not after', async () => {
  const dev = await developer();
  const created = await dev.post('/console/apps', confidential);
  const clientId = clientIdOn(created);
  const first = secretOn(created) ?? '';

  t.clock.advance(60 * 60 * 1000);
  const rotated = await dev.post(`/console/apps/${clientId}/secrets`, {});
  assert.equal(rotated.statusCode, 201, rotated.body);
  const second = secretOn(rotated) ?? '';
  assert.match(second, /^svc_cs_/);
  assert.notEqual(second, first);
  const expiry = new Date(t.clock.now().getTime() + replacedSecretValidMs);
  assert.equal(expiry.toISOString(), '2026-11-03T11:00:00.000Z');
  assert.match(rotated.body, /The previous secret keeps working until Nov 3, 2026, 11:00 AM UTC\./);
  assert.match(rotated.body, /Copy it now: it will not be shown again\./);

  const page = await dev.get(`/console/apps/${clientId}`);
  assert.ok(!page.body.includes(second) && !page.body.includes(first));
  assert.match(page.body, /<td>Nov 2, 2026, 11:00 AM UTC<\/td><td>current<\/td>/);
  assert.match(page.body, /<td>Nov 2, 2026, 10:00 AM UTC<\/td><td>until Nov 3, 2026, 11:00 AM UTC<\/td>/);

  assert.ok(await secretWorks(clientId, first));
  assert.ok(await secretWorks(clientId, second));
  t.clock.advance(replacedSecretValidMs - 1000);
  assert.ok(await secretWorks(clientId, first), 'a second before the 24 hours end');
  t.clock.advance(1000);
  assert.equal(await secretWorks(clientId, first), false, 'at the end of the 24 hours');
  assert.ok(await secretWorks(clientId, second));
  await dev.signIn();
  const later = await dev.get(`/console/apps/${clientId}`);
  assert.equal(later.statusCode, 200);
  assert.match(later.body, /<td>Nov 2, 2026, 11:00 AM UTC<\/td><td>current<\/td>/);
  assert.ok(!later.body.includes('until Nov 3'), 'an expired secret is no longer listed');
});

test('the connections page: restaurants connected now, their granted scopes, since when, test or live', async () => {
  const dev = await developer();
  const clientId = clientIdOn(
    await dev.post('/console/apps', { ...confidential, scopes: ['orders:read', 'menu:read'] }),
  );
  const empty = await dev.get(`/console/apps/${clientId}/connections`);
  assert.equal(empty.statusCode, 200);
  assert.match(empty.body, /No restaurant is connected to this app yet\./);

  const row = await appRow(clientId);
  const live = await makeRestaurant(t.ctx, [dev.account.id]);
  const test = await makeRestaurant(t.ctx, [dev.account.id], { livemode: false });
  const ended = await makeRestaurant(t.ctx, [dev.account.id]);
  await consentToApp(t.ctx, { tenantId: live.id, appId: row.id, scopes: ['orders:read'] });
  t.clock.advance(60 * 1000);
  await consentToApp(t.ctx, { tenantId: test.id, appId: row.id, scopes: ['orders:read', 'menu:read'] });
  const gone = await consentToApp(t.ctx, { tenantId: ended.id, appId: row.id, scopes: ['menu:read'] });
  await t.ctx.db
    .updateTable('connections')
    .set({ ended_at: t.clock.now() })
    .where('id', '=', gone.connectionId)
    .execute();

  const page = await dev.get(`/console/apps/${clientId}/connections`);
  const rows = [
    ...page.body.matchAll(/<tr><td>([^<]+)<\/td><td>(.*?)<\/td><td>(.*?)<\/td><td>(\w+)<\/td><\/tr>/g),
  ].map((m) => [m[1], m[2]?.replace(/<\/?code>/g, ''), m[3], m[4]]);
  const since = (at: Date) =>
    `${new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(at)} UTC`;
  assert.deepEqual(rows, [
    [test.name, 'orders:read, menu:read', since(t.clock.now()), 'Test'],
    [live.name, 'orders:read', since(new Date(t.clock.now().getTime() - 60 * 1000)), 'Live'],
  ]);
});

test('another developer’s app: 404 on every page and form, nothing changes', async () => {
  const dev = await developer();
  const theirs = await makeTenant(t.ctx);
  const before = await appRow(theirs.clientId);
  const secretsBefore = await t.ctx.db
    .selectFrom('app_secrets')
    .selectAll()
    .where('app_id', '=', before.id)
    .execute();
  for (const url of [`/console/apps/${theirs.clientId}`, `/console/apps/${theirs.clientId}/connections`]) {
    const res = await dev.get(url);
    assert.equal(res.statusCode, 404, url);
    assert.match(res.body, /There is no app at this address among your apps\./);
    assert.ok(!res.body.includes(before.name));
  }
  const edit = await dev.post(`/console/apps/${theirs.clientId}`, { ...confidential, name: 'Taken over' });
  assert.equal(edit.statusCode, 404);
  const rotate = await dev.post(`/console/apps/${theirs.clientId}/secrets`, {});
  assert.equal(rotate.statusCode, 404);
  assert.equal(secretOn(rotate), undefined);
  assert.deepEqual(await appRow(theirs.clientId), before);
  assert.deepEqual(
    await t.ctx.db.selectFrom('app_secrets').selectAll().where('app_id', '=', before.id).execute(),
    secretsBefore,
  );
  assert.equal((await dev.get('/console/apps/svc_app_unknown')).statusCode, 404);
});

test('a form without its CSRF token is refused (403) and changes nothing', async () => {
  const dev = await developer();
  const created = await dev.post('/console/apps', confidential);
  const clientId = clientIdOn(created);
  const row = await appRow(clientId);
  const before = await appCount();
  for (const [url, fields] of [
    ['/console/apps', confidential],
    [`/console/apps/${clientId}`, { ...confidential, name: 'Forged' }],
    [`/console/apps/${clientId}/secrets`, {}],
  ] as const) {
    const res = await dev.post(url, fields, '');
    assert.equal(res.statusCode, 403, url);
    const forged = await dev.post(url, fields, 'forged-token');
    assert.equal(forged.statusCode, 403, url);
  }
  assert.equal(await appCount(), before);
  assert.deepEqual(await appRow(clientId), row);
  const secrets = await t.ctx.db
    .selectFrom('app_secrets')
    .select('id')
    .where('app_id', '=', row.id)
    .execute();
  assert.equal(secrets.length, 1);
});

test('signed out: the pages send the browser to sign in', async () => {
  for (const url of ['/console/apps', '/console/apps/new', '/console/apps/svc_app_x/connections']) {
    const res = await t.app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 303, url);
    assert.equal(res.headers.location, '/console/sign-in');
  }
});
