import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { type OrderingTenant, orderingTenant, place } from '../orders/order-helpers.ts';
import { eventually } from '../waiting.ts';
import { type ReplicatedCluster, startReplicatedCluster } from './private-postgres.ts';

/*
 * DATABASE_REPLICA_URL: the reports read the read replica, lag and all; the orders list reads it
 * only when it has replayed every write, else the server, so a new order is listed at once. A
 * replica whose replay is paused shows the reports as they were while the orders list (from the
 * server) has the new order; once it replays, the report has it too and the list is read there;
 * with the replica down both come from the server. The test makes its own server and replica
 * with this machine's PostgreSQL, so it runs where PostgreSQL does (DATABASE_URL set).
 */

test('DATABASE_REPLICA_URL is of a PostgreSQL server: it needs DATABASE_URL', () => {
  const replica = 'postgres://db-replica.internal/servery';
  assert.throws(() => loadConfig({ DATABASE_REPLICA_URL: replica }), ConfigError);
  const config = loadConfig({
    DATABASE_URL: 'postgres://db.internal/servery',
    DATABASE_REPLICA_URL: replica,
  });
  assert.equal(config.databaseReplicaUrl, replica);
  assert.equal(loadConfig({}).databaseReplicaUrl, null);
});

const skip = process.env.DATABASE_URL ? false : 'runs with PostgreSQL (DATABASE_URL set)';

describe('a read replica', { skip }, () => {
  let cluster: ReplicatedCluster;
  let t: TestApp;
  let tenant: OrderingTenant;
  before(async () => {
    cluster = await startReplicatedCluster();
    const database = await openDatabase({ url: cluster.url, replicaUrl: cluster.replicaUrl });
    await migrate(database);
    // The rate limits in Redis: in PostgreSQL each request would write, and the replica trail it.
    t = await buildTestApp({
      database: { ...database, url: cluster.url },
      config: { redisUrl: 'redis://127.0.0.1:6379' },
    });
    tenant = await orderingTenant(t);
  });
  after(async () => {
    await t?.close();
    await cluster?.close();
  });

  const today = () => t.clock.now().toISOString().slice(0, 10);
  const reported = async () => {
    const day = today();
    const sales = await ok(t, tenant.token, 'GET', `/reports/sales?from=${day}&to=${day}`);
    const products = await ok(t, tenant.token, 'GET', `/reports/products?from=${day}&to=${day}`);
    const pizzas = products.rows.find((row: { name: string }) => row.name === 'Pizza');
    return { orders: sales.totals.orders, pizzas: pizzas?.quantity ?? 0 };
  };
  const listed = async () => (await ok(t, tenant.token, 'GET', '/orders?limit=100')).data.length;

  test('the reports read the replica, the orders list the server', async () => {
    await place(t, tenant);
    await cluster.caughtUp();
    assert.deepEqual(await reported(), { orders: 1, pizzas: 2 });

    await cluster.pauseReplay();
    await place(t, tenant);
    assert.equal(await listed(), 2, 'the list reads the server');
    assert.deepEqual(await reported(), { orders: 1, pizzas: 2 }, 'the reports read the paused replica');

    await cluster.resumeReplay();
    await cluster.caughtUp();
    assert.deepEqual(await reported(), { orders: 2, pizzas: 4 });
  });

  test('the orders list reads the replica once it has replayed every write, else the server', async () => {
    /** The statement the replica ran last for the service (pg_stat_activity keeps each backend's last). */
    const lastOnReplica = async () => {
      const client = new pg.Client({ connectionString: cluster.replicaUrl });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT query FROM pg_stat_activity
          WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
          ORDER BY state_change DESC LIMIT 1`);
        return String(rows[0]?.query);
      } finally {
        await client.end();
      }
    };
    const listQuery = /"o"\."listed" = /;
    /**
     * Resolves once the caught-up replica serves the list: the list read twice (the first read
     * there also fills the replica's own caches of order texts and menu lookups, whose queries
     * would come last), and again as often as it takes, since the server now and then writes a
     * record of its own (a checkpoint, a snapshot for standbys) the replica then has to replay.
     */
    const servedByReplica = (orders: number) =>
      eventually('the caught-up replica serving the list', async () => {
        await cluster.caughtUp();
        assert.equal(await listed(), orders);
        assert.equal(await listed(), orders);
        return listQuery.test(await lastOnReplica());
      });
    await servedByReplica(2);

    await cluster.pauseReplay();
    await place(t, tenant);
    assert.equal(await listed(), 3, 'a replica behind the server does not serve the list');
    assert.doesNotMatch(await lastOnReplica(), listQuery);
    assert.match(await lastOnReplica(), /pg_last_wal_replay_lsn/, 'it was asked how far it had come');

    await cluster.resumeReplay();
    await servedByReplica(3); // caught up again, the replica serves the list again
  });

  test('with the replica down the reports and the list come from the server', async () => {
    await cluster.stopReplica();
    await place(t, tenant);
    assert.deepEqual(await reported(), { orders: 4, pizzas: 8 });
    assert.equal(await listed(), 4);
  });
});
