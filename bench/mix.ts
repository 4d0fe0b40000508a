/*
 * A realistic mix under load for a long run (alone with `--only mix`; `--duration` is the whole
 * run, e.g. 600 for issue 17's ten minutes), on a fresh PostgreSQL database, everything at once:
 * - guests ordering on the storefront (POST /s/{slug}/api/orders, 4 connections);
 * - apps polling the orders list (GET /v1/orders?updated_since=…&limit=25, 8 connections) and
 *   the events feed (GET /v1/events?limit=100, 4 connections);
 * - an app syncing its menu (PUT /v1/menu, merge of 60 products whose prices change, 1 connection);
 * - webhook deliveries by a worker process (serve --role worker) to a receiver on 127.0.0.1, of
 *   the order events of a test restaurant where developers place test orders (5 a second, in
 *   this process; a live restaurant's webhooks would need https);
 * - a bare route serving the bytes of the orders list (8 connections), the baseline of the ratios.
 * Each endpoint's p50/p99 come from its own autocannon instance, all in the load generator's
 * process. The server (in this process) samples its heap every 5 s: memory must stay flat.
 * Afterwards every order event must have reached the receiver, none twice.
 * With CITUS_URL set the same mix runs again on a database of that Citus cluster (bench/run.ts
 * prints the two side by side): its second worker is emptied before the load
 * (`citus_drain_node`) and filled again by a rebalance a third of the way into it
 * (`citus_rebalance_start`), which must fail no request.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import type { Db } from '../src/db/client.ts';
import { OrderSchema } from '../src/domain/orders/order.schema.ts';
import { placeTestOrder } from '../src/domain/orders/test-order.service.ts';
import { type Ctx, systemCtx } from '../src/domain/shared/context.ts';
import { setAppWebhook } from '../src/domain/webhooks/app-webhook.service.ts';
import { ListOf } from '../src/http/shared/pagination.ts';
import { makeTenant } from '../test/harness.ts';
import { type BenchApp, closeBoth, listenWithBareRoute } from './bare-route.ts';
import { openBenchDatabase, openCitusBenchDatabase } from './databases.ts';
import { alignColumns, percentile } from './figures.ts';
import type { LoadJob, LoadResult } from './load.ts';
import { orderingMenu } from './orders.ts';
import type { LoadRunner } from './rounds.ts';
import { startWorker, stopWorker } from './webhooks.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const barePath = '/bench/mix-orders-bare';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long after the load the worker has to deliver what is left. */
const drainMs = 120_000;

/** Receives webhooks: each event id's deliveries counted. */
async function startCounter() {
  const deliveries = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(204).end();
      const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id;
      deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    deliveries,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The app's menu sync: 60 products in 6 categories, every price shifted by `shift`. */
function syncBody(shift: number): string {
  return JSON.stringify({
    mode: 'merge',
    categories: Array.from({ length: 6 }, (_, i) => ({ external_id: `cat-${i}`, name: `Category ${i}` })),
    products: Array.from({ length: 60 }, (_, i) => ({
      external_id: `prod-${i}`,
      name: `Product ${i}`,
      category_external_id: `cat-${i % 6}`,
      price: 500 + i * 10 + shift,
    })),
  });
}

/** Heap samples of this process (the API server): every 5 s while `running()`. */
function sampleHeap(running: () => boolean): Promise<number[]> {
  const samples: number[] = [];
  return (async () => {
    while (running()) {
      samples.push(process.memoryUsage().heapUsed);
      await sleep(5_000);
    }
    return samples;
  })();
}

/**
 * Statistics as autovacuum keeps them on a production server: the tables start empty and grow by
 * thousands of rows, and without statistics the planner keeps the plans of empty tables (the
 * events feed joined every event of the restaurant before its limit). A PostgreSQL running
 * without autovacuum (this machine's) gets an ANALYZE every 30 s while `running()`.
 */
async function analyzeWhile(db: Db, running: () => boolean): Promise<void> {
  const setting = await sql<{ autovacuum: string }>`SHOW autovacuum`.execute(db);
  if (setting.rows[0]?.autovacuum === 'on') return;
  while (running()) {
    await sleep(30_000);
    if (running()) await sql`ANALYZE`.execute(db);
  }
}

/**
 * Developers' test orders in the test restaurant, 5 a second while `running()`: the webhooks'
 * events. One that fails (no connection free in time under the load) is a failure of the run.
 */
async function placeTestOrders(ctx: Ctx, running: () => boolean, failures: string[]): Promise<number> {
  let placed = 0;
  const failed: string[] = [];
  while (running()) {
    try {
      await ctx.db.transaction().execute((trx) => placeTestOrder({ ...ctx, db: trx }));
      placed++;
    } catch (error) {
      failed.push((error as Error).message);
    }
    await sleep(200);
  }
  if (failed.length > 0) failures.push(`${failed.length} test orders failed, the first: ${failed[0]}`);
  return placed;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const average = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** Where the mix runs: one PostgreSQL server, or a Citus cluster's coordinator. */
export type MixDatabase = { kind: 'postgres' } | { kind: 'citus'; coordinatorUrl: string };

/** A mix's figures: the report, what failed, and each endpoint's requests a second by label. */
export interface MixResult {
  lines: string[];
  failures: string[];
  rates: Map<string, number>;
}

/**
 * The Citus cluster's second worker: emptied now of the restaurants' shards, filled again by a
 * rebalance once `startAfterMs` have passed, while the load runs. Resolves with what it did.
 */
async function rebalanceUnderLoad(db: Db, startAfterMs: number): Promise<() => Promise<string>> {
  const { rows } = await sql<{ host: string; port: number }>`
    SELECT nodename AS host, nodeport AS port FROM pg_dist_node WHERE groupid > 0 ORDER BY groupid DESC LIMIT 1`.execute(
    db,
  );
  const node = rows[0];
  if (!node) throw new Error('the cluster has no worker');
  const shardsOn = async () =>
    Number(
      (
        await sql<{ n: string }>`SELECT count(*) AS n FROM citus_shards
          WHERE nodeport = ${node.port} AND citus_table_type = 'distributed'`.execute(db)
      ).rows[0]?.n,
    );
  // With wal_level = logical a move copies a shard by logical replication and blocks its writes
  // only for the switch-over; without (cluster.sh's clusters) it blocks them while it copies.
  const walLevel = (await sql<{ wal_level: string }>`SHOW wal_level`.execute(db)).rows[0]?.wal_level;
  const mode = walLevel === 'logical' ? 'force_logical' : 'block_writes';
  await sql`SELECT citus_drain_node(${node.host}, ${node.port}, shard_transfer_mode => 'block_writes')`.execute(
    db,
  );
  const drained = await shardsOn();
  const done = (async () => {
    await sleep(startAfterMs);
    const started = Date.now();
    await sql`SELECT citus_set_node_property(${node.host}, ${node.port}, 'shouldhaveshards', true)`.execute(
      db,
    );
    await sql`SELECT citus_rebalance_start(shard_transfer_mode => ${mode}::citus.shard_transfer_mode)`.execute(
      db,
    );
    await sql`SELECT citus_rebalance_wait()`.execute(db);
    return `rebalance under load (${mode}): worker :${node.port} held ${drained} shards of restaurant tables after the drain, ${await shardsOn()} after citus_rebalance_start (${((Date.now() - started) / 1000).toFixed(1)} s, started ${(startAfterMs / 1000).toFixed(0)} s into the load)`;
  })();
  return () => done;
}

export async function benchMix(
  options: { duration: number },
  load: LoadRunner,
  on: MixDatabase = { kind: 'postgres' },
): Promise<MixResult> {
  const failures: string[] = [];
  const bench =
    on.kind === 'citus'
      ? await openCitusBenchDatabase(on.coordinatorUrl)
      : await openBenchDatabase('postgres');
  const counter = await startCounter();
  let app: BenchApp | null = null;
  let worker: ChildProcess | null = null;
  try {
    if (!bench.url) throw new Error('the mix needs PostgreSQL');
    const db = bench.database.db;
    let snapshot: unknown = null;
    app = await listenWithBareRoute(db, {
      path: barePath,
      schema: ListOf(OrderSchema),
      handler: async () => snapshot,
    });
    const origin = app.origin;
    const ctx = systemCtx(db);
    const tenant = await makeTenant(ctx);
    const menu = await orderingMenu(origin, tenant.token);
    // Webhooks go to a test restaurant's app: only there may the address be http (the receiver on
    // 127.0.0.1), and a live one's would need https.
    const sandbox = await makeTenant(ctx, { livemode: false });
    await orderingMenu(origin, sandbox.token);
    await setAppWebhook(ctx, {
      clientId: sandbox.clientId,
      developerId: null,
      url: counter.url,
      events: ['order.*'],
      rules: { allowInsecure: true },
    });
    worker = await startWorker(bench.url, failures);
    const { slug } = await db
      .selectFrom('restaurants')
      .select('slug')
      .where('id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();
    const headers = { authorization: `Bearer ${tenant.token}` };
    const json = { ...headers, 'content-type': 'application/json' };
    const orderBody = JSON.stringify({
      type: 'pickup',
      items: [
        { product_id: menu.pizza, quantity: 2, option_ids: [menu.cheese.id] },
        { product_id: menu.lemonade, quantity: 1, option_ids: [menu.large.id] },
      ],
      customer: { name: 'Alex Guest', phone: '+49 30 5550100' },
      payment_method: 'on_site',
    });
    // A first page of 25 orders for the list and its bare twin.
    for (let n = 0; n < 25; n++) {
      const placed = await fetch(`${origin}/s/${slug}/api/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: orderBody,
      });
      if (placed.status !== 201)
        throw new Error(`placing an order → ${placed.status}: ${await placed.text()}`);
    }
    const since = new Date(Date.now() - 3600_000).toISOString();
    const listPath = `/v1/orders?limit=25&updated_since=${since}`;
    snapshot = await (await fetch(origin + listPath, { headers })).json();
    const firstSync = await fetch(`${origin}/v1/menu`, { method: 'PUT', headers: json, body: syncBody(0) });
    if (!firstSync.ok) throw new Error(`PUT /v1/menu → ${firstSync.status}: ${await firstSync.text()}`);

    const jobs: { label: string; job: LoadJob }[] = [
      {
        label: 'POST /s/{slug}/api/orders (guests)',
        job: {
          url: `${origin}/s/${slug}/api/orders`,
          headers: { 'content-type': 'application/json' },
          method: 'POST',
          body: orderBody,
          connections: 4,
          duration: options.duration,
        },
      },
      {
        label: 'GET /v1/orders (apps polling)',
        job: { url: origin + listPath, headers, connections: 8, duration: options.duration },
      },
      {
        label: 'GET /v1/events (apps polling)',
        job: { url: `${origin}/v1/events?limit=100`, headers, connections: 4, duration: options.duration },
      },
      {
        label: 'PUT /v1/menu (menu sync)',
        job: {
          url: `${origin}/v1/menu`,
          headers: json,
          method: 'PUT',
          body: syncBody(5),
          connections: 1,
          duration: options.duration,
        },
      },
      {
        label: 'GET bare (orders list bytes)',
        job: { url: origin + barePath, headers, connections: 8, duration: options.duration },
      },
    ];
    const rebalanced =
      on.kind === 'citus' ? await rebalanceUnderLoad(db, (options.duration * 1000) / 3) : null;
    log(`${on.kind}: the mix for ${options.duration} s…`);
    let running = true;
    const heap = sampleHeap(() => running);
    const analyzing = analyzeWhile(db, () => running);
    const testOrders = placeTestOrders({ ...ctx, tenantId: sandbox.restaurantId }, () => running, failures);
    const results = await load.runAll(jobs.map((j) => j.job));
    running = false;
    const samples = await heap;
    await analyzing;
    const testOrdersPlaced = await testOrders;
    const rebalance = rebalanced ? await rebalanced() : null;

    // Every order event delivered once (the receiver sees the public event ids): let the worker catch up.
    const orderEvents = async () =>
      Number(
        (
          await sql<{
            count: string;
          }>`SELECT count(*) FROM events WHERE tenant_id = ${sandbox.restaurantId} AND type LIKE 'order.%'`.execute(
            db,
          )
        ).rows[0]?.count,
      );
    const deadline = Date.now() + drainMs;
    let expected = await orderEvents();
    while (counter.deliveries.size < expected && Date.now() < deadline) {
      await sleep(1_000);
      expected = await orderEvents();
    }
    const missing = expected - counter.deliveries.size;
    const twice = [...counter.deliveries.values()].filter((count) => count > 1).length;
    if (missing > 0) failures.push(`${on.kind} mix: ${missing} of ${expected} order events not delivered`);
    if (twice > 0) failures.push(`${on.kind} mix: ${twice} events delivered more than once`);

    const rows = jobs.map(({ label }, index) => {
      const r = results[index] as LoadResult;
      if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0)
        failures.push(
          `mix ${label}: ${r.non2xx} non-2xx (${JSON.stringify(r.statusCodes)}), ${r.errors} errors, ${r.timeouts} timeouts`,
        );
      const latencies = Float64Array.from(r.latencies).sort();
      return {
        label,
        rps: r.requests / r.seconds,
        p50: percentile(latencies, 0.5),
        p99: percentile(latencies, 0.99),
        r,
      };
    });
    const perConnection = (index: number) => (rows[index]?.rps ?? 0) / (jobs[index]?.job.connections ?? 1);
    const minute = Math.min(12, Math.max(1, Math.floor(samples.length / 4)));
    const first = average(samples.slice(0, minute));
    const last = average(samples.slice(-minute));
    if (last > first * 1.5)
      failures.push(`${on.kind} mix: the heap grew from ${mb(first)} MB to ${mb(last)} MB`);
    // Where PostgreSQL spent its reads: a table scanned whole or an index walked further and
    // further as the run adds orders and events shows here.
    const tables = await sql<{
      name: string;
      seq_scan: string;
      seq_tup_read: string;
      idx_tup_fetch: string;
      n_dead_tup: string;
    }>`
      SELECT relname AS name, seq_scan, seq_tup_read, idx_tup_fetch, n_dead_tup FROM pg_stat_user_tables
      ORDER BY seq_tup_read + coalesce(idx_tup_fetch, 0) DESC LIMIT 8`.execute(db);
    const indexes = await sql<{ name: string; idx_scan: string; idx_tup_read: string }>`
      SELECT indexrelname AS name, idx_scan, idx_tup_read FROM pg_stat_user_indexes
      ORDER BY idx_tup_read DESC LIMIT 8`.execute(db);
    return {
      lines: [
        `The mix on ${on.kind === 'citus' ? 'a Citus cluster (a coordinator and two workers, 32 shards a table)' : 'postgres'} for ${options.duration} s: guests ordering, apps polling orders and events, a menu sync, webhook deliveries by one worker process; a bare route in the same mix`,
        '',
        alignColumns(
          ['endpoint', 'connections', 'req/s', 'ratio', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'errors'],
          rows.map(({ label, rps, p50, p99, r }, index) => [
            label,
            String(jobs[index]?.job.connections),
            rps.toFixed(0),
            (perConnection(index) / perConnection(4)).toFixed(3),
            p50.toFixed(2),
            p99.toFixed(2),
            String(r.requests),
            String(r.non2xx),
            String(r.errors + r.timeouts),
          ]),
          1,
        ),
        '',
        'ratio: req/s per connection against the bare route’s in the same mix',
        ...(rebalance ? [rebalance] : []),
        `webhooks: ${testOrdersPlaced} test orders placed (${(testOrdersPlaced / options.duration).toFixed(1)}/s), ${expected} order events, ${expected - missing} delivered, ${twice} more than once`,
        `heap of the API process (${samples.length} samples every 5 s): first ${minute} ${mb(first)} MB, last ${minute} ${mb(last)} MB, max ${mb(Math.max(...samples))} MB`,
        '',
        'req/s by minute:',
        ...rows.map(
          ({ label, r }) =>
            `  ${label}: ${(r.perMinute ?? []).map((count) => (count / 60).toFixed(0)).join(' ')}`,
        ),
        '',
        alignColumns(
          ['table', 'seq scans', 'rows seq-read', 'rows index-fetched', 'dead rows'],
          tables.rows.map((t) => [t.name, t.seq_scan, t.seq_tup_read, t.idx_tup_fetch ?? '', t.n_dead_tup]),
          1,
        ),
        '',
        alignColumns(
          ['index', 'scans', 'entries read'],
          indexes.rows.map((i) => [i.name, i.idx_scan, i.idx_tup_read]),
          1,
        ),
        '',
      ],
      failures,
      rates: new Map(rows.map(({ label, rps }) => [label, rps])),
    };
  } finally {
    if (worker) await stopWorker(worker);
    await counter.close();
    await closeBoth(app, bench);
  }
}
