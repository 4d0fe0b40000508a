import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { newId } from '../../src/domain/shared/ids.ts';
import { buildTestApp, makeTenant, type TestApp } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import {
  type BulkOrder,
  expectedSums,
  insertOrders,
  orderRow,
  orderStatuses,
  orderTypes,
} from './report-helpers.ts';

/*
 * Random sets of orders (inserted in bulk as placements write them: random times across Berlin's
 * October DST change, types, statuses, listed or awaiting payment, lines at 7 %, 19 % and no rate,
 * fees, discounts, tips): every row of GET /reports/sales, day, week or month, and its totals are
 * the sums over the counted orders' own columns and tax lines, grouped by their Berlin date in
 * plain code here; GET /reports/products sums their lines per product. The few real placements
 * are in reports-api.test.ts.
 */

const from = '2026-10-19';
const to = '2026-11-03';
const zone = 'Europe/Berlin';
// A day either side of the report, so its bounds are tested too.
const earliest = DateTime.fromISO('2026-10-18', { zone }).toMillis();
const latest = DateTime.fromISO('2026-11-05', { zone }).toMillis();
const products = [
  { product_id: newId(), name: 'Pizza', rate: 700 },
  { product_id: newId(), name: 'Wine', rate: 1900 },
  { product_id: newId(), name: 'Water', rate: null },
];

const line = fc.record({
  product: fc.constantFrom(...products),
  quantity: fc.integer({ min: 1, max: 5 }),
  unit_price: fc.integer({ min: 0, max: 5000 }),
});
const order: fc.Arbitrary<BulkOrder> = fc
  .record({
    at: fc.integer({ min: earliest, max: latest }),
    type: fc.constantFrom(...orderTypes),
    status: fc.constantFrom(...orderStatuses),
    listed: fc.constantFrom(true, true, true, false),
    lines: fc.array(line, { minLength: 0, maxLength: 4 }),
    delivery_fee: fc.integer({ min: 0, max: 500 }),
    service_fee: fc.integer({ min: 0, max: 300 }),
    discountShare: fc.double({ min: 0, max: 1, noNaN: true }),
    tip: fc.integer({ min: 0, max: 400 }),
  })
  .map(({ at, lines, discountShare, ...rest }) => {
    const subtotal = lines.reduce((sum, l) => sum + l.unit_price * l.quantity, 0);
    return {
      ...rest,
      created_at: new Date(at),
      lines: lines.map((l) => ({
        product_id: l.product.product_id,
        name: l.product.name,
        quantity: l.quantity,
        unit_price: l.unit_price,
        tax_rate_bps: l.product.rate,
      })),
      discount: Math.floor(discountShare * (subtotal + rest.delivery_fee + rest.service_fee)),
    };
  });

/** The first day of the local period holding `at`, as the report keys its rows. */
function periodStart(at: Date, group: 'day' | 'week' | 'month'): string {
  return DateTime.fromJSDate(at, { zone }).startOf(group).toISODate() as string;
}

describe('reports of random order sets', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  it('rows and totals are the sums of the counted orders’ own amounts and tax lines', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Lengths spread up to the maximum (fast-check's default keeps arrays short): periods with
        // many orders and lines per rate.
        fc.array(order, { maxLength: 60, size: 'max' }),
        fc.constantFrom('day', 'week', 'month'),
        async (orders, group) => {
          const tenant = await makeTenant(t.ctx);
          // A second restaurant with the same orders: never in the first one's report.
          const other = await makeTenant(t.ctx);
          await insertOrders(t.database.db, other.restaurantId, orders);
          const rows = orders.map((o) => orderRow(tenant.restaurantId, o));
          if (rows.length > 0) await t.database.db.insertInto('orders').values(rows).execute();

          const start = DateTime.fromISO(from, { zone }).toJSDate();
          const end = DateTime.fromISO(to, { zone }).plus({ days: 1 }).toJSDate();
          const counted = rows.filter(
            (row) =>
              row.listed &&
              row.status !== 'cancelled' &&
              (row.created_at as Date) >= start &&
              (row.created_at as Date) < end,
          );
          const report = await ok(
            t,
            tenant.token,
            'GET',
            `/reports/sales?from=${from}&to=${to}&group_by=${group}`,
          );
          assert.deepEqual(report.totals, expectedSums(counted));
          const periods = Map.groupBy(counted, (row) => periodStart(row.created_at as Date, group));
          for (const { from: first, to: last, ...figures } of report.rows) {
            const key = periodStart(DateTime.fromISO(first, { zone }).toJSDate(), group);
            assert.deepEqual(figures, expectedSums(periods.get(key) ?? []), `${group} ${first}..${last}`);
          }
          assert.equal(
            report.rows.reduce((sum: number, row: { orders: number }) => sum + row.orders, 0),
            counted.length,
          );

          const items = counted.flatMap((row) =>
            (
              JSON.parse(row.items as string) as {
                product_id: string;
                quantity: number;
                line_total: number;
              }[]
            ).map((item) => ({ ...item, order: row.id })),
          );
          const productReport = await ok(t, tenant.token, 'GET', `/reports/products?from=${from}&to=${to}`);
          const expected = products
            .map((p) => {
              const of = items.filter((item) => item.product_id === p.product_id);
              return {
                // Not on this restaurant's menu: shown as a product gone from it.
                product_id: null,
                name: p.name,
                quantity: of.reduce((sum, item) => sum + item.quantity, 0),
                gross: of.reduce((sum, item) => sum + item.line_total, 0),
                orders: new Set(of.map((item) => item.order)).size,
              };
            })
            .filter((row) => row.orders > 0)
            .sort((a, b) => b.gross - a.gross || a.name.localeCompare(b.name));
          assert.deepEqual(productReport.rows, expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});
