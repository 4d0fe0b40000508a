import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { emailTransport } from '../../src/worker/email-transport.ts';
import { jobs } from '../../src/worker/worker.ts';
import { buildTestApp, makeTenant, type TestApp } from '../harness.ts';
import { runJob as runWebhookJob } from '../webhooks/delivery-helpers.ts';
import { feed, record } from './events-helpers.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const day = 24 * 3600 * 1000;
const log = pino({ level: 'silent' });
async function runJob(name: string): Promise<void> {
  const job = jobs.find((candidate) => candidate.name === name);
  assert.ok(job, name);
  await job.run(t.database.db, t.clock, {
    log,
    emailTransport: emailTransport({ smtpUrl: null, mailFrom: 'x@example.test' }, log),
  });
}

test('the worker stamps positions (its webhook job, first thing): events committed get one, in id order', async () => {
  const tenant = await makeTenant(t.ctx);
  await record(t, tenant, 'order.created');
  await record(t, tenant, 'order.paid');
  const unstamped = () =>
    t.database.db.selectFrom('events').select('id').where('position', 'is', null).execute();
  assert.ok((await unstamped()).length >= 2);
  await runWebhookJob(t.database.db, t.clock);
  assert.deepEqual(await unstamped(), []);
  const rows = await t.database.db
    .selectFrom('events')
    .select(['id', 'position'])
    .where('tenant_id', '=', tenant.restaurantId)
    .orderBy('id')
    .execute();
  const positions = rows.map((row) => Number(row.position));
  assert.deepEqual(
    positions,
    [...positions].sort((a, b) => a - b),
  );
});

test('events and their envelopes are purged once 30 days old, younger ones kept', async () => {
  const tenant = await makeTenant(t.ctx);
  const old = await record(t, tenant, 'order.created');
  t.clock.advance(1);
  const young = await record(t, tenant, 'order.created');
  await feed(t, tenant.token); // builds the envelopes
  const envelopes = () =>
    t.database.db
      .selectFrom('event_envelopes')
      .select('position')
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
  assert.equal((await envelopes()).length, 3); // app.connected and the two orders
  t.clock.advance(30 * day - 1);
  await runJob('purge events past retention');
  const left = await t.database.db
    .selectFrom('events')
    .select('id')
    .where('tenant_id', '=', tenant.restaurantId)
    .execute();
  assert.deepEqual(
    left.map((row) => row.id),
    [young],
  );
  assert.notEqual(old, young);
  assert.equal((await envelopes()).length, 1);
  t.clock.advance(-(30 * day));
});
