/*
 * Orders under load (alone with `--only orders`), on a fresh PostgreSQL database, in a restaurant
 * set up as test/orders/order-helpers.ts's orderingTenant (open around the clock, a small menu):
 * 1. GET /v1/orders?limit=25&status=pending,confirmed&type=pickup,delivery&updated_since=… over
 *    10,000 listed orders (1 to 3 items each, inserted in bulk), against a bare route serving the
 *    same bytes, as bench/menu.ts does for GET /v1/menu.
 * 2. Guests placing orders (POST /s/{slug}/api/orders, pickupOrder's body, autocannon at a few
 *    connections) against a bare transaction of the same rows (the orders row with its lines, one
 *    events row: plain INSERTs through the same pool, as many loops as connections), alternating.
 */
import { randomBytes } from 'node:crypto';
import { type Insertable, sql } from 'kysely';
import type { Db } from '../src/db/client.ts';
import type { DB } from '../src/db/schema.ts';
import { OrderSchema } from '../src/domain/orders/order.schema.ts';
import { orderMoney } from '../src/domain/orders/order-amounts.ts';
import { actorRecord, systemCtx } from '../src/domain/shared/context.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { ListOf } from '../src/http/shared/pagination.ts';
import { makeTenant } from '../test/harness.ts';
import { type BenchApp, closeBoth, listenWithBareRoute } from './bare-route.ts';
import { openBenchDatabase } from './databases.ts';
import { alignColumns, type Figures, percentile, type RouteRun, routeTable } from './figures.ts';
import type { LoadResult } from './load.ts';
import { type LoadRunner, measureRoutes, type RoundsOptions } from './rounds.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const barePath = '/bench/orders-bare';
const orderCount = 10_000;
const dayMs = 24 * 3600_000;
/** Connections of the placement bench, and loops of its bare baseline. */
const placementConnections = 4;

async function api(origin: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${origin}/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as { id: string };
}

/** orderingTenant's menu, over HTTP: pizza 1200 with extras, lemonade 350 (drinks) with a size. */
export async function orderingMenu(origin: string, token: string) {
  const call = (method: string, path: string, body: unknown) => api(origin, token, method, path, body);
  await call('PUT', '/store/hours', { always_open: true });
  await call('PATCH', '/store', { order_types: { pickup: true, delivery: true } });
  const drinks = await call('POST', '/menu/categories', { name: 'Drinks', tax_class: 'drink' });
  const pizza = await call('POST', '/menu/products', { name: 'Pizza', price: 1200 });
  const lemonade = await call('POST', '/menu/products', {
    name: 'Lemonade',
    price: 350,
    category_id: drinks.id,
  });
  const size = await call('POST', '/menu/option-groups', {
    name: 'Size',
    min_select: 1,
    max_select: 1,
    product_id: lemonade.id,
  });
  await call('POST', `/menu/option-groups/${size.id}/options`, { name: 'Small', price_delta: 0 });
  const large = await call('POST', `/menu/option-groups/${size.id}/options`, {
    name: 'Large',
    price_delta: 100,
  });
  const extras = await call('POST', '/menu/option-groups', {
    name: 'Extras',
    min_select: 0,
    max_select: 2,
    product_id: pizza.id,
  });
  const cheese = await call('POST', `/menu/option-groups/${extras.id}/options`, {
    name: 'Cheese',
    price_delta: 150,
  });
  return {
    pizza: pizza.id,
    lemonade: lemonade.id,
    large: { id: large.id, name: 'Large', price_delta: 100, group_id: size.id, group_name: 'Size' },
    cheese: { id: cheese.id, name: 'Cheese', price_delta: 150, group_id: extras.id, group_name: 'Extras' },
  };
}

type Menu = Awaited<ReturnType<typeof orderingMenu>>;
const statuses = ['pending', 'confirmed', 'preparing', 'ready', 'completed', 'cancelled'] as const;
const types = ['pickup', 'delivery', 'dine_in'] as const;

/** Order `n` of the bulk: listed, its status, type, payment and times varied, from `start` on over 30 days. */
function bulkOrder(tenantId: string, menu: Menu, start: number, n: number) {
  const id = newId();
  const type = types[n % 3] as (typeof types)[number];
  const status = statuses[(n * 7) % 6] as (typeof statuses)[number];
  const online = n % 4 === 0;
  const updated = new Date(start + (n * 30 * dayMs) / orderCount + (n % 17) * 1000);
  const created = new Date(updated.getTime() - ((n * 13) % 90) * 60_000);
  const items = Array.from({ length: 1 + (n % 3) }, (_, position) => {
    const pizza = (n + position) % 2 === 0;
    const options = pizza ? (n % 5 === 0 ? [menu.cheese] : []) : [menu.large];
    const unitPrice = (pizza ? 1200 : 350) + options.reduce((sum, o) => sum + o.price_delta, 0);
    const quantity = 1 + ((n + position) % 3);
    return {
      id: newId(),
      product_id: pizza ? menu.pizza : menu.lemonade,
      name: pizza ? 'Pizza' : 'Lemonade',
      quantity,
      unit_price: unitPrice,
      line_total: unitPrice * quantity,
      tax_rate_bps: type === 'dine_in' ? 1900 : pizza ? 700 : 1900,
      options,
    };
  });
  const money = orderMoney(items, {
    delivery_fee: type === 'delivery' ? 250 : 0,
    service_fee: 0,
    discount: 0,
    tip: n % 6 === 0 ? 200 : 0,
  });
  const order: Insertable<DB['orders']> = {
    tenant_id: tenantId,
    id,
    code: `B${n.toString(36).toUpperCase().padStart(4, '0')}`,
    type,
    source: type === 'dine_in' ? 'table' : 'storefront',
    status,
    listed: true,
    payment_method: online ? 'online' : 'on_site',
    payment_state: online ? 'paid' : 'open',
    pay_by: online ? new Date(created.getTime() + 30 * 60_000) : null,
    paid_at: online ? new Date(created.getTime() + 60_000) : null,
    currency: 'EUR',
    ...money.amounts,
    items: JSON.stringify(items),
    tax_lines: JSON.stringify(money.tax.lines),
    requested_for: n % 10 === 0 ? new Date(created.getTime() + 2 * 3600_000) : null,
    estimated_ready_at: status === 'pending' ? null : new Date(created.getTime() + 25 * 60_000),
    customer_name: type === 'dine_in' ? null : `Guest ${n}`,
    customer_phone: type === 'dine_in' ? null : `+49 30 555${String(n).padStart(5, '0')}`,
    delivery_address: type === 'delivery' ? `Hauptstraße ${1 + (n % 120)}` : null,
    delivery_postal_code: type === 'delivery' ? '10115' : null,
    delivery_city: type === 'delivery' ? 'Berlin' : null,
    table_id: type === 'dine_in' ? newId() : null,
    table_label: type === 'dine_in' ? `Table ${1 + (n % 12)}` : null,
    note: n % 8 === 0 ? 'No onions, please.' : null,
    cancel_reason: status === 'cancelled' ? 'Out of dough.' : null,
    cancelled_by: status === 'cancelled' ? 'restaurant' : null,
    guest_key_hash: randomBytes(32).toString('hex'),
    created_at: created,
    updated_at: updated,
  };
  return order;
}

async function insertBulk(db: Db, tenantId: string, menu: Menu, start: number): Promise<void> {
  for (let from = 0; from < orderCount; from += 1000) {
    const batch = Array.from({ length: 1000 }, (_, i) => bulkOrder(tenantId, menu, start, from + i));
    await db.insertInto('orders').values(batch).execute();
  }
  await sql`ANALYZE orders`.execute(db);
}

/** The bare baseline of a placement: the rows it writes, as plain INSERTs in one transaction. */
async function bareRows(
  db: Db,
  sample: {
    order: Insertable<DB['orders']>;
    event: Insertable<DB['events']>;
  },
) {
  const id = newId();
  const now = new Date();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('orders')
      .values({
        ...sample.order,
        id,
        code: randomBytes(6).toString('hex'),
        guest_key_hash: randomBytes(32).toString('hex'),
        created_at: now,
        updated_at: now,
      })
      .execute();
    await trx
      .insertInto('events')
      .values({ ...sample.event, id: newId(), created_at: now })
      .execute();
  });
}

/** `loops` loops doing `work` back to back for `seconds`: like autocannon's figures. */
async function loopFor(loops: number, seconds: number, work: () => Promise<void>): Promise<LoadResult> {
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  let errors = 0;
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          await work();
          latencies.push(performance.now() - t0);
        } catch (error) {
          errors += 1;
          if (errors === 1) log(`bare placement: ${(error as Error).message}`);
        }
      }
    }),
  );
  return {
    requests: latencies.length,
    seconds: (performance.now() - start) / 1000,
    latencies: Float64Array.from(latencies),
    non2xx: 0,
    errors,
    timeouts: 0,
    statusCodes: {},
  };
}

function summary(results: LoadResult[]) {
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const seconds = results.reduce((n, r) => n + r.seconds, 0);
  const latencies = Float64Array.from(results.flatMap((r) => [...r.latencies])).sort();
  return {
    rps: requests / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    requests,
    errors: results.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0),
  };
}

/** The two measurements on PostgreSQL; the report's lines and any failures. */
export async function benchOrders(
  options: RoundsOptions,
  load: LoadRunner,
): Promise<{ lines: string[]; failures: string[] }> {
  const failures: string[] = [];
  const bench = await openBenchDatabase('postgres');
  let app: BenchApp | null = null;
  try {
    const db = bench.database.db;
    let snapshot: unknown = null;
    app = await listenWithBareRoute(db, {
      path: barePath,
      schema: ListOf(OrderSchema),
      handler: async () => snapshot,
    });
    const origin = app.origin;
    const tenant = await makeTenant(systemCtx(db));
    const menu = await orderingMenu(origin, tenant.token);
    const { slug } = await db
      .selectFrom('restaurants')
      .select('slug')
      .where('id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();

    // 1. GET /v1/orders over 10,000 orders against the bare route with its bytes.
    const start = Date.now() - 31 * dayMs;
    log(`postgres: inserting ${orderCount} orders…`);
    await insertBulk(db, tenant.restaurantId, menu, start);
    const since = new Date(start + 3600_000).toISOString();
    const listPath = `/v1/orders?limit=25&status=pending,confirmed&type=pickup,delivery&updated_since=${since}`;
    const headers = { authorization: `Bearer ${tenant.token}` };
    const listBody = await (await fetch(origin + listPath, { headers })).text();
    snapshot = JSON.parse(listBody);
    if ((snapshot as { data?: unknown[] }).data?.length !== 25)
      failures.push(`GET /v1/orders answered ${listBody.slice(0, 200)}`);
    const bareBody = await (await fetch(origin + barePath, { headers })).text();
    if (bareBody !== listBody) failures.push('the bare route does not return the bytes of GET /v1/orders');
    const readOptions = { ...options, connections: Math.min(options.connections, 10) };
    const figures = await measureRoutes(
      'postgres',
      { origin, headers },
      [barePath, listPath],
      readOptions,
      load,
      failures,
    );

    // 2. Placements against the bare transaction of their rows, alternating.
    const orderBody = JSON.stringify({
      type: 'pickup',
      items: [
        { product_id: menu.pizza, quantity: 2, option_ids: [menu.cheese.id] },
        { product_id: menu.lemonade, quantity: 1, option_ids: [menu.large.id] },
      ],
      customer: { name: 'Alex Guest', phone: '+49 30 5550100' },
      payment_method: 'on_site',
    });
    const placeUrl = `${origin}/s/${slug}/api/orders`;
    const placed = await fetch(placeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: orderBody,
    });
    const placedText = await placed.text();
    if (placed.status !== 201) throw new Error(`POST /s/{slug}/api/orders → ${placed.status}: ${placedText}`);
    const placedId = (JSON.parse(placedText) as { order: { id: string } }).order.id;
    const order = await db
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', placedId)
      .executeTakeFirstOrThrow();
    const event = await db
      .selectFrom('events')
      .selectAll()
      .where('tenant_id', '=', tenant.restaurantId)
      .where('type', '=', 'order.created')
      .executeTakeFirstOrThrow();
    const sample = {
      order: { ...order, items: JSON.stringify(order.items), tax_lines: JSON.stringify(order.tax_lines) },
      event: {
        ...event,
        data: JSON.stringify(event.data),
        actor: JSON.stringify(actorRecord({ kind: 'guest' })),
        position: null,
      },
    };
    const placeJob = (duration: number) => ({
      url: placeUrl,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      body: orderBody,
      connections: placementConnections,
      duration,
    });
    const checkPlace = (label: string, r: LoadResult) => {
      if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0)
        failures.push(
          `postgres placement ${label}: ${r.non2xx} non-2xx (status ${JSON.stringify(r.statusCodes)}), ${r.errors} errors, ${r.timeouts} timeouts`,
        );
    };
    const bare = () => bareRows(db, sample);
    log(`postgres: placement warm-up ${options.warmup} s each way`);
    checkPlace('warm-up', await load.run(placeJob(options.warmup)));
    await loopFor(placementConnections, options.warmup, bare);
    const segment = options.duration / options.rounds;
    const placements: LoadResult[] = [];
    const bares: LoadResult[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      log(`postgres: round ${round}/${options.rounds} placement, bare transaction ${segment} s each`);
      const r = await load.run(placeJob(segment));
      checkPlace(`round ${round}`, r);
      placements.push(r);
      bares.push(await loopFor(placementConnections, segment, bare));
    }
    const [placing, inserting] = [summary(placements), summary(bares)];
    if (inserting.errors > 0) failures.push(`postgres bare placement: ${inserting.errors} errors`);

    const listRatio = (figures[listPath] as Figures).rps / (figures[barePath] as Figures).rps;
    const placeRatio = placing.rps / inserting.rps;
    const listRun: RouteRun = {
      kind: 'postgres',
      figures: figures as Record<string, Figures>,
      ratios: [['ratio orders/bare', listRatio]],
    };
    const row = (label: string, s: ReturnType<typeof summary>, ratio: string) => [
      label,
      s.rps.toFixed(0),
      s.p50.toFixed(2),
      s.p99.toFixed(2),
      String(s.requests),
      String(s.errors),
      ratio,
    ];
    return {
      lines: [
        `GET /v1/orders on PostgreSQL (${bench.where}): ${orderCount} listed orders of 1 to 3 items, page of 25 (body ${Buffer.byteLength(listBody)} bytes); ${readOptions.connections} connections, ${options.duration} s per route in ${options.rounds} round(s); target ≥ 0.35× bare`,
        routeTable([listRun]),
        `PostgreSQL ratio orders/bare ${listRatio.toFixed(3)}: ${listRatio >= 0.35 ? 'meets' : 'BELOW'} the target 0.35`,
        '',
        `POST /s/{slug}/api/orders (pickupOrder, paid on site) against a bare transaction of its rows (the order with its lines, its event), ${placementConnections} connections / loops, ${options.duration} s each way in ${options.rounds} alternating round(s); target ≥ 0.3× bare`,
        alignColumns(
          ['', 'per s', 'p50 ms', 'p99 ms', 'count', 'errors', 'ratio'],
          [
            row('bare transaction (2 INSERTs)', inserting, '1.000'),
            row('placement (guest API)', placing, placeRatio.toFixed(3)),
          ],
          1,
        ),
        `PostgreSQL ratio placement/bare ${placeRatio.toFixed(3)}: ${placeRatio >= 0.3 ? 'meets' : 'BELOW'} the target 0.3`,
        '',
      ],
      failures,
    };
  } finally {
    await closeBoth(app, bench);
  }
}
