import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, mock, test } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { idFor, record } from '../events/events-helpers.ts';
import {
  buildTestApp,
  call,
  developerSession,
  json,
  makeTenant,
  type Tenant,
  type TestApp,
} from '../harness.ts';
import { type Received, runJob, startReceiver } from './delivery-helpers.ts';

/*
 * Every delivery also carries the Standard Webhooks headers; a receiver verifies them with the
 * npm `standardwebhooks` package and the `standard_webhooks_secret` the console or dashboard
 * shows. The library checks `webhook-timestamp` against `Date.now()`: `mock.timers` sets the
 * receiver's `Date` (only around `verify`) to the test clock's time, the time of the send.
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

let serial = 0;
function path(): string {
  serial += 1;
  return `/ok/standard-${serial}`;
}
const at = (p: string): Received[] => receiver.received.filter((r) => r.path === p);
const header = (r: Received, name: string) => r.headers[name] as string;
const minute = 60 * 1000;

/** Verifies as a receiver would with `standardwebhooks`, its clock at `nowMs` (the send's time). */
function verify(secret: string, r: Received, nowMs = t.clock.now().getTime()): unknown {
  mock.timers.enable({ apis: ['Date'], now: nowMs });
  try {
    return new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
  } finally {
    mock.timers.reset();
  }
}

/** The same delivery with only the `n`th signature of `webhook-signature`. */
function onlySignature(r: Received, n: number): Received {
  const signature = header(r, 'webhook-signature').split(' ')[n];
  assert.ok(signature);
  return { ...r, headers: { ...r.headers, 'webhook-signature': signature } };
}

const consoleWebhook = (tenant: Tenant) => `/console/api/apps/${tenant.clientId}/webhook`;

/** The app's webhook to a fresh receiver path, set through the console; its path and console cookie. */
async function appWebhook(tenant: Tenant): Promise<{ p: string; cookie: string }> {
  const p = path();
  const cookie = await developerSession(t, tenant, 'console');
  const set = await call(t.app, 'PUT', consoleWebhook(tenant), cookie, {
    url: `${receiver.base}${p}`,
    events: ['order.*', 'menu.*'],
  });
  assert.equal(set.statusCode, 201, set.body);
  return { p, cookie };
}

type ShownSecret = { secret: string; standard_webhooks_secret: string };
async function shownSecrets(tenant: Tenant, cookie: string): Promise<ShownSecret[]> {
  return json(await call(t.app, 'GET', `${consoleWebhook(tenant)}/secret`, cookie)).data;
}

describe('Standard Webhooks headers', () => {
  test('an app’s delivery verifies with standardwebhooks and the console’s standard_webhooks_secret', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const { p, cookie } = await appWebhook(tenant);
    const [shown, ...others] = await shownSecrets(tenant, cookie);
    assert.ok(shown);
    assert.equal(others.length, 0);
    // The same 32 bytes, in standard base64.
    assert.match(shown.standard_webhooks_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(
      Buffer.from(shown.standard_webhooks_secret.slice(6), 'base64'),
      Buffer.from(shown.secret.slice(6), 'base64url'),
    );

    const outboxId = await record(t, tenant, 'order.created', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const [got, ...more] = at(p);
    assert.ok(got);
    assert.equal(more.length, 0);
    const id = await idFor(t, tenant, outboxId);
    assert.equal(header(got, 'webhook-id'), id);
    assert.equal(header(got, 'webhook-id'), header(got, 'service-event-id'));
    const seconds = Math.floor(t.clock.now().getTime() / 1000);
    assert.equal(header(got, 'webhook-timestamp'), String(seconds));
    assert.match(header(got, 'webhook-signature'), /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(verify(shown.standard_webhooks_secret, got), JSON.parse(got.body));

    // Service-Signature is as before: its t is webhook-timestamp, keyed with the whole secret.
    const hex = createHmac('sha256', shown.secret).update(`${seconds}.${got.body}`).digest('hex');
    assert.equal(header(got, 'service-signature'), `t=${seconds},v1=${hex}`);

    const tampered = { ...got, body: got.body.replace('order.created', 'order.paid') };
    assert.notEqual(tampered.body, got.body);
    assert.throws(() => verify(shown.standard_webhooks_secret, tampered), /No matching signature found/);
    const otherId = { ...got, headers: { ...got.headers, 'webhook-id': 'evt_other' } };
    assert.throws(() => verify(shown.standard_webhooks_secret, otherId), /No matching signature found/);
    const wrongKey = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    assert.throws(() => verify(wrongKey, got), WebhookVerificationError);
    // More than 5 minutes after the send it is refused as a replay; 5 minutes is still fine.
    verify(shown.standard_webhooks_secret, got, (seconds + 300) * 1000);
    assert.throws(
      () => verify(shown.standard_webhooks_secret, got, (seconds + 301) * 1000),
      /Message timestamp too old/,
    );
  });

  test('the secret as first shown is not standard base64: the libraries need standard_webhooks_secret', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const { p, cookie } = await appWebhook(tenant);
    // Rotate until the current secret has a base64url-only character (about 3 secrets in 4 do).
    let current = (await shownSecrets(tenant, cookie))[0] as ShownSecret;
    for (let i = 0; !/[-_]/.test(current.secret.slice('whsec_'.length)); i++) {
      assert.ok(i < 30, 'a secret with - or _');
      const answer = await call(t.app, 'POST', `${consoleWebhook(tenant)}/secret/rotate`, cookie);
      assert.equal(answer.statusCode, 200, answer.body);
      current = json(answer);
      assert.deepEqual(
        Buffer.from(current.standard_webhooks_secret.slice(6), 'base64'),
        Buffer.from(current.secret.slice(6), 'base64url'),
      );
    }
    await record(t, tenant, 'order.created', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const [got] = at(p);
    assert.ok(got);
    assert.ok(verify(current.standard_webhooks_secret, onlySignature(got, 0)));
    assert.throws(() => verify(current.secret, got), /incorrect characters for decoding/);
  });

  test('during a rotation both signatures are sent, newest first; a receiver with either secret verifies', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const { p, cookie } = await appWebhook(tenant);
    const [old] = await shownSecrets(tenant, cookie);
    assert.ok(old);
    const answer = await call(t.app, 'POST', `${consoleWebhook(tenant)}/secret/rotate`, cookie);
    const rotated: ShownSecret = json(answer);
    assert.match(rotated.standard_webhooks_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(
      (await shownSecrets(tenant, cookie)).map((s) => s.standard_webhooks_secret),
      [rotated.standard_webhooks_secret, old.standard_webhooks_secret],
    );

    await record(t, tenant, 'menu.synced', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const [got] = at(p);
    assert.ok(got);
    assert.match(header(got, 'webhook-signature'), /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    assert.ok(verify(rotated.standard_webhooks_secret, got), 'a receiver that already changed over');
    assert.ok(verify(old.standard_webhooks_secret, got), 'a receiver that has not yet');
    assert.ok(verify(rotated.standard_webhooks_secret, onlySignature(got, 0)), 'the new secret’s first');
    assert.ok(verify(old.standard_webhooks_secret, onlySignature(got, 1)));
    assert.throws(() => verify(old.standard_webhooks_secret, onlySignature(got, 0)));
    assert.match(header(got, 'service-signature'), /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);

    // 24 hours later only the new secret signs.
    t.clock.advance(24 * 60 * minute + 1000);
    await record(t, tenant, 'menu.synced', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const later = at(p)[1];
    assert.ok(later);
    assert.match(header(later, 'webhook-signature'), /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.ok(verify(rotated.standard_webhooks_secret, later));
    assert.throws(() => verify(old.standard_webhooks_secret, later), /No matching signature found/);
  });

  test('a resend keeps webhook-id, with a fresh timestamp and signature', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const { p, cookie } = await appWebhook(tenant);
    const [shown] = await shownSecrets(tenant, cookie);
    assert.ok(shown);
    await record(t, tenant, 'order.created', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const firstAt = t.clock.now().getTime();
    const [delivery] = json(await call(t.app, 'GET', `${consoleWebhook(tenant)}/deliveries`, cookie)).data;
    t.clock.advance(10 * minute);
    const resent = await call(
      t.app,
      'POST',
      `${consoleWebhook(tenant)}/deliveries/${delivery.id}/resend`,
      cookie,
    );
    assert.equal(resent.statusCode, 200, resent.body);
    const [first, again] = at(p);
    assert.ok(first && again);
    assert.equal(again.body, first.body);
    assert.equal(header(again, 'webhook-id'), header(first, 'webhook-id'));
    assert.equal(header(again, 'webhook-id'), delivery.event_id);
    assert.equal(
      Number(header(again, 'webhook-timestamp')) - Number(header(first, 'webhook-timestamp')),
      600,
    );
    assert.notEqual(header(again, 'webhook-signature'), header(first, 'webhook-signature'));
    assert.ok(verify(shown.standard_webhooks_secret, first, firstAt));
    assert.ok(verify(shown.standard_webhooks_secret, again));
    assert.throws(() => verify(shown.standard_webhooks_secret, first), /Message timestamp too old/);
  });

  test('a restaurant’s own webhook: the dashboard shows standard_webhooks_secret; its deliveries verify', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const cookie = await developerSession(t, tenant, 'dashboard');
    const base = `/dashboard/api/restaurants/${tenant.restaurantId}/webhooks`;
    const p = path();
    const createdAnswer = await call(t.app, 'POST', base, cookie, {
      url: `${receiver.base}${p}`,
      events: ['order.*'],
    });
    assert.equal(createdAnswer.statusCode, 201, createdAnswer.body);
    const created = json(createdAnswer);
    assert.match(created.standard_webhooks_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = json(await call(t.app, 'GET', `${base}/${created.id}/secret`, cookie)).data;
    assert.deepEqual(
      listed.map((s: ShownSecret) => [s.secret, s.standard_webhooks_secret]),
      [[created.secret, created.standard_webhooks_secret]],
    );

    await record(t, tenant, 'order.created', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const [got] = at(p);
    assert.ok(got);
    const envelope = JSON.parse(got.body);
    assert.equal(header(got, 'webhook-id'), envelope.id);
    assert.deepEqual(verify(created.standard_webhooks_secret, got), envelope);

    const rotated = json(await call(t.app, 'POST', `${base}/${created.id}/secret/rotate`, cookie));
    assert.match(rotated.standard_webhooks_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    await record(t, tenant, 'order.paid', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const during = at(p)[1];
    assert.ok(during);
    assert.ok(verify(rotated.standard_webhooks_secret, onlySignature(during, 0)));
    assert.ok(verify(created.standard_webhooks_secret, onlySignature(during, 1)));
  });
});
