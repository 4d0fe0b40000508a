/*
 * Reports (alone with `--only reports`), on a fresh PostgreSQL database: a busy restaurant's year,
 * 100,000 listed orders with 300,000 lines (1 to 5 each, 30 products at 7 %, 19 % and no rate;
 * 5 % cancelled, fees, discounts and tips varied; inserted in bulk as placements write them,
 * test/reports/report-helpers.ts), beside two other restaurants' 25,000 orders each.
 * Sequential requests (one connection: a report is a single caller's latency, not a load), in
 * alternating rounds against the bare SQL aggregate they are made of, i.e. the very statements
 * of src/domain/reports/report-queries.ts run directly on the pool:
 * 1. GET /v1/reports/sales for the whole year by day (week, month) against its two statements
 *    (amounts per day, tax lines per day and rate); also the amounts statement alone, to show
 *    what the tax lines' JSON costs.
 * 2. GET /v1/reports/products for the whole year against its statement.
 * Issue 16's target: the sales report by day ≤ 1.5 × the bare aggregate, and under 1 s.
 */
import { sql } from 'kysely';
import { DateTime } from 'luxon';
import { reportPeriod } from '../src/domain/reports/report-period.ts';
import {
  amountsQuery,
  productsQuery,
  type ReportScope,
  taxQuery,
} from '../src/domain/reports/report-queries.ts';
import { systemCtx } from '../src/domain/shared/context.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { makeTenant } from '../test/harness.ts';
import { type BulkOrder, insertOrders, orderTypes } from '../test/reports/report-helpers.ts';
import { type BenchApp, closeBoth, listenWithBareRoute } from './bare-route.ts';
import { openBenchDatabase } from './databases.ts';
import { alignColumns, percentile } from './figures.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const zone = 'Europe/Berlin';
const from = '2026-01-01';
const to = '2026-12-31';
const orderCount = 100_000;
const otherOrders = 25_000;
const warmups = 3;
const rounds = 15;

const products = Array.from({ length: 30 }, (_, n) => ({
  product_id: newId(),
  name: `Product ${n + 1}`,
  unit_price: 250 + ((n * 137) % 1800),
  tax_rate_bps: n % 5 === 0 ? null : n % 2 === 0 ? 1900 : 700,
}));

/** Order `n` of `count` over the year: 1 to 5 lines (3 on average), its charges varied. */
function yearOrder(n: number, count: number): BulkOrder {
  const start = DateTime.fromISO(from, { zone }).toMillis();
  const end = DateTime.fromISO(to, { zone }).plus({ days: 1 }).toMillis();
  const type = orderTypes[n % 3] as BulkOrder['type'];
  const lines = Array.from({ length: 1 + ((n * 7) % 5) }, (_, i) => {
    const product = products[(n * 13 + i * 7) % products.length] as (typeof products)[number];
    return { ...product, quantity: 1 + ((n + i) % 3) };
  });
  return {
    created_at: new Date(start + Math.floor(((end - start) * n) / count)),
    type,
    status: n % 20 === 0 ? 'cancelled' : 'completed',
    listed: true,
    lines,
    delivery_fee: type === 'delivery' ? 250 : 0,
    service_fee: n % 4 === 0 ? 100 : 0,
    discount: n % 10 === 0 ? 150 : 0,
    tip: n % 6 === 0 ? 200 : 0,
  };
}

async function insertYear(db: Parameters<typeof insertOrders>[0], tenantId: string, count: number) {
  for (let first = 0; first < count; first += 10_000) {
    const batch = Array.from({ length: Math.min(10_000, count - first) }, (_, i) =>
      yearOrder(first + i, count),
    );
    await insertOrders(db, tenantId, batch);
  }
}

interface Timing {
  label: string;
  ms: number[];
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
const p95 = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.95,
  );

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export async function benchReports(): Promise<{ lines: string[]; failures: string[] }> {
  const failures: string[] = [];
  log('postgres reports: fresh database, a restaurant’s year of 100,000 orders and two neighbours…');
  const bench = await openBenchDatabase('postgres');
  let app: BenchApp | null = null;
  try {
    const db = bench.database.db;
    const tenant = await makeTenant(systemCtx(db));
    const loadStart = performance.now();
    await insertYear(db, tenant.restaurantId, orderCount);
    for (let i = 0; i < 2; i += 1)
      await insertYear(db, (await makeTenant(systemCtx(db))).restaurantId, otherOrders);
    await sql`VACUUM ANALYZE orders`.execute(db);
    const items = await sql<{ orders: string; items: string }>`
      SELECT count(*) AS orders, sum(json_array_length(items)) AS items FROM orders WHERE tenant_id = ${tenant.restaurantId}`.execute(
      db,
    );
    log(
      `postgres reports: ${items.rows[0]?.orders} orders, ${items.rows[0]?.items} lines loaded in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`,
    );
    app = await listenWithBareRoute(db, {
      path: '/bench/reports-unused',
      schema: { type: 'object' },
      handler: async () => ({}),
    });
    const origin = app.origin;
    const scope: ReportScope = { tenantId: tenant.restaurantId, zone, period: reportPeriod(zone, from, to) };
    const get = (path: string) => async () => {
      const res = await fetch(`${origin}/v1${path}`, {
        headers: { authorization: `Bearer ${tenant.token}` },
      });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}: ${body.slice(0, 300)}`);
      return body;
    };
    const sales = (group: string) => get(`/reports/sales?from=${from}&to=${to}&group_by=${group}`);
    const bareSales = (group: 'day' | 'week' | 'month') => () =>
      Promise.all([amountsQuery(scope, group).execute(db), taxQuery(scope, group).execute(db)]);

    // The answer must be the bare aggregate's, or the comparison means nothing.
    const answer = JSON.parse(await sales('day')()) as { totals: { orders: number; total: number } };
    const [amounts] = await bareSales('day')();
    const bareOrders = amounts.rows.reduce((sum, row) => sum + Number(row.orders), 0);
    const bareTotal = amounts.rows.reduce((sum, row) => sum + Number(row.total), 0);
    if (answer.totals.orders !== bareOrders || answer.totals.total !== bareTotal)
      failures.push(
        `the sales report (${answer.totals.orders}, ${answer.totals.total}) is not the bare aggregate's (${bareOrders}, ${bareTotal})`,
      );

    const jobs: [string, () => Promise<unknown>][] = [
      ['bare SQL: amounts + tax lines by day', bareSales('day')],
      ['GET /v1/reports/sales?group_by=day', sales('day')],
      ['bare SQL: amounts by day only', () => amountsQuery(scope, 'day').execute(db)],
      ['bare SQL: tax lines by day only', () => taxQuery(scope, 'day').execute(db)],
      ['bare SQL: amounts + tax lines by week', bareSales('week')],
      ['GET /v1/reports/sales?group_by=week', sales('week')],
      ['bare SQL: amounts + tax lines by month', bareSales('month')],
      ['GET /v1/reports/sales?group_by=month', sales('month')],
      ['bare SQL: products', () => productsQuery(scope).execute(db)],
      ['GET /v1/reports/products', get(`/reports/products?from=${from}&to=${to}`)],
    ];
    const timings: Timing[] = jobs.map(([label]) => ({ label, ms: [] }));
    for (let round = 0; round < warmups + rounds; round += 1)
      for (const [index, [, work]] of jobs.entries()) {
        const ms = await timed(work);
        if (round >= warmups) timings[index]?.ms.push(ms);
      }

    const byLabel = new Map(timings.map((t) => [t.label, t]));
    const ratio = (api: string, bare: string) =>
      median(byLabel.get(api)?.ms ?? []) / median(byLabel.get(bare)?.ms ?? []);
    const dayRatio = ratio('GET /v1/reports/sales?group_by=day', 'bare SQL: amounts + tax lines by day');
    const dayMedian = median(byLabel.get('GET /v1/reports/sales?group_by=day')?.ms ?? []);
    const lines = [
      '',
      `Reports on PostgreSQL: one restaurant's year (${bareOrders} counted of ${orderCount} orders, ${items.rows[0]?.items} lines) beside ${2 * otherOrders} other orders; ${rounds} sequential rounds after ${warmups} warm-up(s), ms`,
      alignColumns(
        ['', 'median', 'p95', 'min'],
        timings.map((t) => [
          t.label,
          median(t.ms).toFixed(1),
          p95(t.ms).toFixed(1),
          Math.min(...t.ms).toFixed(1),
        ]),
        1,
      ),
      `ratio sales by day / bare aggregate ${dayRatio.toFixed(2)} (target ≤ 1.5), median ${dayMedian.toFixed(0)} ms (target < 1000): ${dayRatio <= 1.5 && dayMedian < 1000 ? 'meets' : 'MISSES'} issue 16's target`,
      `ratio products / bare aggregate ${ratio('GET /v1/reports/products', 'bare SQL: products').toFixed(2)}`,
    ];
    if (!(dayRatio <= 1.5 && dayMedian < 1000))
      failures.push('postgres reports: the sales report misses its target');
    return { lines, failures };
  } finally {
    await closeBoth(app, bench);
  }
}
