import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { OutboundHttpClient } from '../../src/adapters/outbound-http.ts';
import { openDatabase } from '../../src/db/client.ts';
import { rotateAppWebhookSecret, setAppWebhook } from '../../src/domain/webhooks/app-webhook.service.ts';
import { fanOutDeliveries } from '../../src/domain/webhooks/delivery-fanout.ts';
import { connectAnotherApp, idFor, record } from '../events/events-helpers.ts';
import { bearer, buildTestApp, makeTenant, type TestApp } from '../harness.ts';
import { hangCatcherMs } from '../waiting.ts';
import { type Received, runJob, startReceiver, webhookFor } from './delivery-helpers.ts';

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
/** A fresh receiver path of the given kind, so each test reads only its own requests. */
function path(kind: 'ok' | 'fail' | 'redirect' | 'hang' | 'reset' | 'huge'): string {
  serial += 1;
  return `/${kind}/${serial}`;
}
const at = (p: string): Received[] => receiver.received.filter((r) => r.path === p);
const header = (r: Received, name: string) => r.headers[name] as string;

/** Verifies as a receiver would, with the stripe package, at the worker clock's time. */
function verify(r: Received, secret: string): void {
  const stripeSignature = Stripe.webhooks.signature;
  assert.ok(stripeSignature);
  const now = Math.floor(t.clock.now().getTime() / 1000);
  stripeSignature.verifyHeader(r.body, header(r, 'service-signature'), secret, 300, undefined, now);
}

describe('a delivery', () => {
  test('arrives signed, with every header, its body byte-identical to GET /v1/events/{id}', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const p = path('ok');
    const secret = await webhookFor(t, tenant, `${receiver.base}${p}`);
    const outboxId = await record(t, tenant, 'order.created', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const [got, ...more] = at(p);
    assert.ok(got);
    assert.equal(more.length, 0);
    const id = await idFor(t, tenant, outboxId);
    const fromFeed = await t.app.inject({
      method: 'GET',
      url: `/v1/events/${id}`,
      headers: bearer(tenant.token),
    });
    assert.equal(fromFeed.statusCode, 200);
    assert.equal(got.body, fromFeed.body);
    assert.equal(header(got, 'content-type'), 'application/json');
    assert.equal(header(got, 'user-agent'), 'Service-Webhooks/1.0 (+http://servery.test/v1/openapi.json)');
    assert.equal(header(got, 'service-event-id'), id);
    assert.equal(header(got, 'service-event-type'), 'order.created');
    assert.equal(header(got, 'service-delivery-attempt'), '1');
    assert.match(header(got, 'service-signature'), /^t=\d+,v1=[0-9a-f]{64}$/);
    verify(got, secret);
    assert.throws(() => verify(got, 'whsec_wrong'));
    await runJob(t.database.db, t.clock);
    assert.equal(at(p).length, 1, 'a delivered event is not sent again');
  });

  test('during a rotation carries two signatures, newest first; both secrets verify', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const p = path('ok');
    const old = await webhookFor(t, tenant, `${receiver.base}${p}`);
    const { secret: current } = await rotateAppWebhookSecret(t.ctx, {
      clientId: tenant.clientId,
      developerId: null,
    });
    await record(t, tenant, 'menu.synced', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const [got] = at(p);
    assert.ok(got);
    assert.match(header(got, 'service-signature'), /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    verify(got, current);
    verify(got, old);
    const [, first] = header(got, 'service-signature').split(',');
    const onlyCurrent = {
      ...got,
      headers: {
        ...got.headers,
        'service-signature': `${header(got, 'service-signature').split(',')[0]},${first}`,
      },
    };
    verify(onlyCurrent, current);
    // 24 hours later the old secret no longer signs.
    t.clock.advance(24 * 3600 * 1000 + 1000);
    await record(t, tenant, 'menu.synced', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const later = at(p)[1];
    assert.ok(later);
    assert.match(header(later, 'service-signature'), /^t=\d+,v1=[0-9a-f]{64}$/);
    verify(later, current);
    assert.throws(() => verify(later, old));
  });

  test('a live restaurant’s event is not sent to an insecure address', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: true });
    const p = path('ok');
    await webhookFor(t, tenant, `${receiver.base}${p}`);
    await record(t, tenant, 'order.created');
    await runJob(t.database.db, t.clock);
    assert.equal(at(p).length, 0);
    const log = await t.database.db.selectFrom('webhook_delivery_attempts').selectAll().execute();
    assert.ok(log.some((row) => row.error === 'The webhook address is not https.'));
  });

  test('a name answering a public address when set and 127.0.0.1 at the send reaches nothing', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: true });
    const p = path('ok');
    // DNS rebinding: the first answer is public, every later one the receiver's loopback address.
    const answers = ['93.184.216.34'];
    const answer = () => answers.shift() ?? '127.0.0.1';
    await setAppWebhook(t.ctx, {
      clientId: tenant.clientId,
      developerId: null,
      url: `https://rebinding.example.test:${new URL(receiver.base).port}${p}`,
      events: ['order.*'],
      rules: { allowInsecure: false, resolve: async () => [answer()] },
    });
    await record(t, tenant, 'order.created');
    const connections = receiver.connections();
    const http = new OutboundHttpClient({
      lookup: (_hostname, _options, callback) => callback(null, [{ address: answer(), family: 4 }]),
    });
    await runJob(t.database.db, t.clock, { http });
    assert.equal(receiver.connections(), connections);
    const log = await t.database.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_delivery_attempts as a', (join) =>
        join.onRef('a.tenant_id', '=', 'd.tenant_id').onRef('a.delivery_id', '=', 'd.id'),
      )
      .select(['a.status_code', 'a.error'])
      .where('d.tenant_id', '=', tenant.restaurantId)
      .execute();
    assert.deepEqual(log, [
      {
        status_code: null,
        error: 'rebinding.example.test resolves to 127.0.0.1, not a public internet address (loopback).',
      },
    ]);
  });
});

describe('what is sent', () => {
  test('the connection’s scopes and the webhook’s selection decide; app.* of its own connections too', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false, scopes: ['orders:read'] });
    const p = path('ok');
    await webhookFor(t, tenant, `${receiver.base}${p}`, ['order.created', 'app.*']);
    const other = await connectAnotherApp(t.ctx, tenant);
    await record(t, tenant, 'order.created', undefined, { livemode: false });
    await record(t, tenant, 'order.paid', undefined, { livemode: false }); // not selected
    await record(t, tenant, 'menu.synced', undefined, { livemode: false }); // no menu:read
    const object = { object: 'connection', id: tenant.connectionId };
    await record(
      t,
      tenant,
      'app.disconnected',
      { object, reason: 'revoked' },
      { livemode: false, connectionId: tenant.connectionId },
    );
    await record(
      t,
      tenant,
      'app.connected',
      { object },
      { livemode: false, connectionId: other.connectionId },
    ); // another app's
    await record(
      t,
      tenant,
      'order.created',
      { object: { object: 'order', test: 1 }, test: true },
      { livemode: false },
    ); // a test event
    await runJob(t.database.db, t.clock);
    assert.deepEqual(
      at(p)
        .map((r) => header(r, 'service-event-type'))
        .sort(),
      ['app.connected', 'app.disconnected', 'order.created'],
    );
    for (const r of at(p)) assert.equal(JSON.parse(r.body).connection_id, tenant.connectionId);
  });

  test('the fan-out run twice creates every delivery once', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    await webhookFor(t, tenant, `${receiver.base}${path('ok')}`);
    await record(t, tenant, 'store.paused', undefined, { livemode: false });
    await idFor(t, tenant, await record(t, tenant, 'store.resumed', undefined, { livemode: false }));
    const first = await fanOutDeliveries(t.database.db, t.clock);
    assert.equal(first, 2);
    await t.database.db.updateTable('webhook_fanout').set({ position: '0' }).execute();
    assert.equal(await fanOutDeliveries(t.database.db, t.clock), 0);
    await runJob(t.database.db, t.clock);
  });
});

describe('failures', () => {
  const minute = 60 * 1000;
  const waits = [1, 5, 30, 120, 360, 720, 1440].map((m) => m * minute);

  test('a failing receiver gets 8 attempts at the spec’s waits, then the delivery is given up', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const p = path('fail');
    const secret = await webhookFor(t, tenant, `${receiver.base}${p}`);
    await record(t, tenant, 'order.created', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    assert.equal(at(p).length, 1);
    for (const [i, wait] of waits.entries()) {
      t.clock.advance(wait - 1000);
      await runJob(t.database.db, t.clock);
      assert.equal(at(p).length, i + 1, `attempt ${i + 2} not before its wait`);
      t.clock.advance(1000);
      await runJob(t.database.db, t.clock);
      assert.equal(at(p).length, i + 2, `attempt ${i + 2} after ${wait / minute} min`);
    }
    t.clock.advance(48 * 60 * minute);
    await runJob(t.database.db, t.clock);
    const sent = at(p);
    assert.equal(sent.length, 8);
    assert.deepEqual(
      sent.map((r) => header(r, 'service-delivery-attempt')),
      ['1', '2', '3', '4', '5', '6', '7', '8'],
    );
    assert.equal(new Set(sent.map((r) => r.body)).size, 1, 'every attempt sends the same body');
    for (const r of sent) assert.ok(r.headers['service-signature']);
    verify(sent[7] as Received, secret);
    const delivery = await t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('tenant_id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();
    assert.equal(delivery.attempts, 8);
    assert.equal(delivery.next_attempt_at, null);
    assert.ok(delivery.given_up_at);
    const log = await t.database.db
      .selectFrom('webhook_delivery_attempts')
      .selectAll()
      .where('delivery_id', '=', delivery.id)
      .orderBy('attempt')
      .execute();
    assert.deepEqual(
      log.map((row) => [row.attempt, row.status_code, row.error]),
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, 500, 'HTTP 500']),
    );
  });

  test('a redirect is not followed and counts as a failure', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const p = path('redirect');
    await webhookFor(t, tenant, `${receiver.base}${p}`);
    const before = receiver.received.filter((r) => r.path === '/ok/redirected').length;
    await record(t, tenant, 'order.created', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    assert.equal(at(p).length, 1);
    assert.equal(receiver.received.filter((r) => r.path === '/ok/redirected').length, before);
    const delivery = await t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('tenant_id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();
    assert.equal(delivery.delivered_at, null);
    assert.equal(delivery.next_attempt_at?.getTime(), t.clock.now().getTime() + minute);
    const log = await t.database.db
      .selectFrom('webhook_delivery_attempts')
      .select(['status_code', 'error'])
      .where('delivery_id', '=', delivery.id)
      .execute();
    assert.deepEqual(log, [{ status_code: 302, error: 'HTTP 302' }]);
  });

  test('a hanging receiver times out without holding up another delivery', async () => {
    // The time-out runs on real time: 200 ms, and should the machine be so busy that the answering
    // receiver's delivery took as long, again with a fresh pair and twice the time.
    for (let timeoutMs = 200; ; timeoutMs *= 2) {
      assert.ok(timeoutMs < hangCatcherMs, 'the answering receiver was never answered in time');
      const hanging = await makeTenant(t.ctx, { livemode: false });
      const fine = await makeTenant(t.ctx, { livemode: false });
      const hp = path('hang');
      const fp = path('ok');
      await webhookFor(t, hanging, `${receiver.base}${hp}`);
      await webhookFor(t, fine, `${receiver.base}${fp}`);
      await record(t, hanging, 'order.created', undefined, { livemode: false });
      await record(t, fine, 'order.created', undefined, { livemode: false });
      // The run ends (its waiting for the hanging receiver cut by the time-out).
      await runJob(t.database.db, t.clock, { timeoutMs });
      assert.equal(at(hp).length, 1);
      assert.equal(at(fp).length, 1);
      const rows = await t.database.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_delivery_attempts as a', (join) =>
          join.onRef('a.tenant_id', '=', 'd.tenant_id').onRef('a.delivery_id', '=', 'd.id'),
        )
        .select(['d.tenant_id', 'd.delivered_at', 'a.error', 'a.duration_ms'])
        .where('d.tenant_id', 'in', [hanging.restaurantId, fine.restaurantId])
        .execute();
      const of = (id: string) => rows.find((row) => row.tenant_id === id);
      const timedOut = `No answer within ${timeoutMs} ms.`;
      if (of(fine.restaurantId)?.error === timedOut) continue;
      assert.equal(of(hanging.restaurantId)?.error, timedOut);
      assert.equal(of(hanging.restaurantId)?.delivered_at, null);
      assert.ok((of(hanging.restaurantId)?.duration_ms ?? 0) >= timeoutMs - 10);
      assert.equal(of(fine.restaurantId)?.error, null);
      assert.ok(of(fine.restaurantId)?.delivered_at);
      return;
    }
  });
});

test('a reset connection is a failure; an endless 2xx body is a success, never read', async () => {
  const reset = await makeTenant(t.ctx, { livemode: false });
  const huge = await makeTenant(t.ctx, { livemode: false });
  const rp = path('reset');
  const hp = path('huge');
  await webhookFor(t, reset, `${receiver.base}${rp}`);
  await webhookFor(t, huge, `${receiver.base}${hp}`);
  await record(t, reset, 'order.created', undefined, { livemode: false });
  await record(t, huge, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  const rows = await t.database.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_delivery_attempts as a', (join) =>
      join.onRef('a.tenant_id', '=', 'd.tenant_id').onRef('a.delivery_id', '=', 'd.id'),
    )
    .select(['d.tenant_id', 'd.delivered_at', 'a.status_code', 'a.error'])
    .where('d.tenant_id', 'in', [reset.restaurantId, huge.restaurantId])
    .execute();
  const of = (id: string) => rows.find((row) => row.tenant_id === id);
  assert.equal(of(reset.restaurantId)?.delivered_at, null);
  assert.equal(of(reset.restaurantId)?.status_code, null);
  assert.ok(of(reset.restaurantId)?.error);
  assert.equal(of(huge.restaurantId)?.status_code, 200);
  assert.ok(of(huge.restaurantId)?.delivered_at);
});

test('two workers at once deliver each event once', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const p = path('ok');
  await webhookFor(t, tenant, `${receiver.base}${p}`);
  for (let i = 0; i < 30; i += 1) await record(t, tenant, 'order.created', undefined, { livemode: false });
  const second = t.database.url ? await openDatabase({ url: t.database.url }) : null;
  try {
    await Promise.all([
      runJob(t.database.db, t.clock),
      runJob(second?.db ?? t.database.db, t.clock),
      runJob(t.database.db, t.clock),
      runJob(second?.db ?? t.database.db, t.clock),
    ]);
    await runJob(t.database.db, t.clock);
  } finally {
    await second?.close();
  }
  const ids = at(p).map((r) => header(r, 'service-event-id'));
  assert.equal(ids.length, 30);
  assert.equal(new Set(ids).size, 30);
});
