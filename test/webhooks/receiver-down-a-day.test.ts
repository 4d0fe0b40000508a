/*
 * Issue 17, "a webhook receiver down for a day": the app's receiver refuses every delivery for 24
 * hours of the test's clock while the restaurant keeps changing, then comes back. The retries
 * (spec: 8 attempts over about 44 hours) deliver every event once it is back, each once, and the
 * app that also polls gets every event from its last cursor in order. A receiver down longer,
 * with events still coming, gets its webhook switched off after 24 hours: GET /v1/events from the
 * last cursor still returns every event. (switching-off.test.ts holds the switch-off's own rules.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { scopes } from '../../src/domain/shared/scopes.ts';
import { feed, feedAll, idFor, record } from '../events/events-helpers.ts';
import { buildTestApp, makeTenant, type Tenant, type TestApp, tokenFor } from '../harness.ts';
import { runJob, startReceiver, webhookFor } from './delivery-helpers.ts';

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

const minute = 60 * 1000;
const hour = 60 * minute;
/** The worker's webhook job runs this often in the test's time (far more often in production). */
const workerEveryMs = 20 * minute;

/** A test restaurant whose app has a webhook for order events at a path of its own, and the app's cursor. */
async function polledAndPushed(path: string): Promise<{ tenant: Tenant; cursor: string }> {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  await webhookFor(t, tenant, `${receiver.base}${path}`, ['order.*']);
  // One event before the outage, delivered and fetched: the app's cursor is past it.
  await record(t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  const { next_after } = await feed(t, tenant.token, '?types=order.*');
  return { tenant, cursor: next_after };
}

/** `hours` of the test's clock, an event at the start of each hour, the worker every 20 minutes; the events' ids. */
async function hoursOfEvents(tenant: Tenant, hours: number): Promise<string[]> {
  const ids: string[] = [];
  for (let elapsed = 0; elapsed < hours * hour; elapsed += workerEveryMs) {
    if (elapsed % hour === 0)
      ids.push(
        await idFor(t, tenant, await record(t, tenant, 'order.created', undefined, { livemode: false })),
      );
    await runJob(t.database.db, t.clock);
    t.clock.advance(workerEveryMs);
  }
  return ids;
}

const webhookOf = (tenant: Tenant) =>
  t.database.db
    .selectFrom('webhooks')
    .selectAll()
    .where('app_id', '=', tenant.appId)
    .executeTakeFirstOrThrow();

test('a receiver down for 24 hours gets every event by the retries once it is back, each once; GET /v1/events catches up in order', async () => {
  const path = '/ok/down-a-day';
  const { tenant, cursor } = await polledAndPushed(path);
  receiver.down.add(path);
  const downSince = receiver.received.length;
  const expected = await hoursOfEvents(tenant, 24);
  const refused = receiver.received.slice(downSince).filter((r) => r.path === path);
  assert.ok(refused.length >= 24 * 3, `${refused.length} attempts refused during the day`);
  assert.equal((await webhookOf(tenant)).enabled, true, 'failures spanning less than 24 hours');

  receiver.down.delete(path);
  const backSince = receiver.received.length;
  // The retries' last wait is 24 hours: a day more delivers everything.
  for (let elapsed = 0; elapsed < 24 * hour; elapsed += workerEveryMs) {
    await runJob(t.database.db, t.clock);
    t.clock.advance(workerEveryMs);
  }
  const delivered = receiver.received
    .slice(backSince)
    .filter((r) => r.path === path)
    .map((r) => JSON.parse(r.body).id as string);
  assert.deepEqual([...delivered].sort(), [...expected].sort(), 'every event delivered, each once');
  const open = await t.database.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('tenant_id', '=', tenant.restaurantId)
    .where('delivered_at', 'is', null)
    .execute();
  assert.deepEqual(open, []);
  assert.equal((await webhookOf(tenant)).enabled, true);

  // The app that polls too (with an access token refreshed meanwhile): from its last cursor,
  // every event of the day, in order.
  const caughtUp = await feedAll(t, await tokenFor(t.ctx, tenant, scopes), `&types=order.*&after=${cursor}`);
  assert.deepEqual(
    caughtUp.map((event) => event.id),
    expected,
  );
});

test('a receiver down longer, with events still coming: the webhook is switched off after 24 hours and GET /v1/events returns every event from the last cursor', async () => {
  const path = '/ok/down-for-good';
  const { tenant, cursor } = await polledAndPushed(path);
  receiver.down.add(path);
  const expected = await hoursOfEvents(tenant, 30);
  assert.equal((await webhookOf(tenant)).enabled, false, 'switched off');
  const caughtUp = await feedAll(t, await tokenFor(t.ctx, tenant, scopes), `&types=order.*&after=${cursor}`);
  assert.deepEqual(
    caughtUp.map((event) => event.id),
    expected,
  );
});
