import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { replacedSecretValidMs } from '../../src/domain/apps/apps.service.ts';
import { consentToApp } from '../../src/domain/connections/connections.service.ts';
import { buildTestApp, call, json, makeTenant, newAccount, signInTo, type TestApp } from '../harness.ts';
import { makeRestaurant } from '../oauth/consent-helpers.ts';

/*
 * The console's JSON API of apps: register (each type), list, read, change, rotate the client
 * secret, connections; refusals are 400 invalid_request naming the field and change nothing;
 * another developer's app is 404 (the shared surface test covers every route too).
 */
let t: TestApp;
let developer: { id: string; email: string };
let cookie: string;
before(async () => {
  t = await buildTestApp();
  developer = await newAccount(t, true);
  cookie = await signInTo(t.app, 'console', developer.email);
});
after(() => t.close());

const newApp = {
  name: 'Kitchen Display',
  type: 'confidential',
  redirect_uris: ['https://kds.example.test/callback'],
  scopes: ['orders:read', 'orders:write'],
  logo_url: 'https://kds.example.test/logo.png',
  website: null,
};

const appCount = async () => (await t.ctx.db.selectFrom('apps').select('id').execute()).length;

/** Client authentication at the token endpoint: a working secret gets on to the (bogus) grant. */
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
  return res.statusCode !== 401;
}

test('register a confidential app: 201 with its secret once; then list and read without it', async () => {
  const created = await call(t.app, 'POST', '/console/api/apps', cookie, newApp);
  assert.equal(created.statusCode, 201, created.body);
  const app = json(created);
  assert.match(app.client_id, /^svc_app_/);
  assert.match(app.client_secret, /^svc_cs_[\w-]{43}$/);
  assert.deepEqual(
    { ...app, client_id: undefined, client_secret: undefined },
    {
      object: 'app',
      client_id: undefined,
      client_secret: undefined,
      name: 'Kitchen Display',
      type: 'confidential',
      status: 'pending',
      redirect_uris: ['https://kds.example.test/callback'],
      scopes: ['orders:read', 'orders:write'],
      logo_url: 'https://kds.example.test/logo.png',
      website: null,
      created_at: t.clock.now().toISOString(),
    },
  );
  assert.ok(await secretWorks(app.client_id, app.client_secret));

  const read = await call(t.app, 'GET', `/console/api/apps/${app.client_id}`, cookie);
  assert.equal(read.statusCode, 200);
  assert.ok(!read.body.includes(app.client_secret));
  assert.deepEqual(json(read).client_secrets, [
    { created_at: t.clock.now().toISOString(), expires_at: null },
  ]);

  const list = await call(t.app, 'GET', '/console/api/apps', cookie);
  assert.equal(list.statusCode, 200);
  assert.equal(json(list).object, 'list');
  assert.deepEqual(
    json(list).data.map((a: { client_id: string }) => a.client_id),
    [app.client_id],
  );
  assert.ok(!list.body.includes(app.client_secret));
});

test('register a public app: no secret, none to rotate', async () => {
  const created = await call(t.app, 'POST', '/console/api/apps', cookie, {
    ...newApp,
    name: 'Tablet',
    type: 'public',
    redirect_uris: ['com.example.tablet:/cb', 'http://localhost:7000/cb'],
  });
  assert.equal(created.statusCode, 201, created.body);
  assert.equal(json(created).client_secret, null);
  const clientId = json(created).client_id;
  assert.deepEqual(
    json(await call(t.app, 'GET', `/console/api/apps/${clientId}`, cookie)).client_secrets,
    [],
  );
  const rotate = await call(t.app, 'POST', `/console/api/apps/${clientId}/secrets`, cookie, {});
  assert.equal(rotate.statusCode, 400);
  assert.equal(json(rotate).error.code, 'invalid_request');
});

test('refusals: 400 invalid_request naming the field; nothing created', async () => {
  const before = await appCount();
  for (const [change, param] of [
    [{ name: ' ' }, 'name'],
    [{ type: 'hybrid' }, 'type'],
    [{ redirect_uris: [] }, 'redirect_uris'],
    [{ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://x.example.test/${i}`) }, 'redirect_uris'],
    [{ redirect_uris: ['https://x.example.test/ok', 'http://x.example.test/cb'] }, 'redirect_uris[1]'],
    [{ redirect_uris: ['https://x.example.test/cb#f'] }, 'redirect_uris[0]'],
    [{ scopes: [] }, 'scopes'],
    [{ scopes: ['orders:delete'] }, 'scopes'],
    [{ logo_url: 'ftp://x.example.test/logo.png' }, 'logo_url'],
    [{ website: 'http://x.example.test' }, 'website'],
  ] as const) {
    const res = await call(t.app, 'POST', '/console/api/apps', cookie, { ...newApp, ...change });
    assert.equal(res.statusCode, 400, JSON.stringify(change));
    assert.equal(json(res).error.code, 'invalid_request');
    assert.equal(json(res).error.param, param, JSON.stringify(change));
  }
  const unknown = await call(t.app, 'POST', '/console/api/apps', cookie, { ...newApp, status: 'approved' });
  assert.equal(unknown.statusCode, 400);
  assert.equal(json(unknown).error.param, 'status');
  assert.equal(await appCount(), before);
});

test('PATCH changes what it names, with the same checks; a refusal changes nothing', async () => {
  const clientId = json(await call(t.app, 'POST', '/console/api/apps', cookie, newApp)).client_id;
  const patched = await call(t.app, 'PATCH', `/console/api/apps/${clientId}`, cookie, {
    name: 'KDS',
    scopes: ['menu:read'],
    logo_url: null,
  });
  assert.equal(patched.statusCode, 200, patched.body);
  assert.equal(json(patched).name, 'KDS');
  assert.deepEqual(json(patched).scopes, ['menu:read']);
  assert.equal(json(patched).logo_url, null);
  assert.deepEqual(json(patched).redirect_uris, newApp.redirect_uris, 'left out: kept');

  const refused = await call(t.app, 'PATCH', `/console/api/apps/${clientId}`, cookie, {
    name: 'Other',
    redirect_uris: ['https://ok.example.test/cb', 'https://u:p@ok.example.test/cb'],
  });
  assert.equal(refused.statusCode, 400);
  assert.equal(json(refused).error.param, 'redirect_uris[1]');
  const typeChange = await call(t.app, 'PATCH', `/console/api/apps/${clientId}`, cookie, { type: 'public' });
  assert.equal(typeChange.statusCode, 400);
  assert.equal(json(typeChange).error.param, 'type');
  const read = json(await call(t.app, 'GET', `/console/api/apps/${clientId}`, cookie));
  assert.equal(read.name, 'KDS');
  assert.equal(read.type, 'confidential');
  assert.deepEqual(read.redirect_uris, newApp.redirect_uris);
});

test('rotation: the new secret once, the old one until its expiry 24 hours on', async () => {
  const created = json(await call(t.app, 'POST', '/console/api/apps', cookie, newApp));
  t.clock.advance(5 * 60 * 1000);
  const res = await call(t.app, 'POST', `/console/api/apps/${created.client_id}/secrets`, cookie, {});
  assert.equal(res.statusCode, 201, res.body);
  const expiresAt = new Date(t.clock.now().getTime() + replacedSecretValidMs).toISOString();
  assert.match(json(res).client_secret, /^svc_cs_/);
  assert.equal(json(res).previous_secret_expires_at, expiresAt);
  const read = json(await call(t.app, 'GET', `/console/api/apps/${created.client_id}`, cookie));
  assert.deepEqual(
    read.client_secrets.map((s: { expires_at: string | null }) => s.expires_at),
    [null, expiresAt],
  );
  assert.ok(await secretWorks(created.client_id, created.client_secret));
  t.clock.advance(replacedSecretValidMs);
  assert.equal(await secretWorks(created.client_id, created.client_secret), false);
  assert.ok(await secretWorks(created.client_id, json(res).client_secret));
  // A day without a request ends the console session: sign in again for the tests after.
  cookie = await signInTo(t.app, 'console', developer.email);
});

test('connections: restaurants connected now, scopes granted, live or test', async () => {
  const created = json(await call(t.app, 'POST', '/console/api/apps', cookie, newApp));
  const app = await t.ctx.db
    .selectFrom('apps')
    .select('id')
    .where('client_id', '=', created.client_id)
    .executeTakeFirstOrThrow();
  const restaurant = await makeRestaurant(t.ctx, [developer.id], { livemode: false });
  const { connectionId } = await consentToApp(t.ctx, {
    tenantId: restaurant.id,
    appId: app.id,
    scopes: ['orders:read'],
  });
  // Narrowing the app's scopes leaves the connection's grant as it was.
  await call(t.app, 'PATCH', `/console/api/apps/${created.client_id}`, cookie, { scopes: ['menu:read'] });
  const res = await call(t.app, 'GET', `/console/api/apps/${created.client_id}/connections`, cookie);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(json(res), {
    object: 'list',
    data: [
      {
        connection_id: connectionId,
        restaurant: { id: restaurant.id, name: restaurant.name },
        scopes: ['orders:read'],
        livemode: false,
        connected_at: t.clock.now().toISOString(),
      },
    ],
  });
});

test('another developer’s app: 404 on every route, nothing changes', async () => {
  const theirs = await makeTenant(t.ctx);
  const before = await t.ctx.db.selectFrom('apps').selectAll().where('id', '=', theirs.appId).execute();
  for (const [method, path, body] of [
    ['GET', '', undefined],
    ['PATCH', '', { name: 'Mine now' }],
    ['POST', '/secrets', {}],
    ['GET', '/connections', undefined],
  ] as const) {
    const res = await call(t.app, method, `/console/api/apps/${theirs.clientId}${path}`, cookie, body);
    assert.equal(res.statusCode, 404, `${method} ${path}`);
    assert.equal(json(res).error.code, 'not_found');
  }
  assert.deepEqual(
    await t.ctx.db.selectFrom('apps').selectAll().where('id', '=', theirs.appId).execute(),
    before,
  );
  const list = json(await call(t.app, 'GET', '/console/api/apps', cookie));
  assert.ok(!list.data.some((a: { client_id: string }) => a.client_id === theirs.clientId));
});
