/*
 * `npm run bench [-- --duration <s>] [-- --only pglite|postgres|webhooks|store|token-peer|menu|orders|reports]`:
 * requests/s and latency of an authenticated `GET /v1/me` against a bare route returning the same
 * bytes, on PGlite and on PostgreSQL; `GET /v1/store` on the same databases (bench/store.ts); on
 * PostgreSQL also the token endpoint, webhook delivery (bench/webhooks.ts) and the menu (bench/menu.ts); `--only orders` the orders' list and placement (bench/orders.ts); `--only reports` the sales and product reports over a year of orders (bench/reports.ts); `--only reservations` the availability of a busy evening (bench/reservations.ts); `--only storefront` the storefront's menu page of 200 products (bench/storefront.ts); `--only mix` guests, apps, a menu sync and webhooks all at once for the whole `--duration` (bench/mix.ts). `--only token-peer`
 * measures our refresh grants against oidc-provider's alone (bench/token-peer.ts).
 * See docs/performance.md for what is measured and how to read it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { checkAccessToken } from '../src/domain/connections/access-tokens.ts';
import { ConnectionSchema } from '../src/domain/connections/connection.schema.ts';
import { systemCtx } from '../src/domain/shared/context.ts';
import { makeTenant } from '../test/harness.ts';
import { type BenchApp, closeBoth, listenWithBareRoute } from './bare-route.ts';
import { type BenchDatabaseKind, openBenchDatabase } from './databases.ts';
import { alignColumns, busyPercent, cpuSince, cpuTimes, type Figures, routeTable } from './figures.ts';
import type { LoadJob, LoadResult } from './load.ts';
import { benchMenu } from './menu.ts';
import { benchMix } from './mix.ts';
import { benchOAuth } from './oauth.ts';
import { benchOrders } from './orders.ts';
import { benchReports } from './reports.ts';
import { benchReservations } from './reservations.ts';
import { measureRoutes } from './rounds.ts';
import { benchStore } from './store.ts';
import { benchStorefront } from './storefront.ts';
import { benchTokenPeer } from './token-peer.ts';
import { benchWebhooks } from './webhooks.ts';

const barePath = '/bench/bare';
const mePath = '/v1/me';

interface Options {
  duration: number;
  warmup: number;
  rounds: number;
  connections: number;
  /** One database, or the webhook, store, token-peer, menu or orders bench alone. */
  only:
    | BenchDatabaseKind
    | 'webhooks'
    | 'store'
    | 'token-peer'
    | 'menu'
    | 'orders'
    | 'reports'
    | 'reservations'
    | 'storefront'
    | 'mix'
    | null;
}

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: npm run bench -- [--duration <s>] [--only pglite|postgres|webhooks|store|token-peer|menu|orders|reports|reservations|storefront|mix] [--connections <n>] [--warmup <s>] [--rounds <n>]\n`,
  );
  process.exit(2);
}

function positive(name: string, raw: string, integer: boolean): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    usage(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got "${raw}"`);
  }
  return n;
}

function parseOptions(): Options {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        duration: { type: 'string', default: '10' },
        warmup: { type: 'string', default: '3' },
        rounds: { type: 'string', default: '2' },
        connections: { type: 'string', default: '50' },
        only: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    usage((error as Error).message);
  }
  const only = values.only ?? null;
  if (
    only !== null &&
    only !== 'pglite' &&
    only !== 'postgres' &&
    only !== 'webhooks' &&
    only !== 'store' &&
    only !== 'token-peer' &&
    only !== 'menu' &&
    only !== 'orders' &&
    only !== 'reports' &&
    only !== 'reservations' &&
    only !== 'storefront' &&
    only !== 'mix'
  ) {
    usage(
      `--only must be pglite, postgres, webhooks, store, token-peer, menu, orders, reports, reservations, storefront or mix, got "${only}"`,
    );
  }
  return {
    duration: positive('duration', values.duration ?? '10', false),
    warmup: positive('warmup', values.warmup ?? '3', false),
    rounds: positive('rounds', values.rounds ?? '2', true),
    connections: positive('connections', values.connections ?? '50', true),
    only,
  };
}

/** autocannon in a child process (bench/load.ts), one job at a time. */
class LoadGenerator {
  readonly #child: ChildProcess;
  /** Resolves with one job's figures, or each job's of a list. */
  #pending: { resolve: (r: unknown) => void; reject: (e: Error) => void } | null = null;
  #exited: Error | null = null;

  constructor() {
    this.#child = fork(new URL('./load.ts', import.meta.url), [], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#child.on('message', (message: { ok: true; result: unknown } | { ok: false; error: string }) => {
      const pending = this.#pending;
      this.#pending = null;
      if (!pending) return;
      if (message.ok) pending.resolve(message.result);
      else pending.reject(new Error(`load generator: ${message.error}`));
    });
    this.#child.on('exit', (code, signal) => {
      this.#exited = new Error(`load generator exited (${signal ?? code})`);
      this.#pending?.reject(this.#exited);
      this.#pending = null;
    });
  }

  run(job: LoadJob): Promise<LoadResult> {
    return this.#send(job);
  }

  runAll(jobs: readonly LoadJob[]): Promise<LoadResult[]> {
    return this.#send(jobs);
  }

  #send<T>(job: LoadJob | readonly LoadJob[]): Promise<T> {
    if (this.#exited) return Promise.reject(this.#exited);
    if (this.#pending) return Promise.reject(new Error('load generator busy'));
    return new Promise((resolve, reject) => {
      this.#pending = { resolve: (result) => resolve(result as T), reject };
      this.#child.send(job);
    });
  }

  stop(): void {
    if (!this.#exited) this.#child.kill();
  }
}

interface DatabaseRun {
  kind: BenchDatabaseKind;
  where: string;
  bodyBytes: number;
  figures: Record<typeof barePath | typeof mePath, Figures>;
  /** Any non-2xx answer or error, warm-up included. */
  failures: string[];
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The app with a bare route returning what GET /v1/me does: only the /v1 pipeline
 * (authentication query, hooks) differs.
 */
async function startServer(kind: BenchDatabaseKind) {
  const bench = await openBenchDatabase(kind);
  let app: BenchApp | null = null;
  try {
    const db = bench.database.db;
    const tenant = await makeTenant(systemCtx(db));
    const check = await checkAccessToken(db, tenant.token, new Date());
    if (check.status !== 'valid') throw new Error(`the bench token is ${check.status}`);
    const connection = check.auth.connection;
    app = await listenWithBareRoute(db, {
      path: barePath,
      schema: ConnectionSchema,
      handler: async () => connection,
    });
    const origin = app.origin;
    const headers = { authorization: `Bearer ${tenant.token}` };

    // Both routes must answer 200 with the very same bytes, or the comparison means nothing.
    const [me, bare] = await Promise.all(
      [mePath, barePath].map(async (p) => {
        const res = await fetch(origin + p, { headers });
        return { status: res.status, body: await res.text() };
      }),
    );
    if (me?.status !== 200 || bare?.status !== 200) {
      throw new Error(
        `GET ${mePath} → ${me?.status}, GET ${barePath} → ${bare?.status} (expected 200 and 200)`,
      );
    }
    if (me.body !== bare.body) throw new Error(`the bare route does not return the bytes of GET ${mePath}`);
    const server = app;
    return {
      origin,
      headers,
      where: bench.where,
      bodyBytes: Buffer.byteLength(me.body),
      close: () => closeBoth(server, bench),
    };
  } catch (error) {
    await closeBoth(app, bench);
    throw error;
  }
}

async function benchDatabase(
  kind: BenchDatabaseKind,
  options: Options,
  load: LoadGenerator,
): Promise<DatabaseRun> {
  log(`${kind}: fresh database, tenant and token, server on 127.0.0.1…`);
  const server = await startServer(kind);
  try {
    const failures: string[] = [];
    const figures = await measureRoutes(kind, server, [barePath, mePath], options, load, failures);
    return {
      kind,
      where: server.where,
      bodyBytes: server.bodyBytes,
      figures,
      failures,
    };
  } finally {
    await server.close();
  }
}

/** req/s of GET /v1/me over the bare route's: what the /v1 pipeline costs. */
const meRatio = (run: DatabaseRun) => run.figures[mePath].rps / run.figures[barePath].rps;

async function main(): Promise<void> {
  const options = parseOptions();
  const kinds: BenchDatabaseKind[] =
    options.only === 'webhooks' ||
    options.only === 'store' ||
    options.only === 'token-peer' ||
    options.only === 'menu' ||
    options.only === 'orders' ||
    options.only === 'reports' ||
    options.only === 'reservations' ||
    options.only === 'storefront' ||
    options.only === 'mix'
      ? []
      : options.only
        ? [options.only]
        : ['pglite', 'postgres'];
  // GET /v1/store on each database of the run; alone, on both.
  const storeKinds: BenchDatabaseKind[] = options.only === 'store' ? ['pglite', 'postgres'] : kinds;
  const cpus = os.cpus();
  // The bench needs the machine to itself: anything else running skews both routes, the DB-bound one most.
  const idleCheck = cpuTimes();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const busyBefore = busyPercent(cpuSince(idleCheck));
  if (busyBefore > 10) {
    log(
      `warning: the CPUs were ${busyBefore.toFixed(0)} % busy before the bench; other processes skew the figures`,
    );
  }
  const load = new LoadGenerator();
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
    log('interrupted: stopping the load generator and removing the bench databases…');
    load.stop();
  });

  const runs: DatabaseRun[] = [];
  const crashes: string[] = [];
  let store: { lines: string[]; failures: string[] } = { lines: [], failures: [] };
  let menu: { lines: string[]; failures: string[] } = { lines: [], failures: [] };
  let orders: { lines: string[]; failures: string[] } = { lines: [], failures: [] };
  let reports: { lines: string[]; failures: string[] } = { lines: [], failures: [] };
  let reservations: { lines: string[]; failures: string[] } = { lines: [], failures: [] };
  let storefront: { lines: string[]; failures: string[] } = { lines: [], failures: [] };
  let mix: { lines: string[]; failures: string[] } = { lines: [], failures: [] };
  try {
    for (const kind of kinds) {
      if (interrupted) break;
      try {
        runs.push(await benchDatabase(kind, options, load));
      } catch (error) {
        crashes.push(`${kind}: ${(error as Error).message}`);
        log(`${kind}: ${(error as Error).stack ?? error}`);
      }
    }
    if (storeKinds.length > 0 && !interrupted) store = await benchStore(storeKinds, options, load);
    // PUT /v1/menu, GET /v1/menu and a list during syncs, on PostgreSQL.
    if ((kinds.includes('postgres') || options.only === 'menu') && !interrupted)
      menu = await benchMenu(options, load).catch((error: Error) => ({
        lines: [],
        failures: [`postgres menu: ${error.message}`],
      }));
    // GET /v1/orders over 10,000 orders and guests' placements, on PostgreSQL.
    if ((kinds.includes('postgres') || options.only === 'orders') && !interrupted)
      orders = await benchOrders(options, load).catch((error: Error) => ({
        lines: [],
        failures: [`postgres orders: ${error.message}`],
      }));
    // GET /v1/reports/* over a year of 100,000 orders, sequentially, on PostgreSQL.
    if ((kinds.includes('postgres') || options.only === 'reports') && !interrupted)
      reports = await benchReports().catch((error: Error) => ({
        lines: [],
        failures: [`postgres reports: ${error.message}`],
      }));
    // GET /v1/reservations/availability of a day with 300 reservations at 40 tables, on PostgreSQL.
    if ((kinds.includes('postgres') || options.only === 'reservations') && !interrupted)
      reservations = await benchReservations(options, load).catch((error: Error) => ({
        lines: [],
        failures: [`postgres reservations: ${error.message}`],
      }));
    // The storefront's menu page of 200 products, on PostgreSQL.
    if ((kinds.includes('postgres') || options.only === 'storefront') && !interrupted)
      storefront = await benchStorefront(options, load).catch((error: Error) => ({
        lines: [],
        failures: [`postgres storefront: ${error.message}`],
      }));
    // Everything at once for --duration seconds (bench/mix.ts): only when asked for; with
    // CITUS_URL also on that Citus cluster, beside the one server.
    if (options.only === 'mix' && !interrupted) mix = await mixes(options, load, () => interrupted);
  } finally {
    load.stop();
  }

  const out: string[] = [
    '',
    `Servery bench, ${new Date().toISOString()}`,
    `node ${process.version}, ${os.platform()} ${os.arch()}, ${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), ${busyBefore.toFixed(0)} % busy before the bench`,
  ];
  if (kinds.length > 0) {
    out.push(
      `${options.connections} connections, ${options.duration} s per route in ${options.rounds} alternating round(s) (bare, me), ${options.warmup} s warm-up per route`,
      'load generator: autocannon in a child process; bare route on the same Fastify instance; latencies over every response',
      'server µs/req: CPU time of the server process (Fastify, and PGlite which runs in it) per response; CPU %: whole machine, all processes',
      `rate limits counted in ${process.env.REDIS_URL ? 'Redis (REDIS_URL)' : 'the database (PostgreSQL: table rate_limits; PGlite: memory)'}`,
    );
  }
  for (const run of runs) out.push(`${run.kind}: ${run.where} (body ${run.bodyBytes} bytes)`);
  const table = () => routeTable(runs.map((run) => ({ ...run, ratios: [['ratio me/bare', meRatio(run)]] })));
  if (kinds.length > 0) out.push('', runs.length > 0 ? table() : '(no results)', '');
  const postgres = runs.find((r) => r.kind === 'postgres');
  if (postgres) {
    const ratio = meRatio(postgres);
    out.push(
      `PostgreSQL ratio me/bare ${ratio.toFixed(3)}: ${ratio >= 0.3 ? 'meets' : 'BELOW'} the target 0.3`,
    );
  }
  // GET /v1/store (bench/store.ts), measured above with the same load generator.
  out.push(...store.lines);
  crashes.push(...store.failures);
  // The token endpoint (bench/oauth.ts): code exchanges and refresh grants on PostgreSQL.
  if (kinds.includes('postgres') && !interrupted) {
    const oauth = await benchOAuth(options).catch((error: Error) => ({
      lines: [],
      failures: [`postgres token endpoint: ${error.message}`],
    }));
    out.push(...oauth.lines);
    crashes.push(...oauth.failures);
  }
  // Our refresh grants against oidc-provider's (bench/token-peer.ts), alone.
  if (options.only === 'token-peer' && !interrupted) {
    const peer = await benchTokenPeer(options).catch((error: Error) => ({
      lines: [],
      failures: [`token endpoint against oidc-provider: ${error.message}`],
    }));
    out.push(...peer.lines);
    crashes.push(...peer.failures);
  }
  // The menu (bench/menu.ts), measured above with the same load generator.
  out.push(...menu.lines);
  crashes.push(...menu.failures);
  // The orders (bench/orders.ts), measured above with the same load generator.
  out.push(...orders.lines);
  crashes.push(...orders.failures);
  // The reports (bench/reports.ts), measured above.
  out.push(...reports.lines);
  crashes.push(...reports.failures);
  // The availability (bench/reservations.ts), measured above with the same load generator.
  out.push(...reservations.lines);
  crashes.push(...reservations.failures);
  // The storefront's menu page (bench/storefront.ts), measured above with the same load generator.
  out.push(...storefront.lines);
  crashes.push(...storefront.failures);
  // The mix (bench/mix.ts).
  out.push(...mix.lines);
  crashes.push(...mix.failures);
  // Webhook delivery (bench/webhooks.ts): one worker process against fetch + HMAC, on PostgreSQL.
  if ((kinds.includes('postgres') || options.only === 'webhooks') && !interrupted) {
    const webhooks = await benchWebhooks(options).catch((error: Error) => ({
      lines: [],
      failures: [`postgres webhooks: ${error.message}`],
    }));
    out.push(...webhooks.lines);
    crashes.push(...webhooks.failures);
  }
  const failures = [...runs.flatMap((r) => r.failures), ...crashes];
  if (interrupted) failures.push('interrupted');
  for (const failure of failures) out.push(`FAILED ${failure}`);
  process.stdout.write(`${out.join('\n')}\n`);
  process.exitCode = failures.length > 0 ? 1 : 0;
}

await main();

/** The mix on one PostgreSQL server and, with CITUS_URL set, on that Citus cluster, compared. */
async function mixes(
  options: Options,
  load: LoadGenerator,
  interrupted: () => boolean,
): Promise<{ lines: string[]; failures: string[] }> {
  const failed = (on: string) => (error: Error) => ({
    lines: [],
    failures: [`${on} mix: ${error.message}`],
    rates: new Map<string, number>(),
  });
  const single = await benchMix(options, load).catch(failed('postgres'));
  const coordinatorUrl = process.env.CITUS_URL;
  if (!coordinatorUrl || interrupted()) return single;
  const cluster = await benchMix(options, load, { kind: 'citus', coordinatorUrl }).catch(failed('citus'));
  const bare = 'GET bare (orders list bytes)';
  const ratio = (rates: Map<string, number>, label: string) =>
    ((rates.get(label) ?? 0) / (rates.get(bare) || 1)).toFixed(3);
  return {
    lines: [
      ...single.lines,
      ...cluster.lines,
      'The mix on one server and on the cluster, in this run (req/s; ratio: against the bare route of the same mix)',
      '',
      alignColumns(
        ['endpoint', 'postgres req/s', 'citus req/s', 'citus / postgres', 'ratio postgres', 'ratio citus'],
        [...single.rates.keys()].map((label) => [
          label,
          (single.rates.get(label) ?? 0).toFixed(0),
          (cluster.rates.get(label) ?? 0).toFixed(0),
          ((cluster.rates.get(label) ?? 0) / (single.rates.get(label) || 1)).toFixed(3),
          ratio(single.rates, label),
          ratio(cluster.rates, label),
        ]),
        1,
      ),
      '',
    ],
    failures: [...single.failures, ...cluster.failures],
  };
}
