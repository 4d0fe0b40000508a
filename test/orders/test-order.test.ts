import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, call, developerSession, json, type TestApp } from '../harness.ts';
import { assertError, ok } from '../menu/menu-helpers.ts';
import { Browser, csrfOf } from '../oauth/consent-helpers.ts';
import {
  guest,
  type OrderingTenant,
  orderingTenant,
  pickupOrder,
  storefrontPreview,
} from './order-helpers.ts';

describe('test restaurants', () => {
  let t: TestApp;
  let test: OrderingTenant;
  let live: OrderingTenant;
  before(async () => {
    t = await buildTestApp();
    test = await orderingTenant(t, { livemode: false });
    live = await orderingTenant(t);
  });
  after(() => t.close());

  it('have a storefront only their developers see, opened from the console', async () => {
    assertError(await guest(t, test.slug, 'GET', '/store'), 404, 'not_found');
    assertError(await guest(t, test.slug, 'POST', '/orders', pickupOrder(test)), 404, 'not_found');
    const console = await developerSession(t, test, 'console');
    assertError(await guest(t, test.slug, 'GET', '/store', undefined, { cookie: console }), 404, 'not_found');
    const cookie = await storefrontPreview(t, test);
    const store = await guest(t, test.slug, 'GET', '/store', undefined, { cookie });
    assert.equal(store.statusCode, 200, store.body);
    assert.equal(json(store).livemode, false);
    const placed = await guest(t, test.slug, 'POST', '/orders', pickupOrder(test), { cookie });
    assert.equal(placed.statusCode, 201, placed.body);
  });

  it('are found with the console session the console hands over only, and at /s/{slug} only, never on a host of their own', async () => {
    const dashboard = await developerSession(t, test, 'dashboard');
    const token = dashboard.slice(dashboard.indexOf('=') + 1);
    // The developer's dashboard session, sent as the storefront preview cookie or the console's: no session.
    const forged = `servery_storefront_preview=${token}`;
    assertError(await guest(t, test.slug, 'GET', '/store', undefined, { cookie: forged }), 404, 'not_found');
    const asConsole = await call(
      t.app,
      'GET',
      '/console/api/account/second-factor',
      `servery_console_session=${token}`,
    );
    assert.equal(asConsole.statusCode, 401, asConsole.body);
    assert.equal(
      (await call(t.app, 'GET', '/dashboard/api/account/second-factor', dashboard)).statusCode,
      200,
      'still the dashboard’s',
    );

    // The console's hand-over opens the test restaurant at /s/{slug}; on its own host it is not there.
    const cookie = await storefrontPreview(t, test);
    assert.equal((await guest(t, test.slug, 'GET', '/store', undefined, { cookie })).statusCode, 200);
    for (const url of ['/api/store', '/', '/cart']) {
      const own = await t.app.inject({
        method: 'GET',
        url,
        headers: { cookie, host: `${test.slug}.servery.test` },
      });
      assert.equal(own.statusCode, 404, `${url}: ${own.body.slice(0, 200)}`);
    }
    const liveOwn = await t.app.inject({
      method: 'GET',
      url: '/api/store',
      headers: { host: `${live.slug}.servery.test` },
    });
    assert.equal(liveOwn.statusCode, 200, 'a live restaurant is served on its own host');
  });

  it('take a one-click test order from the console, even while closed, and its events follow', async () => {
    const cookie = await developerSession(t, test, 'console');
    await ok(t, test.token, 'PUT', '/store/hours', { always_open: false, opening_hours: [] }, 200);
    const res = await call(
      t.app,
      'POST',
      `/console/api/restaurants/${test.restaurantId}/test-orders`,
      cookie,
      {},
    );
    assert.equal(res.statusCode, 201, res.body);
    const { order } = json(res);
    const seen = await ok(t, test.token, 'GET', `/orders/${order.id}`);
    assert.equal(seen.status, 'pending');
    assert.equal(seen.items.length, 2);
    // The lemonade's size group needs one option: the test order picks one.
    const lemonade = seen.items.find((item: { name: string }) => item.name === 'Lemonade');
    assert.equal(lemonade?.options.length, 1);
    const events = await ok(t, test.token, 'GET', '/events?types=order.created&limit=100');
    const created = events.data.find(
      (e: { data: { object: { id: string } } }) => e.data.object.id === order.id,
    );
    assert.equal(created?.livemode, false);
  });

  it('take a test order from the console page in one click, which opens its storefront page', async () => {
    const cookie = await developerSession(t, test, 'console');
    const home = await t.app.inject({ method: 'GET', url: '/console', headers: { cookie } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(home.body)?.[1] as string;
    assert.match(
      home.body,
      new RegExp(`action="/console/test-restaurants/${test.restaurantId}/test-orders"`),
    );
    const csrfCookie = home.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const placed = await t.app.inject({
      method: 'POST',
      url: `/console/test-restaurants/${test.restaurantId}/test-orders`,
      headers: { cookie: `${cookie}; ${csrfCookie}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${encodeURIComponent(csrf)}`,
    });
    assert.equal(placed.statusCode, 303, placed.body);
    const to = placed.headers.location as string;
    assert.match(to, new RegExp(`^/s/${test.slug}/o/sgk_`));
    const preview = placed.cookies.find((c) => c.name === 'servery_storefront_preview');
    const page = await t.app.inject({
      method: 'GET',
      url: to,
      headers: { cookie: `servery_storefront_preview=${preview?.value}` },
    });
    assert.equal(page.statusCode, 200, page.body);
    // Another developer's console finds no such restaurant: nothing is placed.
    const orders = await ok(t, test.token, 'GET', '/orders?limit=100');
    const other = await developerSession(t, live, 'console');
    const refused = await t.app.inject({
      method: 'POST',
      url: `/console/test-restaurants/${live.restaurantId}/test-orders`,
      headers: { cookie: `${other}; ${csrfCookie}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${encodeURIComponent(csrf)}`,
    });
    assert.notEqual(refused.statusCode, 201);
    assert.equal((await ok(t, test.token, 'GET', '/orders?limit=100')).data.length, orders.data.length);
  });

  it('of a developer who just signed up in the console take a test order at once: they have the demo menu', async () => {
    const browser = new Browser(t.app, '192.0.2.26');
    const form = await browser.get('/console/sign-up');
    const signedUp = await browser.post('/console/sign-up', {
      _csrf: csrfOf(form),
      email: 'newcomer@dev.example.test',
      name: 'Newcomer',
      password: 'first hour of servery',
    });
    assert.equal(signedUp.statusCode, 303, signedUp.body);
    assert.equal(signedUp.headers.location, '/console');
    const home = await browser.get('/console');
    const action = /action="(\/console\/test-restaurants\/([0-9a-f-]+)\/test-orders)"/.exec(home.body);
    assert.ok(action, home.body);
    const [, testOrders, restaurantId] = action as unknown as [string, string, string];
    const placed = await browser.post(testOrders, { _csrf: csrfOf(home) });
    assert.equal(placed.statusCode, 303, placed.body);
    assert.match(placed.headers.location as string, /^\/s\/newcomer-test-restaurant\/o\/sgk_/);
    const page = await browser.get(placed.headers.location as string);
    assert.equal(page.statusCode, 200, page.body);
    const orders = await t.database.db
      .selectFrom('orders')
      .select(['status', 'items'])
      .where('tenant_id', '=', restaurantId)
      .execute();
    assert.equal(orders.length, 1);
    assert.equal(orders[0]?.status, 'pending');
    const onSale = [
      'Bruschetta',
      'Vitello tonnato',
      'Margherita',
      'Diavola',
      'Sparkling water',
      'Chianti',
      'Lemonade',
    ];
    const names = orders[0]?.items.map((item) => item.name) ?? [];
    assert.equal(names.length, 2);
    for (const name of names) assert.ok(onSale.includes(name), `${name} is on the demo menu`);
  });

  it('are the only restaurants with test orders', async () => {
    const cookie = await developerSession(t, live, 'console');
    const res = await call(
      t.app,
      'POST',
      `/console/api/restaurants/${live.restaurantId}/test-orders`,
      cookie,
      {},
    );
    assertError(res, 404, 'not_found');
  });
});
