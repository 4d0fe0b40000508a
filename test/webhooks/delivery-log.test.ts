import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { recordEvent } from '../../src/domain/events/events.store.ts';
import { createRestaurantWebhook } from '../../src/domain/webhooks/restaurant-webhooks.service.ts';
import { feedAll, idFor, record } from '../events/events-helpers.ts';
import {
  bearer,
  buildTestApp,
  call,
  developerSession,
  json,
  makeTenant,
  newAccount,
  signInTo,
  type Tenant,
  type TestApp,
} from '../harness.ts';
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
function path(kind: 'ok' | 'fail'): string {
  serial += 1;
  return `/${kind}/log-${serial}`;
}
const at = (p: string): Received[] => receiver.received.filter((r) => r.path === p);
const header = (r: Received, name: string) => r.headers[name] as string;
const minute = 60 * 1000;

function verify(r: Received, secret: string): void {
  const stripeSignature = Stripe.webhooks.signature;
  assert.ok(stripeSignature);
  const now = Math.floor(t.clock.now().getTime() / 1000);
  stripeSignature.verifyHeader(r.body, header(r, 'service-signature'), secret, 300, undefined, now);
}

const logUrl = (tenant: Tenant) => `/console/api/apps/${tenant.clientId}/webhook`;

describe('the app’s delivery log in the console', () => {
  test('lists deliveries newest first with their attempts; pages with cursors; one by id', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const p = path('ok');
    await webhookFor(t, tenant, `${receiver.base}${p}`);
    const first = await record(t, tenant, 'order.created', undefined, { livemode: false });
    const second = await record(t, tenant, 'order.paid', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const cookie = await developerSession(t, tenant, 'console');
    const page = json(await call(t.app, 'GET', `${logUrl(tenant)}/deliveries?limit=1`, cookie));
    assert.equal(page.has_more, true);
    const [newest] = page.data;
    assert.equal(newest.event_id, await idFor(t, tenant, second));
    assert.equal(newest.event_type, 'order.paid');
    assert.equal(newest.status, 'delivered');
    assert.equal(newest.scheduled_attempts, 1);
    assert.equal(newest.event.id, newest.event_id);
    assert.equal(newest.attempts.length, 1);
    assert.equal(newest.attempts[0].attempt, 1);
    assert.equal(newest.attempts[0].status_code, 200);
    assert.equal(newest.attempts[0].error, null);
    const rest = json(
      await call(t.app, 'GET', `${logUrl(tenant)}/deliveries?limit=1&cursor=${page.next_cursor}`, cookie),
    );
    assert.equal(rest.has_more, false);
    assert.equal(rest.next_cursor, null);
    assert.equal(rest.data[0].event_id, await idFor(t, tenant, first));
    const one = await call(t.app, 'GET', `${logUrl(tenant)}/deliveries/${newest.id}`, cookie);
    assert.equal(one.statusCode, 200);
    assert.deepEqual(json(one), newest);

    const unknown = await call(t.app, 'GET', `${logUrl(tenant)}/deliveries/not-an-id`, cookie);
    assert.equal(unknown.statusCode, 404);
    const badCursor = await call(t.app, 'GET', `${logUrl(tenant)}/deliveries?cursor=x`, cookie);
    assert.equal(badCursor.statusCode, 400);
    assert.equal(json(badCursor).error.param, 'cursor');
    const stranger = await newAccount(t, true);
    const theirs = await signInTo(t.app, 'console', stranger.email);
    const foreign = await call(t.app, 'GET', `${logUrl(tenant)}/deliveries`, theirs);
    assert.equal(foreign.statusCode, 404);
    const foreignOne = await call(t.app, 'GET', `${logUrl(tenant)}/deliveries/${newest.id}`, theirs);
    assert.equal(foreignOne.statusCode, 404);
  });

  test('resend: same envelope and id, fresh signature, the attempt number goes on, not one of the 8', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const p = path('ok');
    const secret = await webhookFor(t, tenant, `${receiver.base}${p}`);
    receiver.down.add(p);
    await record(t, tenant, 'order.created', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const cookie = await developerSession(t, tenant, 'console');
    const [delivery] = json(await call(t.app, 'GET', `${logUrl(tenant)}/deliveries`, cookie)).data;
    assert.equal(delivery.status, 'pending');
    const scheduledAt = delivery.next_attempt_at;

    t.clock.advance(10 * 1000);
    const failed = await call(t.app, 'POST', `${logUrl(tenant)}/deliveries/${delivery.id}/resend`, cookie);
    assert.equal(failed.statusCode, 200, failed.body);
    assert.equal(json(failed).status, 'pending');
    assert.equal(json(failed).scheduled_attempts, 1, 'a resend is not one of the 8');
    assert.equal(json(failed).next_attempt_at, scheduledAt, 'a failed resend moves no attempt');
    assert.deepEqual(
      json(failed).attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code]),
      [
        [1, 503],
        [2, 503],
      ],
    );

    // The next scheduled attempt is number 3; the receiver is back for the one after.
    t.clock.advance(minute);
    await runJob(t.database.db, t.clock);
    receiver.down.delete(p);
    const resent = await call(t.app, 'POST', `${logUrl(tenant)}/deliveries/${delivery.id}/resend`, cookie);
    assert.equal(json(resent).status, 'delivered');
    assert.equal(json(resent).scheduled_attempts, 2);
    assert.equal(json(resent).next_attempt_at, null);
    const sent = at(p);
    assert.deepEqual(
      sent.map((r) => header(r, 'service-delivery-attempt')),
      ['1', '2', '3', '4'],
    );
    assert.equal(new Set(sent.map((r) => r.body)).size, 1, 'the same envelope every time');
    assert.ok(sent.every((r) => header(r, 'service-event-id') === delivery.event_id));
    assert.notEqual(
      header(sent[0] as Received, 'service-signature'),
      header(sent[3] as Received, 'service-signature'),
    );
    for (const r of sent) verify(r, secret);
    t.clock.advance(60 * minute);
    await runJob(t.database.db, t.clock);
    assert.equal(at(p).length, 4, 'a delivered delivery has no attempt left');
  });

  test('test events: ping and any type, livemode false and data.test true, never in the feed', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const p = path('ok');
    const secret = await webhookFor(t, tenant, `${receiver.base}${p}`, ['order.created']);
    const cookie = await developerSession(t, tenant, 'console');
    const ping = await call(t.app, 'POST', `${logUrl(tenant)}/test`, cookie, { type: 'ping' });
    assert.equal(ping.statusCode, 200, ping.body);
    assert.equal(json(ping).status, 'delivered');
    const [got] = at(p);
    assert.ok(got);
    verify(got, secret);
    const envelope = JSON.parse(got.body);
    assert.equal(envelope.type, 'ping');
    assert.equal(envelope.livemode, false);
    assert.equal(envelope.connection_id, tenant.connectionId);
    assert.equal(envelope.tenant_id, tenant.restaurantId);
    assert.deepEqual(envelope.data, { object: null, test: true });
    assert.equal(header(got, 'service-event-id'), envelope.id);
    assert.equal(json(ping).event_id, envelope.id);

    // Any type, even one the webhook does not select; data from the restaurant's newest such event.
    const object = { object: 'reservation', id: 'res_1', status: 'confirmed' };
    await record(t, tenant, 'reservation.created', { object }, { livemode: false });
    const typed = await call(t.app, 'POST', `${logUrl(tenant)}/test`, cookie, {
      type: 'reservation.created',
    });
    assert.equal(json(typed).status, 'delivered');
    const sample = JSON.parse((at(p)[1] as Received).body);
    assert.equal(sample.type, 'reservation.created');
    assert.deepEqual(sample.data, { object, test: true });

    const fromFeed = await feedAll(t, tenant.token);
    assert.ok(fromFeed.every((e) => e.type !== 'ping' && !('test' in e.data)));
    const direct = await t.app.inject({
      method: 'GET',
      url: `/v1/events/${envelope.id}`,
      headers: bearer(tenant.token),
    });
    assert.equal(direct.statusCode, 404);
    await runJob(t.database.db, t.clock);
    assert.equal(at(p).length, 2, 'test events are not fanned out');

    const unknown = await call(t.app, 'POST', `${logUrl(tenant)}/test`, cookie, { type: 'order.eaten' });
    assert.equal(unknown.statusCode, 400);
    assert.equal(json(unknown).error.param, 'type');
  });

  test('test events need a connection to a test restaurant', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: true });
    await webhookFor(t, tenant, 'https://93.184.216.34/hooks');
    const cookie = await developerSession(t, tenant, 'console');
    const refused = await call(t.app, 'POST', `${logUrl(tenant)}/test`, cookie, { type: 'ping' });
    assert.equal(refused.statusCode, 400);
    assert.equal(json(refused).error.code, 'invalid_request');
  });

  test('resends and test events together: at most 10 a minute per app', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const p = path('ok');
    await webhookFor(t, tenant, `${receiver.base}${p}`);
    await record(t, tenant, 'order.created', undefined, { livemode: false });
    await runJob(t.database.db, t.clock);
    const cookie = await developerSession(t, tenant, 'console');
    const [delivery] = json(await call(t.app, 'GET', `${logUrl(tenant)}/deliveries`, cookie)).data;
    for (let i = 0; i < 5; i += 1) {
      const resend = await call(t.app, 'POST', `${logUrl(tenant)}/deliveries/${delivery.id}/resend`, cookie);
      assert.equal(resend.statusCode, 200);
      const ping = await call(t.app, 'POST', `${logUrl(tenant)}/test`, cookie, { type: 'ping' });
      assert.equal(ping.statusCode, 200);
    }
    const sentBefore = at(p).length;
    const refused = await call(t.app, 'POST', `${logUrl(tenant)}/test`, cookie, { type: 'ping' });
    assert.equal(refused.statusCode, 429);
    assert.equal(json(refused).error.code, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    const alsoRefused = await call(
      t.app,
      'POST',
      `${logUrl(tenant)}/deliveries/${delivery.id}/resend`,
      cookie,
    );
    assert.equal(alsoRefused.statusCode, 429);
    assert.equal(at(p).length, sentBefore, 'nothing sent beyond the limit');
  });
});

test('deleting the webhook deletes its log; the events stay in the feed', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const p = path('ok');
  await webhookFor(t, tenant, `${receiver.base}${p}`);
  const outboxId = await record(t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  const cookie = await developerSession(t, tenant, 'console');
  const [delivery] = json(await call(t.app, 'GET', `${logUrl(tenant)}/deliveries`, cookie)).data;
  assert.ok(delivery);
  const deleted = await call(t.app, 'DELETE', logUrl(tenant), cookie);
  assert.equal(deleted.statusCode, 204);
  const left = await t.database.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('id', '=', delivery.id)
    .execute();
  const attempts = await t.database.db
    .selectFrom('webhook_delivery_attempts')
    .select('attempt')
    .where('delivery_id', '=', delivery.id)
    .execute();
  assert.deepEqual([left, attempts], [[], []]);
  const ids = (await feedAll(t, tenant.token)).map((e) => e.id);
  assert.ok(ids.includes(await idFor(t, tenant, outboxId)));
});

describe('a restaurant’s own webhook', () => {
  test('gets the restaurant’s events with connection_id null under ids of its own, never app.*', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const appPath = path('ok');
    await webhookFor(t, tenant, `${receiver.base}${appPath}`, ['*']);
    const own = [path('ok'), path('ok')];
    const created: Array<{ webhook: { id: string }; secret: string }> = [];
    for (const p of own) {
      created.push(
        await createRestaurantWebhook(
          { ...t.ctx, tenantId: tenant.restaurantId },
          {
            url: `${receiver.base}${p}`,
            events: ['*'],
            rules: { allowInsecure: true },
          },
        ),
      );
    }
    const outboxId = await record(t, tenant, 'order.created', undefined, { livemode: false });
    await t.database.db.transaction().execute((trx) =>
      recordEvent(
        { ...t.ctx, db: trx },
        {
          tenantId: tenant.restaurantId,
          type: 'app.scopes_changed',
          connectionId: tenant.connectionId,
          livemode: false,
          data: { object: { object: 'connection', id: tenant.connectionId }, previous_scopes: [] },
        },
      ),
    );
    await runJob(t.database.db, t.clock);
    const connectionsId = await idFor(t, tenant, outboxId);
    const ids = new Set([connectionsId]);
    own.forEach((p, i) => {
      const received = at(p);
      assert.equal(received.length, 1, 'no app.* event');
      const [got] = received;
      assert.ok(got);
      const envelope = JSON.parse(got.body);
      assert.equal(envelope.type, 'order.created');
      assert.equal(envelope.connection_id, null);
      assert.equal(header(got, 'service-event-id'), envelope.id);
      assert.equal(envelope.id.slice(0, 20), connectionsId.slice(0, 20), 'the same change');
      ids.add(envelope.id);
      verify(got, created[i]?.secret as string);
    });
    assert.equal(ids.size, 3, 'each audience sees the event under an id of its own');
    const appTypes = at(appPath).map((r) => header(r, 'service-event-type'));
    assert.ok(appTypes.includes('order.created') && appTypes.includes('app.scopes_changed'));

    const cookie = await developerSession(t, tenant, 'dashboard');
    const webhookId = created[0]?.webhook.id;
    const logUrlOwn = `/dashboard/api/restaurants/${tenant.restaurantId}/webhooks/${webhookId}`;
    const log = json(await call(t.app, 'GET', `${logUrlOwn}/deliveries`, cookie));
    assert.equal(log.data.length, 1);
    assert.equal(log.data[0].event.connection_id, null);
    const resent = await call(t.app, 'POST', `${logUrlOwn}/deliveries/${log.data[0].id}/resend`, cookie);
    assert.equal(json(resent).attempts.length, 2);
    assert.equal((at(own[0] as string)[1] as Received).body, (at(own[0] as string)[0] as Received).body);
    const appType = await call(t.app, 'POST', `${logUrlOwn}/test`, cookie, { type: 'app.connected' });
    assert.equal(appType.statusCode, 400);
    const ping = await call(t.app, 'POST', `${logUrlOwn}/test`, cookie, { type: 'ping' });
    assert.equal(json(ping).status, 'delivered');
    assert.equal(json(ping).event.connection_id, null);
  });
});
