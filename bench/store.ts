/*
 * GET /v1/store under load (part of `npm run bench`, on each database of the run; alone with
 * `--only store`). Its status and next opening are computed at every request from the weekly
 * hours, the special days and the pause in the restaurant's zone, on top of what GET /v1/me does
 * (token lookup, rate limit) and one query (the store with its restaurant and special days).
 * For each database, on one Fastify instance, in alternating rounds:
 * - GET /v1/store of a restaurant set up as a real one (lunch and dinner Tuesday to Sunday,
 *   delivery in the evenings, two special days), at a moment when it is closed;
 * - a bare route returning the same bytes (the Store read once, through the same schema);
 * - GET /v1/me with the same token (store:read only), the second baseline.
 * The server's clock is the real one. The restaurant's zone is the one where it is closest to
 * 04:00 now, so the store is closed for hours either side of the run and its next opening (the
 * coming lunch) does not move; the body is checked again after the run.
 */
import { DateTime } from 'luxon';
import { systemCtx } from '../src/domain/shared/context.ts';
import { type Store, StoreSchema } from '../src/domain/store/store.schema.ts';
import { getStore, updateStore } from '../src/domain/store/store.service.ts';
import { makeTenant, tokenFor } from '../test/harness.ts';
import { type BenchApp, closeBoth, listenWithBareRoute } from './bare-route.ts';
import { type BenchDatabaseKind, openBenchDatabase } from './databases.ts';
import { type Figures, type RouteRun, routeTable } from './figures.ts';
import { type LoadRunner, measureRoutes, type RoundsOptions } from './rounds.ts';

const storePath = '/v1/store';
const barePath = '/bench/store-bare';
const mePath = '/v1/me';
const routes = [barePath, storePath, mePath] as const;
type Route = (typeof routes)[number];

/** Local time of the run: the middle of the night, hours from closing (22:30) and opening (11:30). */
const runMinutes = 4 * 60;
const tuesdayToSunday = [1, 2, 3, 4, 5, 6];

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
  let app: BenchApp | null = null;
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

    // Routes can only be added before listening; the Store it returns is read once set up.
    let snapshot: Store | null = null;
    app = await listenWithBareRoute(db, {
      path: barePath,
      schema: StoreSchema,
      handler: async () => {
        if (snapshot === null) throw new Error('the store is not set up yet');
        return snapshot;
      },
    });
    const origin = app.origin;

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
      close: () => closeBoth(server, bench),
    };
  } catch (error) {
    await closeBoth(app, bench);
    throw error;
  }
}

interface StoreRun {
  kind: BenchDatabaseKind;
  description: string;
  figures: Record<Route, Figures>;
}

async function benchDatabase(
  kind: BenchDatabaseKind,
  options: RoundsOptions,
  load: LoadRunner,
  failures: string[],
): Promise<StoreRun> {
  log(
    `${kind}: GET ${storePath} bench: fresh database, restaurant set up through the API, server on 127.0.0.1…`,
  );
  const server = await startServer(kind);
  try {
    const figures = await measureRoutes(kind, server, routes, options, load, failures);
    // The comparison holds only if GET /v1/store answered what the bare route did all along.
    if ((await server.storeBody()) !== server.body)
      failures.push(`${kind}: the body of GET ${storePath} changed during the run`);
    return {
      kind,
      description: `${kind}: ${server.where}; zone ${server.zone}, ${server.localTime} local, closed, next opening ${server.nextOpening} (store body ${Buffer.byteLength(server.body)} bytes, me ${server.meBytes})`,
      figures,
    };
  } finally {
    await server.close();
  }
}

/** The table's rows of one database, with GET /v1/store's req/s over the bare route's and GET /v1/me's. */
function tableRun({ kind, figures }: StoreRun): RouteRun {
  const store = figures[storePath].rps;
  return {
    kind,
    figures,
    ratios: [
      ['ratio store/bare', store / figures[barePath].rps],
      ['ratio store/me', store / figures[mePath].rps],
    ],
  };
}

/** Runs the bench on each database in turn; returns the report's lines and any failures. */
export async function benchStore(
  kinds: readonly BenchDatabaseKind[],
  options: RoundsOptions,
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
      runs.length > 0 ? routeTable(runs.map(tableRun)) : '(no results)',
      '',
    ],
    failures,
  };
}
