import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { citusUrl } from '../citus-cluster.ts';
import {
  bearer,
  buildTestApp,
  distributedTestDatabase,
  makeTenant,
  type Tenant,
  type TestApp,
} from '../harness.ts';
import { eventually } from '../waiting.ts';

/*
 * A worker node stopped under load (docs/performance.md, "A worker node down"). The test starts a
 * cluster of its own (stopping a node of the shared one would fail the other files' tests): two
 * restaurants whose shards are on different workers are read and written while one worker stops
 * and comes back. What it measures is printed, not asserted: the time to the first refusal and to
 * the first answer after the return.
 */

const run = promisify(execFile);
const clusterScript = new URL('../../../shared/tools/citus/cluster.sh', import.meta.url).pathname;
const pgBin = async () =>
  path.dirname(
    (await run('bash', ['-c', 'ls -d /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -n 1'])).stdout.trim(),
  );

/** A port whose next two are free too (the coordinator and its two workers). */
async function freePorts(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const taken = await Promise.all(
      [0, 1, 2].map((i) =>
        run('pg_isready', ['-h', '127.0.0.1', '-p', String(port + i), '-q']).then(
          () => true,
          (error: { code?: number }) => error.code !== 2,
        ),
      ),
    );
    if (!taken.some(Boolean)) return port;
  }
}

describe('a worker node stopped under load', {
  skip: citusUrl ? false : 'needs CITUS_URL (a Citus cluster)',
}, () => {
  let dir: string;
  let port: number;
  let t: TestApp;
  let onOther: Tenant;
  let onStopped: Tenant;
  let stoppedNode: string;

  const pgCtl = async (...args: string[]) =>
    run('runuser', ['-u', 'postgres', '--', path.join(await pgBin(), 'pg_ctl'), ...args]);

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'servery-citus-down-'));
    chmodSync(dir, 0o755); // the cluster's servers run as the postgres user
    port = await freePorts();
    const started = await run(clusterScript, ['start', path.join(dir, 'cluster'), String(port)]);
    const url = started.stdout.trim().split('\n').at(-1) as string;
    t = await buildTestApp({ database: await distributedTestDatabase(url) });
    // Restaurants until one lives on each worker.
    const byPort = new Map<number, Tenant>();
    while (byPort.size < 2) {
      const tenant = await makeTenant(t.ctx);
      const { rows } = await sql<{ port: number }>`
        SELECT n.nodeport AS port FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid
        WHERE p.shardid = get_shard_id_for_distribution_column('orders', ${tenant.restaurantId}::uuid)`.execute(
        t.database.db,
      );
      byPort.set(rows[0]?.port as number, tenant);
    }
    onOther = byPort.get(port + 1) as Tenant;
    onStopped = byPort.get(port + 2) as Tenant;
    stoppedNode = path.join(dir, 'cluster', 'node2');
  });

  after(async () => {
    // A failed test may leave the node stopped: started again, the database can be dropped.
    if (
      stoppedNode &&
      (await pgCtl('-D', stoppedNode, 'status').then(
        () => false,
        () => true,
      ))
    )
      await pgCtl('-D', stoppedNode, '-l', `${stoppedNode}.log`, '-w', 'start');
    await t?.close();
    if (dir) await run(clusterScript, ['stop', path.join(dir, 'cluster')]);
  });

  test('the other worker’s restaurants go on, the stopped one’s get 500 at once, all is back after the return; no write is half done', async () => {
    const product = async (tenant: Tenant) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/menu/products',
        headers: bearer(tenant.token),
        payload: { name: 'Margherita', price: 900 },
      });
    const made = await product(onOther);
    assert.equal(made.statusCode, 201, made.body);
    const productId = made.json().id as string;

    // Load: guests reading each restaurant's storefront (store and menu, by its slug) over and
    // over, every answer kept.
    const slugOf = async (tenant: Tenant) =>
      (
        await t.database.db
          .selectFrom('restaurants')
          .select('slug')
          .where('id', '=', tenant.restaurantId)
          .executeTakeFirstOrThrow()
      ).slug;
    const [otherSlug, stoppedSlug] = [await slugOf(onOther), await slugOf(onStopped)];
    const answers = { other: [] as number[], stopped: [] as { at: number; status: number; code?: string }[] };
    let loading = true;
    const load = async () => {
      while (loading) {
        const [other, stopped] = await Promise.all([
          t.app.inject({ url: `/s/${otherSlug}/api/store` }),
          t.app.inject({ url: `/s/${stoppedSlug}/api/store` }),
        ]);
        answers.other.push(other.statusCode);
        answers.stopped.push({
          at: performance.now(),
          status: stopped.statusCode,
          code: stopped.statusCode === 200 ? undefined : stopped.json().error?.code,
        });
      }
    };
    const loading$ = [load(), load()];
    await eventually('answers before the stop', () => answers.stopped.length > 20);

    const stoppedAt = performance.now();
    await pgCtl('-D', stoppedNode, '-m', 'immediate', '-w', 'stop');
    const refused = await eventually('a refusal for the stopped worker’s restaurant', () =>
      answers.stopped.find((answer) => answer.at > stoppedAt && answer.status !== 200),
    );
    assert.equal(refused.status, 500);
    assert.equal(refused.code, 'server_error');
    const firstRefusalMs = refused.at - stoppedAt;

    // While it is down: the other worker's restaurant reads and writes; a write that must reach
    // every node (a product's deletion counts in `restaurants`, a table on every node) is refused
    // whole.
    const otherBefore = answers.other.length;
    await eventually(
      'reads of the other restaurant meanwhile',
      () => answers.other.length > otherBefore + 20,
    );
    const stillWrites = await product(onOther);
    assert.equal(stillWrites.statusCode, 201, stillWrites.body);
    const removals = async () =>
      (
        await t.database.db
          .selectFrom('restaurants')
          .select('product_removals')
          .where('id', '=', onOther.restaurantId)
          .executeTakeFirstOrThrow()
      ).product_removals;
    const removalsBefore = await removals();
    const deletion = await t.app.inject({
      method: 'DELETE',
      url: `/v1/menu/products/${productId}`,
      headers: bearer(onOther.token),
    });
    assert.equal(deletion.statusCode, 500, deletion.body);

    const startedAt = performance.now();
    await pgCtl('-D', stoppedNode, '-l', `${stoppedNode}.log`, '-w', 'start');
    const readyAt = performance.now();
    const back = await eventually('the stopped worker’s restaurant answering again', () =>
      answers.stopped.find((answer) => answer.at > readyAt && answer.status === 200),
    );
    loading = false;
    await Promise.all(loading$);
    assert.deepEqual(
      answers.other.filter((status) => status !== 200),
      [],
      'every answer for the other worker’s restaurant was 200',
    );

    // Nothing of the refused deletion is anywhere: the product and the count on every node.
    const kept = await t.app.inject({
      url: `/v1/menu/products/${productId}`,
      headers: bearer(onOther.token),
    });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.equal(await removals(), removalsBefore);
    const onEveryNode = await sql<{ result: string }>`
      SELECT result FROM run_command_on_placements('restaurants',
        ${`SELECT product_removals FROM %s WHERE id = '${onOther.restaurantId}'`})`.execute(t.database.db);
    assert.ok(onEveryNode.rows.length >= 3, 'a copy on the coordinator and each worker');
    assert.deepEqual(new Set(onEveryNode.rows.map((row) => row.result)), new Set([String(removalsBefore)]));
    console.log(
      `worker down: first 500 after ${firstRefusalMs.toFixed(0)} ms; node started in ${(readyAt - startedAt).toFixed(0)} ms, ` +
        `first 200 ${(back.at - readyAt).toFixed(0)} ms after it was ready; ${answers.other.length} reads of the other restaurant, all 200`,
    );
  });
});
