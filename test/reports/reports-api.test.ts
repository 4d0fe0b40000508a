import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/shared/ids.ts';
import { buildTestApp, makeTenant, type Tenant, type TestApp, tokenFor } from '../harness.ts';
import { assertError, ok, request } from '../menu/menu-helpers.ts';
import {
  guest,
  type OrderingTenant,
  orderingTenant,
  pickupOrder,
  place,
  placePaid,
  storefrontPreview,
} from '../orders/order-helpers.ts';
import { berlin, insertOrders, simpleOrder } from './report-helpers.ts';

/*
 * GET /v1/reports/sales and /v1/reports/products (decisions.md "Reports"; docs/api-decisions.md
 * "Reports"): real orders placed through the guest API add up to the report, cancelled and unpaid
 * ones do not count, days, weeks and months follow Berlin's clock across both DST changes, another
 * restaurant's orders never appear, the period's bounds are checked, and reports:read is needed.
 */

type Order = {
  id: string;
  type: 'pickup' | 'delivery' | 'dine_in';
  amounts: {
    subtotal: number;
    delivery_fee: number;
    service_fee: number;
    discount: number;
    tip: number;
    total: number;
  };
  tax: { lines: { rate_bps: number | null; gross: number; net: number | null; tax: number | null }[] };
  items: { product_id: string | null; name: string; quantity: number; line_total: number }[];
};

const sum = (orders: Order[], pick: (order: Order) => number) => orders.reduce((s, o) => s + pick(o), 0);

describe('reports over orders placed by guests', () => {
  let t: TestApp;
  let tenant: OrderingTenant;
  let counted: Order[];
  const today = '2026-11-02';
  before(async () => {
    t = await buildTestApp();
    tenant = await orderingTenant(t);
    const a = await place(t, tenant);
    t.clock.advance(60_000);
    const b = await place(
      t,
      tenant,
      pickupOrder(tenant, {
        type: 'delivery',
        delivery: { address: 'Beispielstraße 12', postal_code: '10115', city: 'Berlin' },
        items: [{ product_id: tenant.products.lemonade, quantity: 3, option_ids: [tenant.options.small] }],
      }),
    );
    t.clock.advance(60_000);
    const paid = await placePaid(t, tenant);
    // Never paid: the order does not exist for the API, nor for its reports.
    await place(t, tenant, pickupOrder(tenant, { payment_method: 'online' }));
    const cancelled = await place(t, tenant);
    await ok(
      t,
      tenant.token,
      'POST',
      `/orders/${cancelled.order.id}/cancel`,
      { reason: 'Out of dough.' },
      200,
    );
    counted = await Promise.all(
      [a.order.id, b.order.id, paid.id].map((id) => ok(t, tenant.token, 'GET', `/orders/${id}`)),
    );
  });
  after(() => t.close());

  it('the totals are the sums of the listed, not cancelled orders’ own amounts and tax lines', async () => {
    const report = await ok(t, tenant.token, 'GET', `/reports/sales?from=${today}&to=${today}`);
    assert.equal(report.object, 'sales_report');
    assert.equal(report.currency, 'EUR');
    assert.equal(report.timezone, 'Europe/Berlin');
    assert.equal(report.group_by, 'day');
    const { totals } = report;
    assert.equal(totals.orders, 3);
    assert.equal(
      totals.subtotal,
      sum(counted, (o) => o.amounts.subtotal),
    );
    assert.equal(
      totals.delivery_fees,
      sum(counted, (o) => o.amounts.delivery_fee),
    );
    assert.equal(
      totals.service_fees,
      sum(counted, (o) => o.amounts.service_fee),
    );
    assert.equal(
      totals.discounts,
      sum(counted, (o) => o.amounts.discount),
    );
    assert.equal(
      totals.tips,
      sum(counted, (o) => o.amounts.tip),
    );
    assert.equal(
      totals.total,
      sum(counted, (o) => o.amounts.total),
    );
    const lines = counted.flatMap((o) => o.tax.lines);
    assert.equal(
      totals.tax,
      lines.reduce((s, l) => s + (l.tax ?? 0), 0),
    );
    assert.equal(totals.net + totals.tax + totals.tips, totals.total);
    for (const line of totals.tax_lines) {
      const same = lines.filter((l) => l.rate_bps === line.rate_bps);
      assert.equal(
        line.gross,
        same.reduce((s, l) => s + l.gross, 0),
      );
      assert.equal(
        line.tax,
        same.reduce((s, l) => s + (l.tax ?? 0), 0),
      );
      assert.equal(
        line.net,
        same.reduce((s, l) => s + (l.net ?? 0), 0),
      );
    }
    assert.deepEqual(
      totals.tax_lines.map((l: { rate_bps: number }) => l.rate_bps),
      [...new Set(lines.map((l) => l.rate_bps))].sort((x, y) => (x ?? 1e9) - (y ?? 1e9)),
    );
    const delivery = counted.filter((o) => o.type === 'delivery');
    assert.deepEqual(totals.by_type.delivery, { orders: 1, total: sum(delivery, (o) => o.amounts.total) });
    assert.deepEqual(totals.by_type.pickup.orders, 2);
    assert.deepEqual(totals.by_type.dine_in, { orders: 0, total: 0 });
    assert.equal(report.rows.length, 1);
    const { from, to, ...row } = report.rows[0];
    assert.deepEqual([from, to], [today, today]);
    assert.deepEqual(row, totals);
  });

  it('the product report sums the counted orders’ lines per product, by gross descending', async () => {
    const report = await ok(t, tenant.token, 'GET', `/reports/products?from=${today}&to=${today}`);
    assert.equal(report.object, 'product_report');
    const items = counted.flatMap((o) => o.items.map((item) => ({ ...item, order: o.id })));
    const expected = [...new Set(items.map((item) => item.product_id))].map((id) => {
      const of = items.filter((item) => item.product_id === id);
      return {
        product_id: id,
        name: of[0]?.name,
        quantity: of.reduce((s, i) => s + i.quantity, 0),
        gross: of.reduce((s, i) => s + i.line_total, 0),
        orders: new Set(of.map((i) => i.order)).size,
      };
    });
    expected.sort((x, y) => y.gross - x.gross);
    assert.deepEqual(report.rows, expected);
    const sales = await ok(t, tenant.token, 'GET', `/reports/sales?from=${today}&to=${today}`);
    assert.equal(
      sum(report.rows, (row) => (row as unknown as { gross: number }).gross),
      sales.totals.subtotal,
    );
  });

  it('a cancelled order leaves the report the moment it is cancelled', async () => {
    const before = await ok(t, tenant.token, 'GET', `/reports/sales?from=${today}&to=${today}`);
    const { order } = await place(t, tenant);
    const placed = await ok(t, tenant.token, 'GET', `/reports/sales?from=${today}&to=${today}`);
    assert.equal(placed.totals.orders, before.totals.orders + 1);
    assert.equal(placed.totals.total, before.totals.total + order.amounts.total);
    await ok(t, tenant.token, 'POST', `/orders/${order.id}/cancel`, { reason: 'Closed.' }, 200);
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/reports/sales?from=${today}&to=${today}`), before);
  });

  it('another restaurant’s orders, live or test, are never in a report', async () => {
    const other = await orderingTenant(t);
    const sandbox = await orderingTenant(t, { livemode: false });
    await place(t, other);
    // A test restaurant's storefront opens for its developer's preview only.
    const preview = await storefrontPreview(t, sandbox);
    const res = await guest(t, sandbox.slug, 'POST', '/orders', pickupOrder(sandbox), { cookie: preview });
    assert.equal(res.statusCode, 201, res.body);
    const mine = await ok(t, tenant.token, 'GET', `/reports/sales?from=${today}&to=${today}`);
    assert.equal(mine.totals.orders, 3);
    for (const each of [other, sandbox]) {
      const theirs = await ok(t, each.token, 'GET', `/reports/sales?from=${today}&to=${today}`);
      assert.equal(theirs.totals.orders, 1);
      const products = await ok(t, each.token, 'GET', `/reports/products?from=${today}&to=${today}`);
      assert.deepEqual(
        products.rows.map((row: { quantity: number }) => row.quantity),
        [2, 1],
      );
    }
  });

  it('a product gone from the menu keeps its row, with product_id null', async () => {
    await ok(t, tenant.token, 'DELETE', `/menu/products/${tenant.products.lemonade}`, undefined, 200);
    const report = await ok(t, tenant.token, 'GET', `/reports/products?from=${today}&to=${today}`);
    const lemonade = report.rows.find((row: { name: string }) => row.name === 'Lemonade');
    assert.equal(lemonade.product_id, null);
    assert.equal(lemonade.quantity, 1 + 3 + 1);
  });
});

describe('report periods in the restaurant’s time zone', () => {
  let t: TestApp;
  let tenant: Tenant;
  before(async () => {
    t = await buildTestApp();
    tenant = await makeTenant(t.ctx);
    const at = (local: string, cents = 1000) =>
      simpleOrder(berlin(local), {
        lines: [{ product_id: newId(), name: 'Pizza', quantity: 1, unit_price: cents, tax_rate_bps: 700 }],
      });
    await insertOrders(t.database.db, tenant.restaurantId, [
      // The last Sunday of October 2026 (25 hours: CEST to CET) and of March 2027 (23 hours).
      at('2026-10-25T00:30', 1),
      at('2026-10-25T23:30', 2),
      at('2026-10-26T00:30', 4),
      at('2027-03-28T00:30', 8),
      at('2027-03-28T23:30', 16),
      at('2027-03-29T00:30', 32),
      // Month ends around the change.
      at('2026-10-31T23:30', 64),
      at('2026-11-01T00:30', 128),
      // Cancelled and never paid: not counted.
      { ...at('2026-10-25T12:00', 256), status: 'cancelled' },
      { ...at('2026-10-25T12:00', 512), listed: false },
    ]);
  });
  after(() => t.close());

  const totals = async (query: string) => {
    const report = await ok(t, tenant.token, 'GET', `/reports/sales?${query}`);
    return report.rows.map((row: { from: string; to: string; total: number }) => [
      row.from,
      row.to,
      row.total,
    ]);
  };

  it('days: an order at 23:30 local on a DST Sunday is on that Sunday, 00:30 on its own day', async () => {
    assert.deepEqual(await totals('from=2026-10-24&to=2026-10-26&group_by=day'), [
      ['2026-10-24', '2026-10-24', 0],
      ['2026-10-25', '2026-10-25', 3],
      ['2026-10-26', '2026-10-26', 4],
    ]);
    assert.deepEqual(await totals('from=2027-03-28&to=2027-03-29'), [
      ['2027-03-28', '2027-03-28', 24],
      ['2027-03-29', '2027-03-29', 32],
    ]);
  });

  it('weeks start on Monday; the first and last are cut to the report’s days', async () => {
    assert.deepEqual(await totals('from=2026-10-21&to=2026-11-01&group_by=week'), [
      ['2026-10-21', '2026-10-25', 3],
      ['2026-10-26', '2026-11-01', 4 + 64 + 128],
    ]);
    assert.deepEqual(await totals('from=2027-03-22&to=2027-04-04&group_by=week'), [
      ['2027-03-22', '2027-03-28', 24],
      ['2027-03-29', '2027-04-04', 32],
    ]);
  });

  it('months: 23:30 local on 31 October is October, 00:30 on 1 November is November', async () => {
    assert.deepEqual(await totals('from=2026-10-15&to=2027-03-31&group_by=month'), [
      ['2026-10-15', '2026-10-31', 1 + 2 + 4 + 64],
      ['2026-11-01', '2026-11-30', 128],
      ['2026-12-01', '2026-12-31', 0],
      ['2027-01-01', '2027-01-31', 0],
      ['2027-02-01', '2027-02-28', 0],
      ['2027-03-01', '2027-03-31', 8 + 16 + 32],
    ]);
  });

  it('the report’s bounds are local midnights', async () => {
    assert.deepEqual(await totals('from=2026-10-25&to=2026-10-25'), [['2026-10-25', '2026-10-25', 3]]);
    assert.deepEqual(await totals('from=2027-03-29&to=2027-03-29'), [['2027-03-29', '2027-03-29', 32]]);
  });
});

describe('report parameters and access', () => {
  let t: TestApp;
  let tenant: Tenant;
  before(async () => {
    t = await buildTestApp();
    tenant = await makeTenant(t.ctx, { plan: 'starter' });
  });
  after(() => t.close());
  const get = (query: string, path = 'sales') => request(t, tenant.token, 'GET', `/reports/${path}?${query}`);

  it('366 days are a report (every plan), 367 are a 400 on `to`', async () => {
    for (const path of ['sales', 'products']) {
      assert.equal((await get('from=2028-01-01&to=2028-12-31', path)).statusCode, 200);
      assert.equal((await get('from=2027-01-01&to=2028-01-01', path)).statusCode, 200);
      assertError(await get('from=2027-01-01&to=2028-01-02', path), 400, 'invalid_request', 'to');
      assertError(await get('from=2028-01-01&to=2029-01-01', path), 400, 'invalid_request', 'to');
    }
    const year = await ok(t, tenant.token, 'GET', '/reports/sales?from=2028-01-01&to=2028-12-31');
    assert.equal(year.rows.length, 366);
    assert.equal(year.totals.orders, 0);
    assert.deepEqual(year.totals.tax_lines, []);
  });

  it('`to` before `from` is a 400 on `to`; one day is fine', async () => {
    assertError(await get('from=2026-11-02&to=2026-11-01'), 400, 'invalid_request', 'to');
    assertError(await get('from=2026-11-02&to=2026-11-01', 'products'), 400, 'invalid_request', 'to');
    assert.equal((await get('from=2026-11-02&to=2026-11-02')).statusCode, 200);
  });

  it('dates must be YYYY-MM-DD days of the calendar; both are required', async () => {
    for (const bad of ['2026-1-05', '2026-02-30', '20260105', '2026-11-02T00:00:00Z', ''])
      assertError(await get(`from=${bad}&to=2026-11-02`), 400, 'invalid_request', 'from');
    assertError(await get('from=2026-11-02&to=2026-13-01'), 400, 'invalid_request', 'to');
    assertError(await get('to=2026-11-02'), 400, 'invalid_request', 'from');
    assertError(await get('from=2026-11-02', 'products'), 400, 'invalid_request', 'to');
  });

  it('group_by is day, week or month; unknown and repeated parameters are a 400 naming them', async () => {
    assertError(await get('from=2026-11-02&to=2026-11-02&group_by=year'), 400, 'invalid_request', 'group_by');
    assertError(await get('from=2026-11-02&to=2026-11-02&currency=EUR'), 400, 'invalid_request', 'currency');
    assertError(
      await get('from=2026-11-02&to=2026-11-02&group_by=day', 'products'),
      400,
      'invalid_request',
      'group_by',
    );
    assertError(await get('from=2026-11-02&from=2026-11-01&to=2026-11-02'), 400, 'invalid_request', 'from');
  });

  it('reports:read is needed (403 insufficient_scope naming it)', async () => {
    const token = await tokenFor(t.ctx, tenant, ['orders:read', 'menu:read', 'store:read']);
    for (const path of ['sales', 'products']) {
      const res = await request(t, token, 'GET', `/reports/${path}?from=2026-11-02&to=2026-11-02`);
      assertError(res, 403, 'insufficient_scope');
      assert.match(String(res.headers['www-authenticate']), /reports:read/);
    }
  });
});
