/*
 * Webhook delivery under load, on PostgreSQL (part of `npm run bench`; alone with `--only webhooks`):
 * - one worker process (`node src/cli/main.ts serve --role worker`, WEBHOOKS_ALLOW_INSECURE) on a
 *   fresh database per phase, delivering one test restaurant's order events to a receiver on
 *   127.0.0.1 that answers 204;
 * - latency phase: events recorded at a moderate steady rate; enqueue-to-delivery latency of each
 *   (enqueue = the commit of its transaction here, delivery = its first arrival at the receiver,
 *   matched by the id inside data.object), p50/p99;
 * - throughput phase: a large batch recorded at a rate above the targets; deliveries/s from the
 *   first enqueue to the last arrival;
 * - bare loop: the same POSTs without queue or database, fetch + HMAC-SHA256 signature of a body
 *   the worker delivered, as many in flight as the worker sends at once, from a child process (as
 *   the worker is one); the ratio worker/bare.
 * The receiver and the enqueuing run in this process. Events the worker has not delivered within a
 * drain time count as not delivered (their latency as infinite): the bench never waits for retries.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db } from '../src/db/client.ts';
import { recordEvent } from '../src/domain/events/events.store.ts';
import { systemCtx } from '../src/domain/shared/context.ts';
import { setAppWebhook } from '../src/domain/webhooks/app-webhook.service.ts';
import { makeTenant, type Tenant } from '../test/harness.ts';
import { openBenchDatabase } from './databases.ts';
import { alignColumns, busyPercent, cpuSince, cpuTimes, percentile } from './figures.ts';

/** The worker sends up to about 100 deliveries at once to one webhook (src/domain/webhooks/delivery.ts): the bare loop keeps as many in flight. */
const concurrency = 100;
const latencyRate = 200;
const throughputEvents = 10_000;
/** Offered load of the throughput phase: above the target (1,000/s), so the worker is the limit. */
const throughputRate = 5_000;
/** Unmeasured events before each phase (JIT, the pg pools, the receiver's connections). */
const warmupEvents = 200;
const bareWarmup = 1_000;
/** How long after the last enqueue a phase waits for its deliveries. */
const drainMs = 60_000;
/** Most events one enqueuing transaction records (when the enqueuer falls behind its rate). */
const maxPerTransaction = 100;

const targets = { deliveriesPerSecond: 1_000, p99Ms: 1_000, ratio: 0.5 };

const cliPath = new URL('../src/cli/main.ts', import.meta.url).pathname;
const repoRoot = new URL('../', import.meta.url).pathname;
const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface WebhookBenchOptions {
  /** Seconds of the latency phase. */
  duration: number;
}

/** The receiver: first arrival time of each event of the current phase, every POST counted. */
interface Receiver {
  url: string;
  /** Counts events whose object id starts with this prefix from now on (and forgets the others). */
  expect(prefix: string): void;
  arrivals: Map<string, number>;
  posts(): number;
  /** A body delivered in the current phase. */
  sample(): string | null;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  let prefix = '\0';
  let arrivals = new Map<string, number>();
  let posts = 0;
  let sample: string | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      posts += 1;
      res.writeHead(204).end();
      const body = Buffer.concat(chunks).toString('utf8');
      let id: unknown;
      try {
        id = (JSON.parse(body) as { data?: { object?: { id?: unknown } } }).data?.object?.id;
      } catch {}
      if (typeof id !== 'string' || !id.startsWith(prefix)) return;
      sample ??= body;
      if (!arrivals.has(id)) arrivals.set(id, at);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    expect: (next) => {
      prefix = next;
      arrivals = new Map();
      posts = 0;
      sample = null;
    },
    get arrivals() {
      return arrivals;
    },
    posts: () => posts,
    sample: () => sample,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Waits until `count` events of the phase arrived, the deadline (performance.now()) passed or the worker ended. */
async function arrivalsOf(
  receiver: Receiver,
  count: number,
  deadline: number,
  worker: ChildProcess,
): Promise<void> {
  while (receiver.arrivals.size < count && performance.now() < deadline) {
    if (worker.exitCode !== null || worker.signalCode !== null)
      throw new Error(`the worker ended (${worker.signalCode ?? worker.exitCode}) during the bench`);
    await sleep(20);
  }
}

/** The worker role as operators run it, on the bench database; resolves once it has started. */
export async function startWorker(databaseUrl: string, failures: string[]): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATA_DIR', 'NODE_OPTIONS', 'NODE_TEST_CONTEXT']) delete env[name];
  Object.assign(env, { DATABASE_URL: databaseUrl, WEBHOOKS_ALLOW_INSECURE: 'true', LOG_LEVEL: 'info' });
  const child = spawn(process.execPath, [cliPath, 'serve', '--role', 'worker'], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the worker did not start within 60 s:\n${stderr.slice(-2000)}`));
      child.kill('SIGKILL');
    }, 60_000);
    let pending = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as {
          level?: number;
          msg?: string;
          job?: string;
          err?: { message?: string };
        };
        if (entry.msg === 'Servery started') {
          clearTimeout(timer);
          resolve(child);
        }
        // A failing job run is the worker's own error: the figures would not mean what they say.
        if ((entry.level ?? 0) >= 50)
          failures.push(
            `worker: ${entry.msg}${entry.job ? ` (${entry.job})` : ''}: ${entry.err?.message ?? ''}`,
          );
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the worker exited (${signal ?? code}) before it started:\n${stderr.slice(-2000)}`));
    });
  });
}

export async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Records `count` order events at `rate` per second, as domain code does (recordEvent inside a
 * transaction): each pass records the events due by now in one transaction. Returns each event's
 * commit time by its object id.
 */
async function enqueue(
  db: Db,
  tenant: Tenant,
  prefix: string,
  count: number,
  rate: number,
): Promise<Map<string, number>> {
  const committed = new Map<string, number>();
  const start = performance.now();
  let next = 0;
  while (next < count) {
    const due = Math.min(
      count,
      next + maxPerTransaction,
      Math.floor(((performance.now() - start) / 1000) * rate) + 1,
    );
    if (due <= next) {
      await sleep(Math.max(1, start + (next / rate) * 1000 - performance.now()));
      continue;
    }
    const ids = Array.from({ length: due - next }, (_, i) => `${prefix}${String(next + i).padStart(6, '0')}`);
    await db.transaction().execute(async (trx) => {
      const ctx = systemCtx(trx);
      for (const id of ids) {
        await recordEvent(ctx, {
          tenantId: tenant.restaurantId,
          type: 'order.created',
          connectionId: null,
          livemode: false,
          data: { object: { object: 'order', id, status: 'new', total: 2450, currency: 'EUR' } },
        });
      }
    });
    const at = performance.now();
    for (const id of ids) committed.set(id, at);
    next = due;
  }
  return committed;
}

interface Figures {
  label: string;
  events: number;
  delivered: number;
  posts: number;
  seconds: number;
  deliveriesPerSecond: number;
  /** Of the events delivered within the drain time; the undelivered count as infinite. */
  p50: number;
  p99: number;
  enqueuedPerSecond: number | null;
  cpuPercent: number;
}

/**
 * One phase of the worker on a database of its own: a test restaurant with an app whose webhook
 * takes every order event, a warm-up, then `count` events at `rate`.
 */
async function workerPhase(
  receiver: Receiver,
  label: string,
  count: number,
  rate: number,
  failures: string[],
): Promise<{ figures: Figures; sample: string | null }> {
  const bench = await openBenchDatabase('postgres');
  let worker: ChildProcess | null = null;
  try {
    if (!bench.url) throw new Error('the webhook bench needs PostgreSQL');
    const db = bench.database.db;
    const ctx = systemCtx(db);
    const tenant = await makeTenant(ctx, { livemode: false });
    await setAppWebhook(ctx, {
      clientId: tenant.clientId,
      developerId: null,
      url: receiver.url,
      events: ['order.*'],
      rules: { allowInsecure: true },
    });
    const started = await startWorker(bench.url, failures);
    worker = started;

    receiver.expect('ord_warm_');
    const warm = await enqueue(db, tenant, 'ord_warm_', warmupEvents, warmupEvents);
    await arrivalsOf(receiver, warm.size, performance.now() + drainMs, started);
    if (receiver.arrivals.size < warm.size)
      log(`postgres: webhooks ${label}: only ${receiver.arrivals.size}/${warm.size} warm-up events arrived`);

    log(`postgres: webhooks ${label}: ${count} events at ${rate}/s`);
    const prefix = `ord_${label.replace(/\W/g, '')}_`;
    receiver.expect(prefix);
    const cpu = cpuTimes();
    const enqueueStart = performance.now();
    const committed = await enqueue(db, tenant, prefix, count, rate);
    const enqueueEnd = performance.now();
    await arrivalsOf(receiver, count, enqueueEnd + drainMs, started);
    const arrivals = receiver.arrivals;
    const end = arrivals.size === count ? Math.max(...arrivals.values()) : performance.now();
    const cpuUsed = cpuSince(cpu);
    const first = Math.min(...committed.values());
    const latencies = [...committed].map(([id, at]) => (arrivals.get(id) ?? Number.POSITIVE_INFINITY) - at);
    latencies.sort((a, b) => a - b);
    const seconds = (end - first) / 1000;
    return {
      figures: {
        label: `worker, ${label}`,
        events: count,
        delivered: arrivals.size,
        posts: receiver.posts(),
        seconds,
        deliveriesPerSecond: arrivals.size / seconds,
        p50: percentile(latencies, 0.5),
        p99: percentile(latencies, 0.99),
        enqueuedPerSecond: count / ((enqueueEnd - enqueueStart) / 1000),
        cpuPercent: busyPercent(cpuUsed),
      },
      sample: receiver.sample(),
    };
  } finally {
    try {
      if (worker) await stopWorker(worker);
    } finally {
      await bench.dispose();
    }
  }
}

/** One job of the bare sender: `count` POSTs of `body`, `concurrency` in flight. */
interface BareJob {
  url: string;
  body: string;
  count: number;
  concurrency: number;
}

interface BareResult {
  non2xx: number;
  errors: number;
}

function runBare(child: ChildProcess, job: BareJob): Promise<BareResult> {
  return new Promise((resolve, reject) => {
    const onExit = () => reject(new Error('the bare sender exited'));
    child.once('exit', onExit);
    child.once('message', (message: { ok: true; result: BareResult } | { ok: false; error: string }) => {
      child.off('exit', onExit);
      if (message.ok) resolve(message.result);
      else reject(new Error(`bare sender: ${message.error}`));
    });
    child.send(job);
  });
}

async function barePhase(receiver: Receiver, body: string, failures: string[]): Promise<Figures> {
  const child = fork(new URL(import.meta.url), ['--bare-sender'], {
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const check = (label: string, r: BareResult) => {
    if (r.non2xx > 0 || r.errors > 0)
      failures.push(`postgres webhooks ${label}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  };
  try {
    const job = { url: receiver.url, body, concurrency };
    receiver.expect('');
    check('bare warm-up', await runBare(child, { ...job, count: bareWarmup }));
    log(`postgres: webhooks bare: ${throughputEvents} POSTs, ${concurrency} in flight`);
    receiver.expect('');
    const cpu = cpuTimes();
    const start = performance.now();
    const result = await runBare(child, { ...job, count: throughputEvents });
    const seconds = (performance.now() - start) / 1000;
    const cpuUsed = cpuSince(cpu);
    check('bare', result);
    return {
      label: 'bare fetch + HMAC',
      events: throughputEvents,
      delivered: receiver.posts(),
      posts: receiver.posts(),
      seconds,
      deliveriesPerSecond: receiver.posts() / seconds,
      p50: Number.NaN,
      p99: Number.NaN,
      enqueuedPerSecond: null,
      cpuPercent: busyPercent(cpuUsed),
    };
  } finally {
    child.kill();
  }
}

const ms = (value: number) =>
  Number.isNaN(value) ? '' : Number.isFinite(value) ? value.toFixed(1) : `>${(drainMs / 1000).toFixed(0)} s`;

function table(rows: readonly Figures[], ratio: number): string {
  const header = [
    'loop',
    'events',
    'delivered',
    'POSTs',
    'seconds',
    'deliveries/s',
    'p50 ms',
    'p99 ms',
    'enqueued/s',
    'CPU %',
  ];
  const cells = rows.map((f) => [
    f.label,
    String(f.events),
    String(f.delivered),
    String(f.posts),
    f.seconds.toFixed(2),
    f.deliveriesPerSecond.toFixed(0),
    ms(f.p50),
    ms(f.p99),
    f.enqueuedPerSecond === null ? '' : f.enqueuedPerSecond.toFixed(0),
    f.cpuPercent.toFixed(0),
  ]);
  cells.push(['ratio worker/bare', '', '', '', '', ratio.toFixed(3), '', '', '', '']);
  return alignColumns(header, cells, 1);
}

/** Runs the webhook bench on fresh PostgreSQL databases; returns the report's lines and any failures. */
export async function benchWebhooks(
  options: WebhookBenchOptions,
): Promise<{ lines: string[]; failures: string[] }> {
  const failures: string[] = [];
  const receiver = await startReceiver();
  try {
    const latencyEvents = Math.round(options.duration * latencyRate);
    const latency = await workerPhase(receiver, 'latency', latencyEvents, latencyRate, failures);
    const throughput = await workerPhase(receiver, 'throughput', throughputEvents, throughputRate, failures);
    const sample = throughput.sample ?? latency.sample;
    if (!sample) throw new Error('the worker delivered nothing: no body for the bare loop');
    const bare = await barePhase(receiver, sample, failures);
    const ratio = throughput.figures.deliveriesPerSecond / bare.deliveriesPerSecond;
    const verdict = (ok: boolean) => (ok ? 'meets' : 'BELOW');
    const lines = [
      `webhook delivery on postgres: one worker process (serve --role worker) on a fresh database per phase, receiver on 127.0.0.1 answering 204, body ${Buffer.byteLength(sample)} bytes`,
      `latency phase ${latencyRate} events/s for ${options.duration} s; throughput phase ${throughputEvents} events offered at ${throughputRate}/s (seconds: first enqueue to last arrival); ${warmupEvents} warm-up events each; events not delivered within ${drainMs / 1000} s of the last enqueue count as never delivered (latency infinite)`,
      `bare: fetch + HMAC-SHA256 of the same body from a child process, ${concurrency} in flight, no queue, no database (${bareWarmup} warm-up POSTs)`,
      '',
      table([latency.figures, throughput.figures, bare], ratio),
      '',
      `webhooks: ${throughput.figures.deliveriesPerSecond.toFixed(0)} deliveries/s ${verdict(throughput.figures.deliveriesPerSecond >= targets.deliveriesPerSecond)} the target ${targets.deliveriesPerSecond}; ` +
        `p99 enqueue-to-delivery ${ms(latency.figures.p99)} ms at ${latencyRate}/s ${verdict(latency.figures.p99 < targets.p99Ms)} the target < ${targets.p99Ms}; ` +
        `ratio worker/bare ${ratio.toFixed(3)} ${verdict(ratio >= targets.ratio)} the target ${targets.ratio}`,
      '',
    ];
    return { lines, failures };
  } finally {
    await receiver.close();
  }
}

/** The child's side: POSTs as the worker sends them, each signed anew, `concurrency` at a time. */
async function sendBare(job: BareJob): Promise<BareResult> {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const result: BareResult = { non2xx: 0, errors: 0 };
  let next = 0;
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      for (; next < job.count; ) {
        next += 1;
        const t = Math.floor(Date.now() / 1000);
        const signature = createHmac('sha256', secret).update(`${t}.${job.body}`).digest('hex');
        try {
          const response = await fetch(job.url, {
            method: 'POST',
            redirect: 'manual',
            signal: AbortSignal.timeout(10_000),
            headers: {
              'Content-Type': 'application/json',
              'User-Agent': 'Service-Webhooks/1.0 (+http://127.0.0.1/v1/openapi.json)',
              'Service-Signature': `t=${t},v1=${signature}`,
              'Service-Event-Id': `evt_${randomBytes(16).toString('hex')}`,
              'Service-Event-Type': 'order.created',
              'Service-Delivery-Attempt': '1',
            },
            body: job.body,
          });
          await response.body?.cancel();
          if (response.status < 200 || response.status >= 300) result.non2xx += 1;
        } catch {
          result.errors += 1;
        }
      }
    }),
  );
  return result;
}

if (process.argv.includes('--bare-sender') && process.send) {
  process.on('message', (job: BareJob) => {
    sendBare(job).then(
      (result) => process.send?.({ ok: true, result }),
      (error: unknown) => process.send?.({ ok: false, error: String((error as Error)?.stack ?? error) }),
    );
  });
}
