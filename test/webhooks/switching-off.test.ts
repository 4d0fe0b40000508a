import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { issueAccessToken } from '../../src/domain/connections/access-tokens.ts';
import { createRestaurantWebhook } from '../../src/domain/webhooks/restaurant-webhooks.service.ts';
import { feedAll, idFor, record } from '../events/events-helpers.ts';
import { buildTestApp, call, json, makeTenant, signInTo, type Tenant, type TestApp } from '../harness.ts';
import { queuedEmails } from '../worker/queued-emails.ts';
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
/** A receiver path that is down until the test takes it out of `receiver.down`. */
function downPath(): string {
  serial += 1;
  const p = `/ok/down-${serial}`;
  receiver.down.add(p);
  return p;
}
const at = (p: string): Received[] => receiver.received.filter((r) => r.path === p);
const hour = 60 * 60 * 1000;

const webhookOf = (tenant: Tenant) =>
  t.database.db
    .selectFrom('webhooks')
    .selectAll()
    .where('app_id', '=', tenant.appId)
    .executeTakeFirstOrThrow();
const openDeliveries = (webhookId: string) =>
  t.database.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .where('next_attempt_at', 'is not', null)
    .execute();
const mailsTo = (email: string) => queuedEmails(t.database.db, { to: email });

async function developerEmail(tenant: Tenant): Promise<string> {
  const row = await t.database.db
    .selectFrom('apps as p')
    .innerJoin('accounts as a', 'a.id', 'p.developer_id')
    .select('a.email')
    .where('p.id', '=', tenant.appId)
    .executeTakeFirstOrThrow();
  return row.email;
}

/** Ten failed attempts now: ten events to a receiver that is down. */
async function tenFailures(tenant: Tenant): Promise<void> {
  for (let i = 0; i < 10; i += 1) await record(t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
}

test('10 failures in a row spanning 24 hours switch the webhook off: open deliveries skipped, developer e-mailed', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const p = downPath();
  await webhookFor(t, tenant, `${receiver.base}${p}`);
  const email = await developerEmail(tenant);
  const mailsBefore = (await mailsTo(email)).length;
  await tenFailures(tenant);
  t.clock.advance(23 * hour);
  await record(t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  assert.equal((await webhookOf(tenant)).enabled, true, 'failing for less than 24 hours');

  t.clock.advance(hour);
  await record(t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  const webhook = await webhookOf(tenant);
  assert.equal(webhook.enabled, false);
  assert.equal(webhook.disabled_at?.getTime(), t.clock.now().getTime());
  assert.match(webhook.disabled_reason ?? '', /in a row failed/);
  assert.deepEqual(await openDeliveries(webhook.id), [], 'open deliveries are skipped');
  const mails = (await mailsTo(email)).slice(mailsBefore);
  assert.equal(mails.length, 1);
  assert.match(mails[0]?.subject ?? '', /switched off/);
  assert.match(mails[0]?.body ?? '', new RegExp(`${receiver.base}${p}`));

  // Nothing is sent while it is off, not even events of later changes.
  receiver.down.delete(p);
  const sent = at(p).length;
  const missed = await record(t, tenant, 'order.paid', undefined, { livemode: false });
  t.clock.advance(48 * hour);
  await runJob(t.database.db, t.clock);
  assert.equal(at(p).length, sent);
  // … but every event stays in the feed.
  const { token } = await issueAccessToken(t.ctx, {
    tenantId: tenant.restaurantId,
    connectionId: tenant.connectionId,
    scopes: ['orders:read'],
  });
  const ids = (await feedAll(t, token)).map((e) => e.id);
  assert.ok(ids.includes(await idFor(t, tenant, missed)));

  // The developer switches it on in the console; new events flow, skipped ones can be resent.
  const cookie = await signInTo(t.app, 'console', email);
  const base = `/console/api/apps/${tenant.clientId}/webhook`;
  const enabled = await call(t.app, 'POST', `${base}/enable`, cookie, {});
  assert.equal(json(enabled).enabled, true);
  assert.equal(json(enabled).disabled_reason, null);
  await record(t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  assert.equal(at(p).length, sent + 1);
  const log = json(await call(t.app, 'GET', `${base}/deliveries?limit=100`, cookie)).data;
  const skipped = log.filter((d: { status: string }) => d.status === 'skipped');
  assert.equal(skipped.length, 12);
  const resent = await call(t.app, 'POST', `${base}/deliveries/${skipped[0].id}/resend`, cookie);
  assert.equal(json(resent).status, 'delivered');
});

test('a success ends the streak: failures count again from zero', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const p = downPath();
  await webhookFor(t, tenant, `${receiver.base}${p}`);
  await tenFailures(tenant);
  t.clock.advance(25 * hour);
  receiver.down.delete(p);
  await record(t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  receiver.down.add(p);
  await record(t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  const webhook = await webhookOf(tenant);
  assert.equal(webhook.enabled, true);
  assert.equal(webhook.failures_in_row, 1);
});

test('a restaurant’s own webhook switched off e-mails the restaurant’s owners', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const p = downPath();
  const { webhook } = await createRestaurantWebhook(
    { ...t.ctx, tenantId: tenant.restaurantId },
    {
      url: `${receiver.base}${p}`,
      events: ['order.*'],
      rules: { allowInsecure: true },
    },
  );
  const owner = await developerEmail(tenant); // makeTenant's developer owns the restaurant
  const mailsBefore = (await mailsTo(owner)).length;
  await tenFailures(tenant);
  t.clock.advance(24 * hour);
  await record(t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  const row = await t.database.db
    .selectFrom('webhooks')
    .selectAll()
    .where('id', '=', webhook.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.enabled, false);
  assert.deepEqual(await openDeliveries(webhook.id), []);
  const mails = (await mailsTo(owner)).slice(mailsBefore);
  assert.ok(
    mails.some((mail) => mail.tenant_id === tenant.restaurantId && /switched off/.test(mail.subject)),
  );
});

test('a receiver down for hours gets every event by the retries once it is back', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const p = downPath();
  await webhookFor(t, tenant, `${receiver.base}${p}`, ['order.*']);
  const expected: string[] = [];
  // Down for 6 hours, with an event every half hour and the worker running every minute.
  for (let minute = 0; minute < 6 * 60; minute += 1) {
    if (minute % 30 === 0)
      expected.push(
        await idFor(t, tenant, await record(t, tenant, 'order.created', undefined, { livemode: false })),
      );
    await runJob(t.database.db, t.clock);
    t.clock.advance(60 * 1000);
  }
  assert.equal((await webhookOf(tenant)).enabled, true, 'less than 24 hours of failures');
  receiver.down.delete(p);
  for (let step = 0; step < 24 * 6; step += 1) {
    await runJob(t.database.db, t.clock);
    t.clock.advance(10 * 60 * 1000);
  }
  const delivered = new Set(at(p).map((r) => JSON.parse(r.body).id));
  for (const id of expected) assert.ok(delivered.has(id), `${id} arrived`);
  const open = await t.database.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('tenant_id', '=', tenant.restaurantId)
    .where('delivered_at', 'is', null)
    .execute();
  assert.deepEqual(open, []);
});
