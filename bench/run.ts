/*
 * `npm run bench [-- --duration <s>] [-- --only pglite|postgres|webhooks|store]`: requests/s and
 * latency of an authenticated `GET /v1/me` against a bare route returning the same bytes, on PGlite
 * and on PostgreSQL; `GET /v1/store` on the same databases (bench/store.ts); on PostgreSQL also the
 * token endpoint and webhook delivery (bench/webhooks.ts).
 * See docs/performance.md for what is measured and how to read it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { checkAccessToken } from '../src/domain/connections/access-tokens.ts';
import { ConnectionSchema } from '../src/domain/connections/connection.schema.ts';
import { systemCtx } from '../src/domain/context.ts';
import { openLimiters } from '../src/domain/limits/limiters.ts';
import { makeTenant } from '../test/harness.ts';
import { type BenchDatabaseKind, openBenchDatabase } from './databases.ts';
import type { LoadJob, LoadResult } from './load.ts';
import { benchOAuth } from './oauth.ts';
import { benchStore } from './store.ts';
import { benchWebhooks } from './webhooks.ts';

const barePath = '/bench/bare';
const mePath = '/v1/me';

interface Options {
  duration: number;
  warmup: number;
  rounds: number;
  connections: number;
  /** One database, or the webhook or store bench alone. */
  only: BenchDatabaseKind | 'webhooks' | 'store' | null;
}

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: npm run bench -- [--duration <s>] [--only pglite|postgres|webhooks|store] [--connections <n>] [--warmup <s>] [--rounds <n>]\n`,
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
  if (only !== null && only !== 'pglite' && only !== 'postgres' && only !== 'webhooks' && only !== 'store') {
    usage(`--only must be pglite, postgres, webhooks or store, got "${only}"`);
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
  #pending: { resolve: (r: LoadResult) => void; reject: (e: Error) => void } | null = null;
  #exited: Error | null = null;

  constructor() {
    this.#child = fork(new URL('./load.ts', import.meta.url), [], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#child.on('message', (message: { ok: true; result: LoadResult } | { ok: false; error: string }) => {
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
    if (this.#exited) return Promise.reject(this.#exited);
    if (this.#pending) return Promise.reject(new Error('load generator busy'));
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#child.send(job);
    });
  }

  stop(): void {
    if (!this.#exited) this.#child.kill();
  }
}

/** CPU time of the whole machine (every core, every process), in ms. */
interface CpuSnapshot {
  busy: number;
  total: number;
}

function cpuSnapshot(): CpuSnapshot {
  let busy = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    const all = times.user + times.nice + times.sys + times.irq + times.idle;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

const cpuSince = (from: CpuSnapshot): CpuSnapshot => {
  const now = cpuSnapshot();
  return { busy: now.busy - from.busy, total: now.total - from.total };
};

/** One autocannon run and how busy the machine was meanwhile. */
interface Segment {
  result: LoadResult;
  cpu: CpuSnapshot;
  /** CPU time of this (the server's) process meanwhile, in µs; PGlite runs in it too. */
  serverCpu: number;
}

interface Figures {
  route: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  seconds: number;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
  /** Machine CPU busy meanwhile, 0-100 % of all cores. */
  cpuPercent: number;
  /** CPU time of the server process per response, µs. */
  serverCpuPerRequest: number;
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/** The figures of one route over all its measured rounds. */
function combine(route: string, segments: readonly Segment[]): Figures {
  const results = segments.map((s) => s.result);
  const total = results.reduce((n, r) => n + r.latencies.length, 0);
  const latencies = new Float64Array(total);
  let offset = 0;
  const statusCodes: Record<string, number> = {};
  for (const r of results) {
    latencies.set(r.latencies, offset);
    offset += r.latencies.length;
    for (const [code, count] of Object.entries(r.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  latencies.sort();
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const seconds = results.reduce((n, r) => n + r.seconds, 0);
  return {
    route,
    rps: requests / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    requests,
    seconds,
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors + r.timeouts, 0),
    statusCodes,
    serverCpuPerRequest: segments.reduce((n, s) => n + s.serverCpu, 0) / requests,
    cpuPercent:
      (segments.reduce((n, s) => n + s.cpu.busy, 0) / segments.reduce((n, s) => n + s.cpu.total, 0)) * 100,
  };
}

interface DatabaseRun {
  kind: BenchDatabaseKind;
  where: string;
  bodyBytes: number;
  bare: Figures;
  me: Figures;
  /** Any non-2xx answer or error, warm-up included. */
  failures: string[];
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The built app plus one bare route on the same Fastify instance: same process, same global hooks
 * (request id, onSend headers), same serializer for the same schema — only the /v1 pipeline
 * (authentication query, hooks) differs.
 */
async function startServer(kind: BenchDatabaseKind) {
  const bench = await openBenchDatabase(kind);
  let app: FastifyInstance | null = null;
  try {
    const db = bench.database.db;
    const tenant = await makeTenant(systemCtx(db));
    const check = await checkAccessToken(db, tenant.token, new Date());
    if (check.status !== 'valid') throw new Error(`the bench token is ${check.status}`);
    const connection = check.auth.connection;

    // The rate limits count every request where the service would (in Redis with REDIS_URL), but
    // with a limit the load never reaches.
    const limiters = await openLimiters(
      { db, redisUrl: process.env.REDIS_URL || null },
      { points: 1_000_000_000 },
    );
    app = await buildApp({ config: { baseUrl: 'http://127.0.0.1' }, db, limiters });
    app.addHook('onClose', () => limiters.close());
    app.get(
      barePath,
      { schema: { hide: true, response: { 200: ConnectionSchema } } },
      async () => connection,
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const origin = `http://127.0.0.1:${address.port}`;
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
      close: async () => {
        try {
          await server.close();
        } finally {
          await bench.dispose();
        }
      },
    };
  } catch (error) {
    try {
      await app?.close();
    } finally {
      await bench.dispose();
    }
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
    const job = (path: string, duration: number): LoadJob => ({
      url: server.origin + path,
      headers: server.headers,
      connections: options.connections,
      duration,
    });
    const check = (label: string, r: LoadResult) => {
      if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
        failures.push(
          `${kind} ${label}: ${r.non2xx} non-2xx (status ${JSON.stringify(r.statusCodes)}), ${r.errors} errors, ${r.timeouts} timeouts`,
        );
      }
    };

    log(`${kind}: warm-up ${options.warmup} s per route`);
    for (const path of [barePath, mePath])
      check(`warm-up ${path}`, await load.run(job(path, options.warmup)));

    const segment = options.duration / options.rounds;
    const bare: Segment[] = [];
    const me: Segment[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      for (const [path, into] of [
        [barePath, bare],
        [mePath, me],
      ] as const) {
        log(`${kind}: round ${round}/${options.rounds} ${path} ${segment} s`);
        const before = cpuSnapshot();
        const serverBefore = process.cpuUsage();
        const result = await load.run(job(path, segment));
        const used = process.cpuUsage(serverBefore);
        into.push({ result, cpu: cpuSince(before), serverCpu: used.user + used.system });
        check(`${path} round ${round}`, result);
      }
    }
    return {
      kind,
      where: server.where,
      bodyBytes: server.bodyBytes,
      bare: combine(`GET ${barePath}`, bare),
      me: combine(`GET ${mePath}`, me),
      failures,
    };
  } finally {
    await server.close();
  }
}

function table(runs: readonly DatabaseRun[]): string {
  const header = [
    'database',
    'route',
    'req/s',
    'p50 ms',
    'p99 ms',
    'requests',
    'non-2xx',
    'errors',
    'server µs/req',
    'CPU %',
  ];
  const rows: string[][] = [];
  for (const run of runs) {
    for (const f of [run.bare, run.me]) {
      rows.push([
        run.kind,
        f.route,
        f.rps.toFixed(0),
        f.p50.toFixed(2),
        f.p99.toFixed(2),
        String(f.requests),
        String(f.non2xx),
        String(f.errors),
        f.serverCpuPerRequest.toFixed(0),
        f.cpuPercent.toFixed(0),
      ]);
    }
    rows.push([
      run.kind,
      'ratio me/bare',
      (run.me.rps / run.bare.rps).toFixed(3),
      '',
      '',
      '',
      '',
      '',
      '',
      '',
    ]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions();
  const kinds: BenchDatabaseKind[] =
    options.only === 'webhooks' || options.only === 'store'
      ? []
      : options.only
        ? [options.only]
        : ['pglite', 'postgres'];
  // GET /v1/store on each database of the run; alone, on both.
  const storeKinds: BenchDatabaseKind[] = options.only === 'store' ? ['pglite', 'postgres'] : kinds;
  const cpus = os.cpus();
  // The bench needs the machine to itself: anything else running skews both routes, the DB-bound one most.
  const idleCheck = cpuSnapshot();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const idle = cpuSince(idleCheck);
  const busyBefore = (idle.busy / idle.total) * 100;
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
  if (kinds.length > 0) out.push('', runs.length > 0 ? table(runs) : '(no results)', '');
  const postgres = runs.find((r) => r.kind === 'postgres');
  if (postgres) {
    const ratio = postgres.me.rps / postgres.bare.rps;
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
