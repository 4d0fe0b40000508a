import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { stampAllEventPositions } from '../../src/domain/events/positions.ts';
import { fanOutDeliveries } from '../../src/domain/webhooks/delivery-fanout.ts';
import { record } from '../events/events-helpers.ts';
import { buildTestApp, makeTenant, type TestApp } from '../harness.ts';
import { eventually } from '../waiting.ts';
import { runJob, startReceiver, webhookFor } from './delivery-helpers.ts';

/*
 * A send's outcome whose write the database ends (here to break a deadlock) is written again
 * while the delivery's lease lasts: the delivery ends delivered after one send, not sent a second
 * time once the lease is over. The write meets the test's own connection: that has written the
 * log row of the delivery's send, not yet committed; the outcome's write (ending the webhook's
 * failure streak first) waits for it; then the test's connection asks for the webhook's row.
 * Needs a server: PGlite runs one connection at a time (DATABASE_URL set).
 */
const skip =
  process.env.DATABASE_URL && !process.env.CITUS_URL ? false : 'runs with PostgreSQL (DATABASE_URL set)';

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
before(async () => {
  if (skip) return;
  t = await buildTestApp({ config: { webhooksAllowInsecure: true } });
  receiver = await startReceiver();
});
after(async () => {
  await receiver?.close();
  await t?.close();
});

test('an outcome write the database ends in a deadlock is written again: one send, delivered', {
  skip,
}, async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const path = '/ok/outcome-rewrite';
  await webhookFor(t, tenant, `${receiver.base}${path}`);
  const webhook = await t.database.db
    .selectFrom('webhooks')
    .select('id')
    .where('url', '=', `${receiver.base}${path}`)
    .executeTakeFirstOrThrow();
  const other = new pg.Client({ connectionString: t.database.url ?? '' });
  await other.connect();
  // The sender's side looks for a deadlock 1 s after it starts waiting; on a machine too busy for
  // that, the other side finds it 3 s after it started waiting and is ended instead: then nothing
  // of the sender's broke, and the test makes the deadlock again with another event.
  await other.query("SET deadlock_timeout = '3s'");
  try {
    for (let round = 1; ; round++) {
      // A failure streak running: the success's write changes the webhook's row first.
      await t.database.db
        .updateTable('webhooks')
        .set({ failures_in_row: 1 })
        .where('id', '=', webhook.id)
        .execute();
      await record(t, tenant, 'store.updated', undefined, { livemode: false });
      await stampAllEventPositions(t.database.db);
      await fanOutDeliveries(t.database.db, t.clock);
      const delivery = await t.database.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('webhook_id', '=', webhook.id)
        .where('delivered_at', 'is', null)
        .executeTakeFirstOrThrow();
      await other.query('BEGIN');
      // The other transaction writes the log row the outcome's write is to write (its first send's).
      await other.query(
        `INSERT INTO webhook_delivery_attempts (tenant_id, delivery_id, attempt, started_at, duration_ms)
         VALUES ($1, $2, 1, now(), 0)`,
        [tenant.restaurantId, delivery.id],
      );
      const run = runJob(t.database.db, t.clock);
      await eventually('the outcome’s write waits for the other’s log row', async () => {
        const waiting = await other.query(
          `SELECT 1 FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
        );
        return waiting.rowCount === 1;
      });
      // Now the other transaction asks for the webhook's row the write holds: a deadlock.
      const otherEnded = await other
        .query('SELECT 1 FROM webhooks WHERE id = $1 FOR UPDATE', [webhook.id])
        .then(
          () => false,
          (error: { code?: string }) => {
            assert.equal(error.code, '40P01');
            return true;
          },
        );
      await other.query('ROLLBACK');
      await run;
      const sent = receiver.received.filter((r) => r.path === path);
      assert.equal(sent.length, round, 'each event sent once');
      if (otherEnded) continue;
      const written = await t.database.db
        .selectFrom('webhook_deliveries')
        .select(['delivered_at', 'sends'])
        .where('id', '=', delivery.id)
        .executeTakeFirstOrThrow();
      assert.ok(written.delivered_at, 'the outcome was written: delivered');
      assert.equal(written.sends, 1);
      const attempts = await t.database.db
        .selectFrom('webhook_delivery_attempts')
        .select('status_code')
        .where('delivery_id', '=', delivery.id)
        .execute();
      assert.deepEqual(attempts, [{ status_code: 200 }]);
      const streak = await t.database.db
        .selectFrom('webhooks')
        .select('failures_in_row')
        .where('id', '=', webhook.id)
        .executeTakeFirstOrThrow();
      assert.equal(streak.failures_in_row, 0, 'the success ended the streak');
      break;
    }
  } finally {
    await other.end();
  }
});
