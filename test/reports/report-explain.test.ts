import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RawBuilder, sql } from 'kysely';
import { reportPeriod } from '../../src/domain/reports/report-period.ts';
import {
  amountsQuery,
  productsQuery,
  type ReportScope,
  taxQuery,
} from '../../src/domain/reports/report-queries.ts';
import { buildTestApp, makeTenant, type TestApp } from '../harness.ts';
import { type BulkOrder, insertOrders, simpleOrder } from './report-helpers.ts';

/*
 * The reports' statements find their orders through the index orders_creation_order (tenant_id,
 * created_at, id) WHERE listed, not by reading the whole table: on PostgreSQL, with a restaurant's
 * year among other restaurants' orders and fresh statistics, EXPLAIN of each statement (as the
 * service runs it) names the index (for a whole year the planner may take the primary key's
 * tenant_id instead, as cheap when every row of the restaurant is wanted).
 */

const zone = 'Europe/Berlin';
const yearOf = (count: number, status: BulkOrder['status'] = 'completed'): BulkOrder[] =>
  Array.from({ length: count }, (_, n) =>
    simpleOrder(new Date(Date.UTC(2026, 0, 1) + ((n * 365) / count) * 86_400_000), {
      status: n % 20 === 0 ? 'cancelled' : status,
    }),
  );

describe('report statements on PostgreSQL', {
  skip: !process.env.DATABASE_URL && 'PostgreSQL only (DATABASE_URL)',
}, () => {
  let t: TestApp;
  let scope: (from: string, to: string) => ReportScope;
  before(async () => {
    t = await buildTestApp();
    const tenant = await makeTenant(t.ctx);
    await insertOrders(t.database.db, tenant.restaurantId, yearOf(3000));
    for (let i = 0; i < 6; i += 1) {
      const other = await makeTenant(t.ctx);
      await insertOrders(t.database.db, other.restaurantId, yearOf(3000));
    }
    await sql`ANALYZE orders`.execute(t.database.db);
    scope = (from, to) => ({ tenantId: tenant.restaurantId, zone, period: reportPeriod(zone, from, to) });
  });
  after(() => t.close());

  const plan = async (query: RawBuilder<unknown>) => {
    const { rows } = await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${query}`.execute(t.database.db);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  };

  for (const [name, build] of [
    ['sales amounts', (s: ReportScope) => amountsQuery(s, 'day')],
    ['sales tax lines', (s: ReportScope) => taxQuery(s, 'week')],
    ['products', (s: ReportScope) => productsQuery(s)],
  ] as const) {
    it(`${name}: a month and the whole year read through an index`, async () => {
      for (const [from, to] of [
        ['2026-03-01', '2026-03-31'],
        ['2026-01-01', '2026-12-31'],
      ] as const) {
        const text = await plan(build(scope(from, to)));
        // A month takes its days from the creation index; a whole year, all of the restaurant's
        // rows, may as well come through the primary key's tenant_id: either way no other
        // restaurant's order is read.
        const index = from.endsWith('-03-01')
          ? 'orders_creation_order'
          : '(orders_creation_order|orders_pkey)';
        assert.match(text, new RegExp(`Index (Only )?Scan (using|on) ${index}`), text);
        assert.match(text, /Index Cond: \(.*tenant_id = /, text);
        assert.doesNotMatch(text, /Seq Scan on orders/, text);
      }
    });
  }
});
