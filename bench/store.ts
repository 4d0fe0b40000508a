/*
 * GET /v1/store under load (part of `npm run bench`, on each database of the run; alone with
 * `--only store`). Its status and next opening are computed at every request from the weekly
 * hours, the special days and the pause in the restaurant's zone, on top of what GET /v1/me does
 * (token lookup, rate limit) and two queries (the store with its restaurant, the special days).
 * For each database, on one Fastify instance, in alternating rounds:
 * - GET /v1/store of a restaurant set up as a real one (lunch and dinner Tuesday to Sunday,
 *   delivery in the evenings, two special days), at a moment when it is closed;
 * - a bare route returning the same bytes (the Store read once, through the same schema);
 * - GET /v1/me with the same token (store:read only), the second baseline.
 * The server's clock is the real one. The restaurant's zone is the one where it is closest to
 * 04:00 now, so the store is closed for hours either side of the run and its next opening (the
 * coming lunch) does not move; the body is checked again after the run.
 */
import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import { DateTime } from 'luxon';
import { buildApp } from '../src/app.ts';
import { systemCtx } from '../src/domain/context.ts';
import { openLimiters } from '../src/domain/limits/limiters.ts';
import { type Store, StoreSchema } from '../src/domain/store/store.schema.ts';
import { getStore, updateStore } from '../src/domain/store/store.service.ts';
import { makeTenant, tokenFor } from '../test/harness.ts';
import { type BenchDatabaseKind, openBenchDatabase } from './databases.ts';
import type { LoadJob, LoadResult } from './load.ts';

const storePath = '/v1/store';
const barePath = '/bench/store-bare';
const mePath = '/v1/me';
const routes = [barePath, storePath, mePath] as const;
type Route = (typeof routes)[number];

/** Local time of the run: the middle of the night, hours from closing (22:30) and opening (11:30). */
const runMinutes = 4 * 60;
const tuesdayToSunday = [1, 2, 3, 4, 5, 6];

export interface StoreBenchOptions {
  duration: number;
  warmup: number;
  rounds: number;
  connections: number;
}

/** bench/run.ts's load generator: autocannon in a child process, one job at a time. */
export interface LoadRunner {
  run(job: LoadJob): Promise<LoadResult>;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The zone whose clock reads closest to `runMinutes` past midnight now. */
function nightZone(now: DateTime): string {
  let best = { zone: 'UTC', distance: Number.POSITIVE_INFINITY };
  for (const zone of Intl.supportedValuesOf('timeZone')) {
    const local = now.setZone(zone);
    const distance = Math.abs(local.hour * 60 + local.minute - runMinutes);
    if (distance < best.distance) best = { zone, distance };
  }
  return best.zone;
}

async function call(origin: string, token: string, method: string, path: string, body?: object) {
  const res = await fetch(origin + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text };
}

async function expectOk(origin: string, token: string, method: string, path: string, body?: object) {
  const res = await call(origin, token, method, path, body);
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path} → ${res.status}: ${res.body}`);
  return res.body;
}

/**
 * A restaurant's store as its owner and an app set it up: contact, address and minimum order in
 * the dashboard (the domain call behind it), then through the API what an app can change: order
 * types and lead times, the weekly hours, a closed day and a day with its own hours.
 */
async function setUpStore(origin: string, token: string, zone: string): Promise<void> {
  await expectOk(origin, token, 'PATCH', storePath, {
    order_types: { pickup: true, delivery: true },
    lead_times: { pickup_minutes: 20, delivery_minutes: 45 },
    preorders: true,
  });
  await expectOk(origin, token, 'PUT', `${storePath}/hours`, {
    opening_hours: tuesdayToSunday.flatMap((weekday) => [
      { weekday, open: '11:30', close: '14:30' },
      { weekday, open: '18:00', close: '22:30' },
    ]),
    delivery_hours: tuesdayToSunday.map((weekday) => ({ weekday, open: '18:00', close: '22:00' })),
  });
  const today = DateTime.now().setZone(zone).startOf('day');
  await expectOk(origin, token, 'POST', `${storePath}/closures`, {
    date: today.plus({ days: 9 }).toISODate(),
    closed: true,
    note: 'Staff outing',
  });
  await expectOk(origin, token, 'POST', `${storePath}/closures`, {
    date: today.plus({ days: 10 }).toISODate(),
    closed: false,
    hours: [{ open: '12:00', close: '15:00' }],
    note: 'Lunch only',
  });
}

/** The app with the bare route, on a fresh database with the store set up; the bodies checked. */
async function startServer(kind: BenchDatabaseKind) {
  const bench = await openBenchDatabase(kind);
  let app: FastifyInstance | null = null;
  try {
    const db = bench.database.db;
    const ctx = systemCtx(db);
    const tenant = await makeTenant(ctx);
    const zone = nightZone(DateTime.now());
    // A restaurant's zone is set when it is created (makeTenant's is Europe/Berlin) and no API
    // changes it: set on the fresh row, before anything depends on it.
    await db
      .updateTable('restaurants')
      .set({ timezone: zone })
      .where('id', '=', tenant.restaurantId)
      .execute();
    const tenantCtx = { ...ctx, tenantId: tenant.restaurantId };
    await updateStore(tenantCtx, {
      min_order: 1500,
      contact: { phone: '+49 30 1234567', email: 'ciao@trattoria.example', website: null },
      address_line: '10115 Berlin, Torstraße 1',
      location: { lat: 52.5293, lon: 13.4012 },
    });
    const token = await tokenFor(ctx, tenant, ['store:read']);

    const limiters = await openLimiters(
      { db, redisUrl: process.env.REDIS_URL || null },
      { points: 1_000_000_000 },
    );
    app = await buildApp({ config: { baseUrl: 'http://127.0.0.1' }, db, limiters });
    app.addHook('onClose', () => limiters.close());
    // Routes can only be added before listening; the Store it returns is read once set up.
    let snapshot: Store | null = null;
    app.get(barePath, { schema: { hide: true, response: { 200: StoreSchema } } }, async () => {
      if (snapshot === null) throw new Error('the store is not set up yet');
      return snapshot;
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const origin = `http://127.0.0.1:${address.port}`;

    await setUpStore(origin, tenant.token, zone);
    snapshot = await getStore(tenantCtx);
    /** The bodies of GET /v1/store and the bare route, which must be the same. */
    const storeBody = async () => {
      const [store, bare] = await Promise.all(
        [storePath, barePath].map((p) => call(origin, token, 'GET', p)),
      );
      if (store?.status !== 200 || bare?.status !== 200)
        throw new Error(
          `GET ${storePath} → ${store?.status}, GET ${barePath} → ${bare?.status} (expected 200)`,
        );
      if (store.body !== bare.body)
        throw new Error(`the bare route does not return the bytes of GET ${storePath}`);
      return store.body;
    };
    const body = await storeBody();
    const store = JSON.parse(body) as Store;
    if (store.status !== 'closed' || store.next_opening_at === null)
      throw new Error(`the store is ${store.status}, next opening ${store.next_opening_at}: expected closed`);
    const me = await call(origin, token, 'GET', mePath);
    if (me.status !== 200) throw new Error(`GET ${mePath} → ${me.status}`);

    const server = app;
    return {
      origin,
      headers: { authorization: `Bearer ${token}` },
      where: bench.where,
      zone,
      localTime: DateTime.now().setZone(zone).toFormat('ccc HH:mm'),
      nextOpening: DateTime.fromISO(String(store.next_opening_at)).setZone(zone).toFormat('ccc HH:mm'),
      body,
      meBytes: Buffer.byteLength(me.body),
      storeBody,
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

/** CPU time of the whole machine (every core, every process), in ms. */
function cpuTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    const all = times.user + times.nice + times.sys + times.irq + times.idle;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

/** One measured round of one route. */
interface Segment {
  result: LoadResult;
  cpuBusy: number;
  cpuTotal: number;
  /** CPU time of this (the server's) process, µs. */
  serverCpu: number;
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  serverCpuPerRequest: number;
  cpuPercent: number;
}

function combine(segments: readonly Segment[]): Figures {
  const sum = (f: (s: Segment) => number) => segments.reduce((n, s) => n + f(s), 0);
  const latencies = new Float64Array(sum((s) => s.result.latencies.length));
  let offset = 0;
  for (const { result } of segments) {
    latencies.set(result.latencies, offset);
    offset += result.latencies.length;
  }
  latencies.sort();
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil(q * latencies.length) - 1))] ?? Number.NaN;
  const requests = sum((s) => s.result.requests);
  return {
    rps: requests / sum((s) => s.result.seconds),
    p50: at(0.5),
    p99: at(0.99),
    requests,
    non2xx: sum((s) => s.result.non2xx),
    errors: sum((s) => s.result.errors + s.result.timeouts),
    serverCpuPerRequest: sum((s) => s.serverCpu) / requests,
    cpuPercent: (sum((s) => s.cpuBusy) / sum((s) => s.cpuTotal)) * 100,
  };
}

interface StoreRun {
  kind: BenchDatabaseKind;
  description: string;
  figures: Record<Route, Figures>;
}

async function benchDatabase(
  kind: BenchDatabaseKind,
  options: StoreBenchOptions,
  load: LoadRunner,
  failures: string[],
): Promise<StoreRun> {
  log(
    `${kind}: GET ${storePath} bench: fresh database, restaurant set up through the API, server on 127.0.0.1…`,
  );
  const server = await startServer(kind);
  try {
    const job = (path: Route, duration: number): LoadJob => ({
      url: server.origin + path,
      headers: server.headers,
      connections: options.connections,
      duration,
    });
    const check = (label: string, r: LoadResult) => {
      if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0)
        failures.push(
          `${kind} ${label}: ${r.non2xx} non-2xx (status ${JSON.stringify(r.statusCodes)}), ${r.errors} errors, ${r.timeouts} timeouts`,
        );
    };
    log(`${kind}: warm-up ${options.warmup} s per route`);
    for (const path of routes) check(`warm-up ${path}`, await load.run(job(path, options.warmup)));

    const segment = options.duration / options.rounds;
    const segments: Record<Route, Segment[]> = { [barePath]: [], [storePath]: [], [mePath]: [] };
    for (let round = 1; round <= options.rounds; round++) {
      for (const path of routes) {
        log(`${kind}: round ${round}/${options.rounds} ${path} ${segment} s`);
        const cpuBefore = cpuTimes();
        const serverBefore = process.cpuUsage();
        const result = await load.run(job(path, segment));
        const used = process.cpuUsage(serverBefore);
        const cpuAfter = cpuTimes();
        segments[path].push({
          result,
          cpuBusy: cpuAfter.busy - cpuBefore.busy,
          cpuTotal: cpuAfter.total - cpuBefore.total,
          serverCpu: used.user + used.system,
        });
        check(`${path} round ${round}`, result);
      }
    }
    // The comparison holds only if GET /v1/store answered what the bare route did all along.
    if ((await server.storeBody()) !== server.body)
      failures.push(`${kind}: the body of GET ${storePath} changed during the run`);
    return {
      kind,
      description: `${kind}: ${server.where}; zone ${server.zone}, ${server.localTime} local, closed, next opening ${server.nextOpening} (store body ${Buffer.byteLength(server.body)} bytes, me ${server.meBytes})`,
      figures: {
        [barePath]: combine(segments[barePath]),
        [storePath]: combine(segments[storePath]),
        [mePath]: combine(segments[mePath]),
      },
    };
  } finally {
    await server.close();
  }
}

function table(runs: readonly StoreRun[]): string {
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
  for (const { kind, figures } of runs) {
    for (const path of routes) {
      const f = figures[path];
      rows.push([
        kind,
        `GET ${path}`,
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
    const store = figures[storePath].rps;
    rows.push([kind, 'ratio store/bare', (store / figures[barePath].rps).toFixed(3)]);
    rows.push([kind, 'ratio store/me', (store / figures[mePath].rps).toFixed(3)]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Runs the bench on each database in turn; returns the report's lines and any failures. */
export async function benchStore(
  kinds: readonly BenchDatabaseKind[],
  options: StoreBenchOptions,
  load: LoadRunner,
): Promise<{ lines: string[]; failures: string[] }> {
  const failures: string[] = [];
  const runs: StoreRun[] = [];
  for (const kind of kinds) {
    try {
      runs.push(await benchDatabase(kind, options, load, failures));
    } catch (error) {
      failures.push(`${kind} GET ${storePath}: ${(error as Error).message}`);
      log(`${kind}: ${(error as Error).stack ?? error}`);
    }
  }
  return {
    lines: [
      `GET ${storePath}: ${options.connections} connections, ${options.duration} s per route in ${options.rounds} alternating round(s) (bare, store, me), ${options.warmup} s warm-up per route; one store:read token; bare route returns the store's bytes`,
      ...runs.map((r) => r.description),
      '',
      runs.length > 0 ? table(runs) : '(no results)',
      '',
    ],
    failures,
  };
}
