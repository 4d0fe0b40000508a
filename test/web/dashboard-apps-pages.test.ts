import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import {
  bearer,
  buildTestApp,
  call,
  json,
  makeTenant,
  newAccount,
  password,
  signInTo,
  type Tenant,
  type TestApp,
  tokenFor,
} from '../harness.ts';
import { Browser, csrfOf } from '../oauth/consent-helpers.ts';

/*
 * The dashboard's connected apps over HTTP: the list (app, logo, website, what it may do in the
 * owner's language, since when in the restaurant's time), disconnecting after a confirmation page
 * (tokens stop working at once, `app.disconnected` with reason `restaurant`), the JSON API beside
 * it; another restaurant's connection and staff get 404; CSRF.
 */
let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/** A restaurant with a connected app, and an owner of it (of it alone) signed in to the dashboard. */
async function ownedTenant(): Promise<{
  tenant: Tenant;
  owner: { id: string; email: string };
  browser: Browser;
}> {
  const tenant = await makeTenant(t.ctx, { scopes: ['orders:read', 'menu:write'] });
  await t.ctx.db
    .updateTable('apps')
    .set({ name: 'Till Pro', logo_url: 'https://till.example/logo.png', website: 'https://till.example/' })
    .where('id', '=', tenant.appId)
    .execute();
  const owner = await newAccount(t, false);
  await t.ctx.db
    .insertInto('restaurant_members')
    .values({ tenant_id: tenant.restaurantId, account_id: owner.id, role: 'owner' })
    .execute();
  const browser = new Browser(t.app);
  const form = await browser.get('/dashboard/sign-in');
  await browser.post('/dashboard/sign-in', { _csrf: csrfOf(form), email: owner.email, password });
  return { tenant, owner, browser };
}

const appsOf = (tenant: Tenant) => `/dashboard/restaurants/${tenant.restaurantId}/apps`;
const me = (token: string) => t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(token) });
const active = async (connectionId: string) =>
  (
    await t.ctx.db
      .selectFrom('connections')
      .select('ended_at')
      .where('id', '=', connectionId)
      .executeTakeFirstOrThrow()
  ).ended_at === null;
const h1Of = (res: LightMyRequestResponse) => /<h1>(.*?)<\/h1>/.exec(res.body)?.[1];

test('the owner sees the app, disconnects it after confirming, and its tokens stop working at once', async () => {
  const { tenant, browser } = await ownedTenant();
  const second = await tokenFor(t.ctx, tenant, ['orders:read']);
  assert.equal((await me(second)).statusCode, 200);

  const list = await browser.get(appsOf(tenant));
  assert.equal(list.statusCode, 200, list.body);
  assert.equal(h1Of(list), 'Connected apps');
  assert.match(list.body, new RegExp(`<a href="${appsOf(tenant)}" aria-current="page">Apps</a>`));
  const card =
    new RegExp(
      `<section class="connected-app" id="connection-${tenant.connectionId}"[^>]*>([\\s\\S]*?)</section>`,
    ).exec(list.body)?.[1] ?? '';
  assert.match(card, /<img src="https:\/\/till.example\/logo.png" alt="">/);
  assert.match(card, /<h2 id="connection-[^"]+-name">Till Pro<\/h2>/);
  assert.match(
    card,
    /<a href="https:\/\/till.example\/" rel="noopener noreferrer" target="_blank">till.example<\/a>/,
  );
  assert.match(card, /<li>see your orders<\/li><li>change your menu and mark items sold out<\/li>/);
  // Connected at 10:00 UTC: the restaurant's (Berlin) time.
  assert.match(card, /<dd>Nov 2, 2026, 11:00\sAM<\/dd>/);
  assert.match(
    card,
    new RegExp(
      `href="${appsOf(tenant)}/${tenant.connectionId}/disconnect">Disconnect<span class="visually-hidden"> Till Pro</span>`,
    ),
  );

  const confirm = await browser.get(`${appsOf(tenant)}/${tenant.connectionId}/disconnect`);
  assert.equal(confirm.statusCode, 200);
  assert.equal(h1Of(confirm), 'Disconnect Till Pro?');
  assert.ok(await active(tenant.connectionId), 'opening the confirmation changes nothing');

  const done = await browser.post(`${appsOf(tenant)}/${tenant.connectionId}/disconnect`, {
    _csrf: csrfOf(confirm),
  });
  assert.equal(done.statusCode, 303);
  assert.equal(done.headers.location, `${appsOf(tenant)}?done=disconnected`);
  for (const token of [tenant.token, second]) {
    const refused = await me(token);
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().error.code, 'unauthorized');
  }
  assert.equal(await active(tenant.connectionId), false);
  const event = await t.ctx.db
    .selectFrom('events')
    .select(['data', 'actor'])
    .where('tenant_id', '=', tenant.restaurantId)
    .where('type', '=', 'app.disconnected')
    .executeTakeFirstOrThrow();
  assert.equal(event.data.reason, 'restaurant');
  assert.equal((event.data.object as { id: string }).id, tenant.connectionId);

  const after = await browser.get(`${appsOf(tenant)}?done=disconnected`);
  assert.match(after.body, /<p class="success" role="status">The app is disconnected\./);
  assert.match(after.body, /No apps are connected to this restaurant\./);
  const again = await browser.post(`${appsOf(tenant)}/${tenant.connectionId}/disconnect`, {
    _csrf: csrfOf(after),
  });
  assert.equal(again.statusCode, 404);
  assert.equal(h1Of(again), 'App not found');
});

test('another restaurant’s connection is 404 and stays; staff get the restaurant’s 404; CSRF is checked', async () => {
  const { tenant, browser } = await ownedTenant();
  const other = await makeTenant(t.ctx);
  const list = await browser.get(appsOf(tenant));
  const csrf = csrfOf(list);

  const theirs = `${appsOf(tenant)}/${other.connectionId}/disconnect`;
  assert.equal((await browser.get(theirs)).statusCode, 404);
  assert.equal((await browser.post(theirs, { _csrf: csrf })).statusCode, 404);
  assert.equal((await browser.get(appsOf(other))).statusCode, 404);
  assert.equal((await browser.get(`${appsOf(tenant)}/not-a-uuid/disconnect`)).statusCode, 404);
  assert.ok(await active(other.connectionId));
  assert.equal((await me(other.token)).statusCode, 200);

  const forged = await browser.post(`${appsOf(tenant)}/${tenant.connectionId}/disconnect`, {});
  assert.equal(forged.statusCode, 403);
  assert.ok(await active(tenant.connectionId));

  const staff = await newAccount(t, false);
  await t.ctx.db
    .insertInto('restaurant_members')
    .values({ tenant_id: tenant.restaurantId, account_id: staff.id, role: 'staff' })
    .execute();
  const cookie = await signInTo(t.app, 'dashboard', staff.email);
  const refused = await t.app.inject({ method: 'GET', url: appsOf(tenant), headers: { cookie } });
  assert.equal(refused.statusCode, 404);
  assert.equal(h1Of(refused), 'Restaurant not found');
});

test('German: what the app may do in the owner’s language, the time in German', async () => {
  const { tenant, browser } = await ownedTenant();
  const list = await browser.get(`${appsOf(tenant)}?lang=de`);
  assert.equal(h1Of(list), 'Verbundene Apps');
  assert.match(list.body, /<li>Ihre Bestellungen sehen<\/li>/);
  assert.match(list.body, /<dd>02\.11\.2026, 11:00<\/dd>/);
});

test('JSON API: owners list and disconnect; another restaurant’s connection and staff: 404', async () => {
  const { tenant, owner } = await ownedTenant();
  const other = await makeTenant(t.ctx);
  const cookie = await signInTo(t.app, 'dashboard', owner.email);
  const base = `/dashboard/api/restaurants/${tenant.restaurantId}/connections`;

  const list = await call(t.app, 'GET', base, cookie);
  assert.equal(list.statusCode, 200, list.body);
  assert.deepEqual(json(list), {
    object: 'list',
    data: [
      {
        object: 'connection',
        id: tenant.connectionId,
        app: {
          client_id: tenant.clientId,
          name: 'Till Pro',
          logo_url: 'https://till.example/logo.png',
          website: 'https://till.example/',
        },
        scopes: ['orders:read', 'menu:write'],
        created_at: '2026-11-02T10:00:00.000Z',
      },
    ],
  });

  const theirs = await call(t.app, 'DELETE', `${base}/${other.connectionId}`, cookie, {});
  assert.equal(theirs.statusCode, 404);
  assert.equal(json(theirs).error.code, 'not_found');
  assert.ok(await active(other.connectionId));

  const staff = await newAccount(t, false);
  await t.ctx.db
    .insertInto('restaurant_members')
    .values({ tenant_id: tenant.restaurantId, account_id: staff.id, role: 'staff' })
    .execute();
  const staffCookie = await signInTo(t.app, 'dashboard', staff.email);
  assert.equal((await call(t.app, 'GET', base, staffCookie)).statusCode, 404);
  assert.equal(
    (await call(t.app, 'DELETE', `${base}/${tenant.connectionId}`, staffCookie, {})).statusCode,
    404,
  );
  assert.ok(await active(tenant.connectionId));

  const ended = await call(t.app, 'DELETE', `${base}/${tenant.connectionId}`, cookie, {});
  assert.equal(ended.statusCode, 200, ended.body);
  assert.deepEqual(json(ended), { object: 'connection', id: tenant.connectionId, revoked: true });
  assert.equal((await me(tenant.token)).statusCode, 401);
  assert.deepEqual(json(await call(t.app, 'GET', base, cookie)).data, []);
  assert.equal((await call(t.app, 'DELETE', `${base}/${tenant.connectionId}`, cookie, {})).statusCode, 404);
  const mails = await t.ctx.db
    .selectFrom('jobs')
    .select('payload')
    .where('kind', '=', 'email')
    .where('tenant_id', '=', tenant.restaurantId)
    .execute();
  assert.ok(
    mails.some((job) => (job.payload as { template?: string }).template === 'appDisconnected'),
    JSON.stringify(mails),
  );
});
