import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApp } from '../../src/domain/apps/apps.service.ts';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import { buildTestApp, call, json, newAccount, signInTo, type TestApp } from '../harness.ts';

// This file's service runs with WEBHOOKS_ALLOW_INSECURE on.
let t: TestApp;
let owner: { id: string; email: string };
let cookie: string;
before(async () => {
  t = await buildTestApp({ config: { webhooksAllowInsecure: true } });
  owner = await newAccount(t, false);
  cookie = await signInTo(t.app, 'dashboard', owner.email);
});
after(() => t.close());

let serial = 0;
async function newRestaurant(livemode = true, ownerIds = [owner.id]): Promise<string> {
  serial += 1;
  const restaurant = await createRestaurant(t.ctx, {
    name: `Webhook restaurant ${serial}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    country: 'DE',
    plan: 'pro',
    livemode,
    ownerIds,
  });
  return restaurant.id;
}

const webhooksUrl = (restaurantId: string) => `/dashboard/api/restaurants/${restaurantId}/webhooks`;
const body = { url: 'https://93.184.216.34/hooks', events: ['order.*', 'store.updated'] };
const stored = (restaurantId: string) =>
  Promise.all([
    t.database.db
      .selectFrom('webhooks')
      .selectAll()
      .where('tenant_id', '=', restaurantId)
      .orderBy('id')
      .execute(),
    t.database.db
      .selectFrom('webhook_secrets as s')
      .innerJoin('webhooks as w', 'w.id', 's.webhook_id')
      .selectAll('s')
      .where('w.tenant_id', '=', restaurantId)
      .orderBy('s.id')
      .execute(),
  ]);

test('an owner adds, lists, changes, rotates and removes the restaurant’s webhooks', async () => {
  const restaurantId = await newRestaurant();
  const created = await call(t.app, 'POST', webhooksUrl(restaurantId), cookie, body);
  assert.equal(created.statusCode, 201, created.body);
  const webhook = json(created);
  assert.match(webhook.id, /^[0-9a-f-]{36}$/);
  assert.equal(webhook.restaurant_id, restaurantId);
  assert.equal(webhook.url, body.url);
  assert.deepEqual(webhook.events, body.events);
  assert.match(webhook.secret, /^whsec_[\w-]{43}$/);

  const list = json(await call(t.app, 'GET', webhooksUrl(restaurantId), cookie));
  assert.equal(list.object, 'list');
  const { secret, standard_webhooks_secret, ...withoutSecret } = webhook;
  assert.deepEqual(list.data, [withoutSecret]);
  assert.doesNotMatch(JSON.stringify(list), /whsec_/);

  const one = `${webhooksUrl(restaurantId)}/${webhook.id}`;
  const patched = await call(t.app, 'PATCH', one, cookie, { events: ['*'], enabled: false });
  assert.equal(patched.statusCode, 200, patched.body);
  assert.deepEqual(json(patched).events, ['*']);
  assert.equal(json(patched).enabled, false);
  assert.equal(json(patched).url, body.url);
  assert.equal(json(await call(t.app, 'PATCH', one, cookie, { enabled: true })).enabled, true);

  const rotated = json(await call(t.app, 'POST', `${one}/secret/rotate`, cookie));
  const secrets = json(await call(t.app, 'GET', `${one}/secret`, cookie)).data;
  assert.deepEqual(
    secrets.map((s: { secret: string }) => s.secret),
    [rotated.secret, secret],
  );
  assert.equal(
    rotated.previous_secret_expires_at,
    new Date(t.clock.now().getTime() + 24 * 3600_000).toISOString(),
  );

  assert.equal((await call(t.app, 'DELETE', one, cookie)).statusCode, 204);
  assert.deepEqual(await stored(restaurantId), [[], []]);
  assert.equal((await call(t.app, 'DELETE', one, cookie)).statusCode, 404);
});

test('only the restaurant’s owners: staff, other owners and strangers get 404 and change nothing', async () => {
  const restaurantId = await newRestaurant();
  const created = json(await call(t.app, 'POST', webhooksUrl(restaurantId), cookie, body));
  const staff = await newAccount(t, false);
  await t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: restaurantId, account_id: staff.id, role: 'staff' })
    .execute();
  const stranger = await newAccount(t, false);
  await newRestaurant(true, [stranger.id]);
  const before = await stored(restaurantId);
  for (const account of [staff, stranger]) {
    const other = await signInTo(t.app, 'dashboard', account.email);
    const one = `${webhooksUrl(restaurantId)}/${created.id}`;
    for (const [method, url, payload] of [
      ['GET', webhooksUrl(restaurantId), undefined],
      ['POST', webhooksUrl(restaurantId), body],
      ['PATCH', one, { enabled: false }],
      ['DELETE', one, undefined],
      ['GET', `${one}/secret`, undefined],
      ['POST', `${one}/secret/rotate`, undefined],
    ] as const) {
      const response = await call(t.app, method, url, other, payload);
      assert.equal(response.statusCode, 404, `${method} ${url}`);
      assert.equal(json(response).error.code, 'not_found');
    }
  }
  assert.deepEqual(await stored(restaurantId), before);
  assert.equal((await call(t.app, 'GET', webhooksUrl(restaurantId), null)).statusCode, 401);
});

test('at most five webhooks per restaurant: the sixth is 422 limit_exceeded', async () => {
  const restaurantId = await newRestaurant();
  for (let i = 0; i < 5; i += 1) {
    const response = await call(t.app, 'POST', webhooksUrl(restaurantId), cookie, {
      ...body,
      url: `${body.url}/${i}`,
    });
    assert.equal(response.statusCode, 201);
  }
  const sixth = await call(t.app, 'POST', webhooksUrl(restaurantId), cookie, body);
  assert.equal(sixth.statusCode, 422);
  assert.equal(json(sixth).error.code, 'limit_exceeded');
  assert.equal((await stored(restaurantId))[0].length, 5);
});

test('bad input: no app.* events, bad addresses, malformed ids, unknown fields are 400 with param', async () => {
  const restaurantId = await newRestaurant();
  const created = json(await call(t.app, 'POST', webhooksUrl(restaurantId), cookie, body));
  const before = await stored(restaurantId);
  const one = `${webhooksUrl(restaurantId)}/${created.id}`;
  for (const [method, url, payload, param] of [
    ['POST', webhooksUrl(restaurantId), { ...body, events: ['order.*', 'app.*'] }, 'events[1]'],
    ['POST', webhooksUrl(restaurantId), { ...body, events: ['app.connected'] }, 'events[0]'],
    ['POST', webhooksUrl(restaurantId), { ...body, url: 'https://192.168.0.10/x' }, 'url'],
    ['POST', webhooksUrl(restaurantId), { ...body, id: created.id }, 'id'],
    ['PATCH', one, { events: ['menu.nothing'] }, 'events[0]'],
    ['PATCH', one, { url: 'https://[fd00::1]/x' }, 'url'],
    ['PATCH', one, { enabled: 'yes' }, 'enabled'],
    ['GET', '/dashboard/api/restaurants/not-a-uuid/webhooks', undefined, 'restaurant_id'],
    ['DELETE', `${webhooksUrl(restaurantId)}/42`, undefined, 'webhook_id'],
  ] as const) {
    const response = await call(t.app, method, url, cookie, payload);
    assert.equal(response.statusCode, 400, `${method} ${url} ${JSON.stringify(payload)}: ${response.body}`);
    assert.equal(json(response).error.code, 'invalid_request');
    assert.equal(json(response).error.param, param);
  }
  assert.deepEqual(await stored(restaurantId), before);
});

test('the insecure setting applies to test restaurants only, never to live ones', async () => {
  const live = await newRestaurant(true);
  const testRestaurant = await newRestaurant(false);
  const local = { url: 'http://127.0.0.1:4000/hooks', events: ['*'] };
  const refused = await call(t.app, 'POST', webhooksUrl(live), cookie, local);
  assert.equal(refused.statusCode, 400);
  assert.equal(json(refused).error.param, 'url');
  const loopback = await call(t.app, 'POST', webhooksUrl(live), cookie, {
    ...local,
    url: 'https://localhost/hooks',
  });
  assert.equal(loopback.statusCode, 400);
  assert.equal((await call(t.app, 'POST', webhooksUrl(testRestaurant), cookie, local)).statusCode, 201);
  const privateAddress = await call(t.app, 'POST', webhooksUrl(testRestaurant), cookie, {
    ...local,
    url: 'http://10.0.0.1/x',
  });
  assert.equal(privateAddress.statusCode, 400);
});

test('with the insecure setting, the app’s webhook may use an http loopback receiver (for test restaurants’ events)', async () => {
  const developer = await newAccount(t, true);
  const { app } = await createApp(t.ctx, {
    developerId: developer.id,
    name: 'Local app',
    type: 'public',
    redirectUris: ['https://app.example.test/callback'],
    scopes: ['orders:read'],
  });
  const console = await signInTo(t.app, 'console', developer.email);
  const put = await call(t.app, 'PUT', `/console/api/apps/${app.clientId}/webhook`, console, {
    url: 'http://localhost:4000/hooks',
    events: ['*'],
  });
  assert.equal(put.statusCode, 201, put.body);
  // The dashboard's cookie is not the console's.
  assert.equal(
    (await call(t.app, 'GET', `/console/api/apps/${app.clientId}/webhook`, cookie)).statusCode,
    401,
  );
});
