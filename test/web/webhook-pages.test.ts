import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { formatInstant } from '../../src/http/web/webhook-pages.ts';
import { record } from '../events/events-helpers.ts';
import {
  buildTestApp,
  call,
  developerSession,
  makeTenant,
  newAccount,
  signInTo,
  type Tenant,
  type TestApp,
} from '../harness.ts';
import { Browser, csrfOf, makeRestaurant } from '../oauth/consent-helpers.ts';
import { runJob, startReceiver } from '../webhooks/delivery-helpers.ts';

/*
 * The webhook pages of the console (the app's webhook) and the dashboard (a restaurant's own)
 * over HTTP: setting the address and the selection (with `*` groups), refusals beside their field
 * with nothing saved, the signing secret shown and rotated, a webhook switched off by real failed
 * deliveries and enabled again, the delivery log after real deliveries to a local receiver, a
 * delivery's attempts, resend, test events, delete; another developer's or restaurant's webhook
 * and staff are 404; a form without its CSRF token is refused.
 */
let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
before(async () => {
  t = await buildTestApp({ config: { webhooksAllowInsecure: true } });
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await t.close();
});

const hour = 60 * 60 * 1000;
let serial = 0;
/** A receiver path that answers 200, or 503 while it is in `receiver.down`. */
const receiverPath = () => {
  serial += 1;
  return `/ok/pages-${serial}`;
};

/** A browser signed in to a surface with a session cookie. */
function signedIn(cookie: string): Browser {
  const browser = new Browser(t.app);
  const [name, value] = cookie.split('=') as [string, string];
  browser.cookies.set(name, value);
  return browser;
}

/** Posts a form of the page at `pageUrl` (its CSRF token) to `url`. */
async function submit(
  browser: Browser,
  pageUrl: string,
  url: string,
  fields: Record<string, string | string[]> = {},
): Promise<LightMyRequestResponse> {
  const page = await browser.get(pageUrl);
  assert.equal(page.statusCode, 200, page.body);
  const form = new URLSearchParams({ _csrf: csrfOf(page), lang: 'en' });
  for (const [name, value] of Object.entries(fields))
    for (const one of [value].flat()) form.append(name, one);
  const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  return t.app.inject({
    method: 'POST',
    url,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The errors beside fields of a refused form: [field id, message]. */
const fieldErrors = (response: LightMyRequestResponse) =>
  [...response.body.matchAll(/<p class="field-error" id="([^"]+)-error">(.*?)<\/p>/g)].map((m) => [
    m[1],
    m[2],
  ]);
const checkedEvents = (response: LightMyRequestResponse) =>
  [...response.body.matchAll(/name="events" value="([^"]+)" checked/g)].map((m) => m[1]);
const doneOf = (response: LightMyRequestResponse) =>
  /<p class="success" role="status">(.*?)<\/p>/.exec(response.body)?.[1];
const decode = (html: string) =>
  html.replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&');

const webhookRow = (where: { appId?: string; tenantId?: string }) =>
  t.database.db
    .selectFrom('webhooks')
    .selectAll()
    .$if(where.appId !== undefined, (q) => q.where('app_id', '=', where.appId as string))
    .$if(where.tenantId !== undefined, (q) => q.where('tenant_id', '=', where.tenantId as string))
    .execute();

/**
 * Switches the webhook at `path` off as the worker does (switching-off.test.ts): ten failed
 * deliveries, then another one 24 hours later. The receiver is up again afterwards.
 */
async function switchOff(tenant: Tenant, path: string): Promise<void> {
  receiver.down.add(path);
  for (let i = 0; i < 10; i += 1) await record(t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  t.clock.advance(24 * hour);
  await record(t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  receiver.down.delete(path);
}

test('console: set the webhook, refusals beside the field, secret shown and rotated, switched off and on, log, resend, test event, delete', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  let browser = signedIn(await developerSession(t, tenant, 'console'));
  const home = `/console/apps/${tenant.clientId}/webhook`;

  const empty = await browser.get(home);
  assert.equal(empty.statusCode, 200);
  assert.match(empty.body, /<h1>Webhook of App /);
  assert.match(empty.body, /This app has no webhook yet/);
  assert.match(empty.body, /value="app\.\*"/, 'the app’s webhook may choose app.* events');
  assert.match(empty.body, /All menu events <code>menu\.\*<\/code>/);

  // Refused addresses and selections: the error beside its field, nothing saved.
  for (const [url, message] of [
    ['ftp://93.184.216.34/hook', 'Enter an address beginning with https://.'],
    ['not an address', 'Enter a whole address, beginning with https://.'],
    ['https://10.0.0.1/hook', 'The host 10.0.0.1 is not a public internet address.'],
    [`https://93.184.216.34/${'a'.repeat(500)}`, 'Enter an address of at most 500 characters.'],
    ['https://user:pw@93.184.216.34/hook', 'Enter an address without a user name or password.'],
    ['', 'Enter the webhook’s address.'],
  ]) {
    const refused = await submit(browser, home, home, { url: url as string, events: 'order.*' });
    assert.equal(refused.statusCode, 400, url);
    assert.match(decode(fieldErrors(refused)[0]?.[1] ?? ''), new RegExp(`^${literal(message as string)}`));
    assert.equal(fieldErrors(refused)[0]?.[0], 'url');
    assert.match(refused.body, /<a href="#url">/, 'the summary links to the field');
    assert.deepEqual(checkedEvents(refused), ['order.*'], 'the selection as sent');
  }
  const noEvents = await submit(browser, home, home, { url: 'https://93.184.216.34/hook' });
  assert.equal(noEvents.statusCode, 400);
  assert.deepEqual(fieldErrors(noEvents), [['events', 'Choose at least one event or group.']]);
  const nothing = await submit(browser, home, home, { url: '' });
  assert.deepEqual(
    fieldErrors(nothing),
    [
      ['url', 'Enter the webhook’s address.'],
      ['events', 'Choose at least one event or group.'],
    ],
    'every error of a submit at once',
  );
  assert.deepEqual(await webhookRow({ appId: tenant.appId }), []);

  const path = receiverPath();
  const created = await submit(browser, home, home, {
    url: `${receiver.base}${path}`,
    events: ['order.*', 'app.*', 'store.paused'],
  });
  assert.equal(created.statusCode, 303, created.body);
  assert.equal(created.headers.location, `${home}?done=created`);
  const [row] = await webhookRow({ appId: tenant.appId });
  assert.deepEqual(row?.events, ['order.*', 'app.*', 'store.paused']);
  const page = await browser.get(`${home}?done=created`);
  assert.equal(doneOf(page), 'The webhook was set up. Its signing secret is below.');
  assert.deepEqual(checkedEvents(page), ['order.*', 'store.paused', 'app.*']);
  const [secret] = await t.database.db
    .selectFrom('webhook_secrets')
    .select('secret')
    .where('webhook_id', '=', row?.id as string)
    .execute();
  assert.match(
    page.body,
    new RegExp(`<code class="secret">${secret?.secret}</code>`),
    'the secret is shown again',
  );
  const standardSecret = `whsec_${Buffer.from(String(secret?.secret).slice(6), 'base64url').toString('base64')}`;
  assert.ok(
    page.body.includes(
      `For Standard Webhooks libraries: <code class="secret standard-webhooks">${standardSecret}</code>`,
    ),
    'and in the form the Standard Webhooks libraries take',
  );

  // The selection changes; `*` is every event.
  const everything = await submit(browser, home, home, { url: `${receiver.base}${path}`, events: '*' });
  assert.equal(everything.headers.location, `${home}?done=saved`);
  assert.deepEqual((await webhookRow({ appId: tenant.appId }))[0]?.events, ['*']);

  const rotated = await submit(browser, home, `${home}/secret/rotate`);
  assert.equal(rotated.headers.location, `${home}?done=rotated#secrets`);
  const afterRotation = await browser.get(home);
  const expiry = formatInstant(new Date(t.clock.now().getTime() + 24 * hour), 'UTC', 'en');
  assert.match(afterRotation.body, new RegExp(`Previous secret, signs until ${literal(expiry)}`));
  assert.match(expiry, /UTC$/, 'console times are UTC, named');
  assert.equal((afterRotation.body.match(/<code class="secret">whsec_/g) ?? []).length, 2);
  assert.match(afterRotation.body, new RegExp(`<code class="secret">${secret?.secret}</code>`));

  await switchOff(tenant, path);
  browser = signedIn(await developerSession(t, tenant, 'console')); // a day later: signed in again
  const off = await browser.get(home);
  assert.match(off.body, /This webhook is switched off/);
  assert.match(off.body, /in a row failed/);
  assert.match(off.body, /Enable again/);
  const enabled = await submit(browser, home, `${home}/enable`);
  assert.equal(enabled.headers.location, `${home}?done=enabled`);
  assert.equal((await webhookRow({ appId: tenant.appId }))[0]?.enabled, true);
  assert.doesNotMatch((await browser.get(home)).body, /This webhook is switched off/);
  // An app's webhook is switched off only by its failures: no button, and the address is 404.
  assert.doesNotMatch((await browser.get(home)).body, /Switch off this webhook/);
  assert.equal((await submit(browser, home, `${home}/disable`)).statusCode, 404);
  assert.equal((await webhookRow({ appId: tenant.appId }))[0]?.enabled, true);

  // A real delivery to the receiver, then the log: newest first, with status, code and attempts.
  await record(t, tenant, 'order.paid', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  const log = await browser.get(`${home}/deliveries`);
  assert.equal(log.statusCode, 200);
  const rows = [
    ...log.body.matchAll(
      /<tr>\s*<td>(.*?)<\/td>\s*<td><code>(.*?)<\/code><\/td>\s*<td><a href="([^"]+)"><code>(evt_[0-9a-f]{32})<\/code><\/a><\/td>\s*<td><span class="delivery-status (\w+)">(.*?)<\/span><\/td>\s*<td>(.*?)<\/td>\s*<td>(\d+)<\/td>/g,
    ),
  ];
  assert.ok(rows.length >= 12, 'eleven failed, one delivered');
  assert.deepEqual(rows[0]?.slice(2, 3), ['order.paid']);
  assert.deepEqual([rows[0]?.[6], rows[0]?.[7], rows[0]?.[8]], ['Delivered', '200', '1']);
  assert.match(rows[0]?.[1] ?? '', /UTC$/);
  const skipped = rows.find((r) => r[5] === 'skipped' && r[7] === '503');
  assert.ok(skipped, 'the deliveries open when it was switched off are skipped, their failures kept');

  const deliveryUrl = skipped[3] as string;
  const delivery = await browser.get(deliveryUrl);
  assert.equal(delivery.statusCode, 200);
  assert.match(delivery.body, /<h1>Delivery of order.created<\/h1>/);
  assert.match(delivery.body, /<td>1<\/td>\s*<td>[^<]+UTC<\/td>\s*<td>503<\/td>\s*<td>\d+ ms<\/td>/);
  const sentBefore = receiver.received.filter((r) => r.path === path).length;
  const resent = await submit(browser, deliveryUrl, `${deliveryUrl}/resend`);
  assert.equal(resent.headers.location, `${deliveryUrl}?done=resent`);
  const afterResend = await browser.get(`${deliveryUrl}?done=resent`);
  assert.match(doneOf(afterResend) ?? '', /sent once more/);
  assert.match(afterResend.body, /<span class="delivery-status delivered">Delivered<\/span>/);
  // The resend's number follows the delivery's earlier attempts (one or two, as the log listed them).
  const resendNumber = Number(skipped[8]) + 1;
  assert.match(afterResend.body, new RegExp(`<td>${resendNumber}</td>\\s*<td>[^<]+</td>\\s*<td>200</td>`));
  assert.equal(receiver.received.filter((r) => r.path === path).length, sentBefore + 1);

  const testSent = await submit(browser, `${home}/deliveries`, `${home}/test`, { type: 'ping' });
  assert.equal(testSent.headers.location, `${home}/deliveries?done=testSent`);
  const ping = receiver.received.at(-1);
  assert.equal(ping?.headers['service-event-type'], 'ping');
  assert.equal(JSON.parse(ping?.body ?? '{}').data.test, true);
  const logAfterTest = await browser.get(`${home}/deliveries?done=testSent`);
  assert.match(logAfterTest.body, /<td><code>ping<\/code><\/td>/);
  assert.match(logAfterTest.body, /<select id="type" name="type"[^>]*>\s*<option value="ping" selected>/);
  assert.match(logAfterTest.body, /<option value="app.connected">/);
  const badType = await submit(browser, `${home}/deliveries`, `${home}/test`, { type: 'order.eaten' });
  assert.equal(badType.statusCode, 400);
  assert.deepEqual(fieldErrors(badType), [['type', 'Choose one of the event types listed.']]);

  // Older deliveries are a page further (25 a page).
  for (let i = 0; i < 14; i += 1) await record(t, tenant, 'store.updated', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  const first = await browser.get(`${home}/deliveries`);
  const older = /<a href="([^"]+\?cursor=[^"]+)">Older deliveries<\/a>/.exec(first.body)?.[1];
  assert.ok(older);
  const second = await browser.get(decode(older));
  assert.equal(second.statusCode, 200);
  const total = await t.database.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('webhook_id', '=', row?.id as string)
    .executeTakeFirstOrThrow();
  assert.equal((second.body.match(/<span class="delivery-status/g) ?? []).length, Number(total.n) - 25);
  assert.match(second.body, /Newest deliveries/);
  assert.equal((await browser.get(`${home}/deliveries?cursor=nonsense`)).statusCode, 400);

  const deleted = await submit(browser, home, `${home}/delete`);
  assert.equal(deleted.headers.location, `${home}?done=deleted`);
  assert.deepEqual(await webhookRow({ appId: tenant.appId }), []);
  const gone = await browser.get(`${home}?done=deleted`);
  assert.match(doneOf(gone) ?? '', /was deleted/);
  assert.match(gone.body, /This app has no webhook yet/);
  assert.equal((await browser.get(`${home}/deliveries`)).statusCode, 404);
  assert.equal((await browser.get(deliveryUrl)).statusCode, 404);
});

test('console: another developer’s app is 404, its webhook unchanged; forms without CSRF token are refused', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const owner = signedIn(await developerSession(t, tenant, 'console'));
  const home = `/console/apps/${tenant.clientId}/webhook`;
  const path = receiverPath();
  await submit(owner, home, home, { url: `${receiver.base}${path}`, events: 'order.*' });

  const other = await newAccount(t, true);
  const stranger = signedIn(await signInTo(t.app, 'console', other.email));
  const strangerOwn = await stranger.get('/console');
  assert.equal(strangerOwn.statusCode, 200);
  for (const url of [home, `${home}/deliveries`])
    assert.equal((await stranger.get(url)).statusCode, 404, url);
  const token = csrfOf(strangerOwn);
  for (const url of [home, `${home}/delete`, `${home}/secret/rotate`, `${home}/test`]) {
    const response = await stranger.post(url, {
      _csrf: token,
      url: 'https://93.184.216.34/x',
      events: '*',
      type: 'ping',
    });
    assert.equal(response.statusCode, 404, url);
  }
  assert.deepEqual((await webhookRow({ appId: tenant.appId }))[0]?.events, ['order.*']);

  // Test events take their data from a test restaurant: an app connected only to live ones has none.
  const live = await makeTenant(t.ctx);
  const liveBrowser = signedIn(await developerSession(t, live, 'console'));
  const liveHome = `/console/apps/${live.clientId}/webhook`;
  await submit(liveBrowser, liveHome, liveHome, { url: 'https://93.184.216.34/hook', events: '*' });
  const noTestData = await submit(liveBrowser, `${liveHome}/deliveries`, `${liveHome}/test`, {
    type: 'ping',
  });
  assert.equal(noTestData.statusCode, 400);
  assert.match(noTestData.body, /connect the app to a test restaurant first/);

  const noToken = await owner.post(`${home}/delete`, {});
  assert.equal(noToken.statusCode, 403);
  const wrongToken = await owner.post(home, { _csrf: 'forged', url: 'https://93.184.216.34/x', events: '*' });
  assert.equal(wrongToken.statusCode, 403);
  assert.deepEqual((await webhookRow({ appId: tenant.appId }))[0]?.events, ['order.*']);
});

test('dashboard: add a webhook, refusals, edit, rotate, switched off and on, log in the restaurant’s zone, resend, test event, delete', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  let browser = signedIn(await developerSession(t, tenant, 'dashboard'));
  const list = `/dashboard/restaurants/${tenant.restaurantId}/webhooks`;

  const none = await browser.get(list);
  assert.equal(none.statusCode, 200);
  assert.match(none.body, /no webhooks of its own yet/);
  assert.match(none.body, /<a href="[^"]+\/webhooks" aria-current="page">Webhooks<\/a>/);
  const form = await browser.get(`${list}/new`);
  assert.equal(form.statusCode, 200);
  assert.doesNotMatch(form.body, /value="app\./, 'no app.* events for a restaurant’s own');

  const privateAddress = await submit(browser, `${list}/new`, list, {
    url: 'https://192.168.1.10/hook',
    events: 'order.*',
  });
  assert.equal(privateAddress.statusCode, 400);
  assert.equal(fieldErrors(privateAddress)[0]?.[0], 'url');
  assert.match(fieldErrors(privateAddress)[0]?.[1] ?? '', /192\.168\.1\.10 is not a public internet address/);
  const appEvents = await submit(browser, `${list}/new`, list, {
    url: 'https://93.184.216.34/hook',
    events: ['order.*', 'app.connected'],
  });
  assert.equal(appEvents.statusCode, 400);
  assert.deepEqual(fieldErrors(appEvents), [['events', 'Choose only the events listed.']]);
  const nothing = await submit(browser, `${list}/new`, list, { url: '' });
  assert.deepEqual(fieldErrors(nothing), [
    ['url', 'Enter the webhook’s address.'],
    ['events', 'Choose at least one event or group.'],
  ]);
  assert.deepEqual(await webhookRow({ tenantId: tenant.restaurantId }), []);

  const path = receiverPath();
  const created = await submit(browser, `${list}/new`, list, { url: `${receiver.base}${path}`, events: '*' });
  assert.equal(created.statusCode, 303, created.body);
  const [row] = await webhookRow({ tenantId: tenant.restaurantId });
  assert.ok(row);
  const home = `${list}/${row.id}`;
  assert.equal(created.headers.location, `${home}?done=created`);
  const page = await browser.get(home);
  assert.match(page.body, /<code class="secret">whsec_/);
  assert.deepEqual(checkedEvents(page), ['*']);
  const listed = await browser.get(list);
  assert.match(listed.body, new RegExp(`<code class="address">${literal(`${receiver.base}${path}`)}</code>`));

  const badEdit = await submit(browser, home, home, { url: 'http://', events: '*' });
  assert.equal(badEdit.statusCode, 400);
  assert.equal(fieldErrors(badEdit)[0]?.[0], 'url');
  const edited = await submit(browser, home, home, {
    url: `${receiver.base}${path}`,
    events: ['order.*', 'menu.product.*'],
  });
  assert.equal(edited.headers.location, `${home}?done=saved`);
  assert.deepEqual((await webhookRow({ tenantId: tenant.restaurantId }))[0]?.events, [
    'order.*',
    'menu.product.*',
  ]);

  const rotated = await submit(browser, home, `${home}/secret/rotate`);
  assert.equal(rotated.headers.location, `${home}?done=rotated#secrets`);
  const expiry = formatInstant(new Date(t.clock.now().getTime() + 24 * hour), 'Europe/Berlin', 'en');
  assert.match((await browser.get(home)).body, new RegExp(`signs until ${literal(expiry)}`));

  await switchOff(tenant, path);
  browser = signedIn(await developerSession(t, tenant, 'dashboard')); // a day later: signed in again
  const off = await browser.get(home);
  assert.match(off.body, /This webhook is switched off/);
  assert.match((await browser.get(list)).body, /<td>Switched off<\/td>/);
  const enabled = await submit(browser, home, `${home}/enable`);
  assert.equal(enabled.headers.location, `${home}?done=enabled`);
  assert.equal((await webhookRow({ tenantId: tenant.restaurantId }))[0]?.enabled, true);

  // The owner switches it off by hand, and on again.
  assert.match((await browser.get(home)).body, /Switch off this webhook/);
  const disabled = await submit(browser, home, `${home}/disable`);
  assert.equal(disabled.headers.location, `${home}?done=disabled`);
  assert.equal((await webhookRow({ tenantId: tenant.restaurantId }))[0]?.enabled, false);
  const byHand = (await browser.get(`${home}?done=disabled`)).body;
  assert.match(byHand, /The webhook is switched off\./);
  assert.match(byHand, /This webhook is switched off/);
  assert.doesNotMatch(byHand, /Switch off this webhook/);
  await submit(browser, home, `${home}/enable`);
  assert.equal((await webhookRow({ tenantId: tenant.restaurantId }))[0]?.enabled, true);

  await record(t, tenant, 'order.paid', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  const log = await browser.get(`${home}/deliveries`);
  const newest = await t.database.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', row.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  const localTime = formatInstant(newest.created_at, 'Europe/Berlin', 'en');
  assert.match(log.body, new RegExp(`<tr>\\s*<td>${literal(localTime)}</td>\\s*<td><code>order.paid</code>`));
  assert.match(log.body, /Times in Europe\/Berlin/);
  assert.match(log.body, /<option value="order.created">/);
  assert.doesNotMatch(log.body, /<option value="app\./);

  const deliveryUrl = `${home}/deliveries/${newest.id}`;
  const delivery = await browser.get(deliveryUrl);
  assert.match(delivery.body, /<td>1<\/td>\s*<td>[^<]+<\/td>\s*<td>200<\/td>/);
  const resent = await submit(browser, deliveryUrl, `${deliveryUrl}/resend`);
  assert.equal(resent.headers.location, `${deliveryUrl}?done=resent`);
  assert.match((await browser.get(deliveryUrl)).body, /<td>2<\/td>\s*<td>[^<]+<\/td>\s*<td>200<\/td>/);

  const appType = await submit(browser, `${home}/deliveries`, `${home}/test`, { type: 'app.connected' });
  assert.equal(appType.statusCode, 400);
  assert.deepEqual(fieldErrors(appType), [['type', 'Choose one of the event types listed.']]);
  const testSent = await submit(browser, `${home}/deliveries`, `${home}/test`, { type: 'order.created' });
  assert.equal(testSent.headers.location, `${home}/deliveries?done=testSent`);
  assert.equal(receiver.received.at(-1)?.headers['service-event-type'], 'order.created');

  const deleted = await submit(browser, home, `${home}/delete`);
  assert.equal(deleted.headers.location, `${list}?done=deleted`);
  assert.deepEqual(await webhookRow({ tenantId: tenant.restaurantId }), []);
  assert.match(doneOf(await browser.get(`${list}?done=deleted`)) ?? '', /was deleted/);
  const gone = await browser.get(home);
  assert.equal(gone.statusCode, 404);
  assert.match(gone.body, /Webhook not found/);
});

test('dashboard: at most five webhooks, the sixth refused above the form', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const browser = signedIn(await developerSession(t, tenant, 'dashboard'));
  const list = `/dashboard/restaurants/${tenant.restaurantId}/webhooks`;
  for (let i = 0; i < 5; i += 1) {
    const added = await submit(browser, `${list}/new`, list, {
      url: `https://93.184.216.34/${i}`,
      events: '*',
    });
    assert.equal(added.statusCode, 303);
  }
  assert.doesNotMatch((await browser.get(list)).body, /Add a webhook/);
  const sixth = await submit(browser, `${list}/new`, list, { url: 'https://93.184.216.34/6', events: '*' });
  assert.equal(sixth.statusCode, 400);
  assert.match(
    sixth.body,
    /<li>A restaurant can have at most 5 webhooks\. Delete one to add another\.<\/li>/,
  );
  assert.equal((await webhookRow({ tenantId: tenant.restaurantId })).length, 5);
});

test('dashboard: resends and test events together at most 10 a minute, the 11th refused on the page', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const browser = signedIn(await developerSession(t, tenant, 'dashboard'));
  const list = `/dashboard/restaurants/${tenant.restaurantId}/webhooks`;
  await submit(browser, `${list}/new`, list, { url: `${receiver.base}${receiverPath()}`, events: '*' });
  const [row] = await webhookRow({ tenantId: tenant.restaurantId });
  const log = `${list}/${row?.id}/deliveries`;
  const token = csrfOf(await browser.get(log));
  for (let i = 0; i < 10; i += 1)
    assert.equal(
      (await browser.post(`${list}/${row?.id}/test`, { _csrf: token, type: 'ping' })).statusCode,
      303,
    );
  const limited = await browser.post(`${list}/${row?.id}/test`, { _csrf: token, type: 'ping' });
  assert.equal(limited.statusCode, 429);
  assert.match(limited.body, /At most 10 resends and test events a minute\. Try again in \d+ seconds?\./);
});

test('dashboard: staff, another restaurant’s owner and another restaurant’s webhook id are 404', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const owner = signedIn(await developerSession(t, tenant, 'dashboard'));
  const list = `/dashboard/restaurants/${tenant.restaurantId}/webhooks`;
  await submit(owner, `${list}/new`, list, { url: 'https://93.184.216.34/hook', events: 'order.*' });
  const [row] = await webhookRow({ tenantId: tenant.restaurantId });
  const home = `${list}/${row?.id}`;

  const staff = await newAccount(t, false);
  await t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: tenant.restaurantId, account_id: staff.id, role: 'staff' })
    .execute();
  const staffBrowser = signedIn(await signInTo(t.app, 'dashboard', staff.email));
  for (const url of [list, `${list}/new`, home, `${home}/deliveries`]) {
    const response = await staffBrowser.get(url);
    assert.equal(response.statusCode, 404, url);
    assert.match(response.body, /Restaurant not found/);
  }
  const staffToken = csrfOf(await staffBrowser.get('/dashboard'));
  assert.equal((await staffBrowser.post(`${home}/delete`, { _csrf: staffToken })).statusCode, 404);

  const stranger = await newAccount(t, false);
  const own = await makeRestaurant(t.ctx, [stranger.id], { livemode: false });
  const strangerBrowser = signedIn(await signInTo(t.app, 'dashboard', stranger.email));
  assert.equal((await strangerBrowser.get(home)).statusCode, 404);
  const elsewhere = await strangerBrowser.get(`/dashboard/restaurants/${own.id}/webhooks/${row?.id}`);
  assert.equal(elsewhere.statusCode, 404);
  assert.match(elsewhere.body, /Webhook not found/);
  const strangerToken = csrfOf(elsewhere);
  const moved = await strangerBrowser.post(`/dashboard/restaurants/${own.id}/webhooks/${row?.id}`, {
    _csrf: strangerToken,
    url: 'https://93.184.216.34/taken',
    events: '*',
  });
  assert.equal(moved.statusCode, 404);
  assert.equal((await webhookRow({ tenantId: tenant.restaurantId }))[0]?.url, 'https://93.184.216.34/hook');
  // The JSON API agrees: the webhook is not the stranger's.
  const api = await call(
    t.app,
    'GET',
    `/dashboard/api/restaurants/${own.id}/webhooks/${row?.id}/deliveries`,
    await signInTo(t.app, 'dashboard', stranger.email),
  );
  assert.equal(api.statusCode, 404);

  const noToken = await owner.post(`${home}/delete`, {});
  assert.equal(noToken.statusCode, 403);
  assert.equal((await webhookRow({ tenantId: tenant.restaurantId })).length, 1);
});
