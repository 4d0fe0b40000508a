import { onReplica } from '../../db/client.ts';
import type { TaxLine } from '../orders/order-amounts.ts';
import { productsOnMenu } from '../orders/order-rows.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import type { Grouping, ProductReport, SalesFigures, SalesReport } from './report.schema.ts';
import { periodsOf, reportPeriod } from './report-period.ts';
import {
  type AmountsRow,
  amountsQuery,
  count,
  productsQuery,
  type ReportScope,
  type TaxRow,
  taxQuery,
} from './report-queries.ts';

/*
 * GET /reports/sales and /reports/products (decisions.md "Reports"). Both read the orders' own
 * amounts and frozen lines, aggregated in the database; the totals are the rows added up, so they
 * agree with the rows to the unit. They read the read replica where there is one: a report a
 * moment behind the last order is still the report (docs/scale-out.md).
 */

export interface ReportInput {
  from: string;
  to: string;
}

async function scopeOf(ctx: Ctx, input: ReportInput) {
  const restaurant = await ctx.db
    .selectFrom('restaurants')
    .select(['timezone', 'currency'])
    .where('id', '=', tenantOf(ctx))
    .executeTakeFirstOrThrow();
  const scope: ReportScope = {
    tenantId: tenantOf(ctx),
    zone: restaurant.timezone,
    period: reportPeriod(restaurant.timezone, input.from, input.to),
  };
  return { restaurant, scope };
}

export function salesReport(ctx: Ctx, input: ReportInput & { group_by: Grouping }): Promise<SalesReport> {
  return onReplica(ctx.db, (db) => sales({ ...ctx, db }, input));
}

async function sales(ctx: Ctx, input: ReportInput & { group_by: Grouping }): Promise<SalesReport> {
  const { restaurant, scope } = await scopeOf(ctx, input);
  const [amounts, taxes] = await Promise.all([
    amountsQuery(scope, input.group_by).execute(ctx.db),
    taxQuery(scope, input.group_by).execute(ctx.db),
  ]);
  const byPeriod = new Map(amounts.rows.map((row) => [row.period, row]));
  const taxByPeriod = Map.groupBy(taxes.rows, (row) => row.period);
  const rows = periodsOf(scope.period, input.group_by).map((period) => ({
    from: period.from,
    to: period.to,
    ...figures(byPeriod.get(period.key), taxByPeriod.get(period.key) ?? []),
  }));
  return {
    object: 'sales_report',
    currency: restaurant.currency,
    timezone: restaurant.timezone,
    from: input.from,
    to: input.to,
    group_by: input.group_by,
    totals: addUp(rows),
    rows,
  };
}

const noAmounts = {
  orders: 0,
  subtotal: 0,
  delivery_fees: 0,
  service_fees: 0,
  discounts: 0,
  tips: 0,
  total: 0,
};

/** One period's figures from its sums; net = total − tips − tax. */
function figures(amounts: AmountsRow | undefined, taxes: readonly TaxRow[]): SalesFigures {
  const sums = amounts
    ? {
        orders: count(amounts.orders),
        subtotal: count(amounts.subtotal),
        delivery_fees: count(amounts.delivery_fees),
        service_fees: count(amounts.service_fees),
        discounts: count(amounts.discounts),
        tips: count(amounts.tips),
        total: count(amounts.total),
      }
    : noAmounts;
  const taxLines = sortedLines(
    taxes.map((row) => ({
      rate_bps: row.rate_bps,
      gross: count(row.gross),
      net: row.rate_bps === null ? null : count(row.net),
      tax: row.rate_bps === null ? null : count(row.tax),
    })),
  );
  const tax = taxLines.reduce((sum, line) => sum + (line.tax ?? 0), 0);
  const type = (name: 'pickup' | 'delivery' | 'dine_in') => ({
    orders: count(amounts?.[`${name}_orders`] ?? 0),
    total: count(amounts?.[`${name}_total`] ?? 0),
  });
  return {
    ...sums,
    net: sums.total - sums.tips - tax,
    tax,
    by_type: { pickup: type('pickup'), delivery: type('delivery'), dine_in: type('dine_in') },
    tax_lines: taxLines,
  };
}

/** The rows' figures added up, tax lines by rate. */
function addUp(rows: readonly SalesFigures[]): SalesFigures {
  const total = (pick: (row: SalesFigures) => number) => rows.reduce((sum, row) => sum + pick(row), 0);
  const lines = new Map<number | null, TaxLine>();
  for (const line of rows.flatMap((row) => row.tax_lines)) {
    const sum = lines.get(line.rate_bps);
    lines.set(
      line.rate_bps,
      sum
        ? {
            rate_bps: line.rate_bps,
            gross: sum.gross + line.gross,
            net: line.net === null ? null : (sum.net ?? 0) + line.net,
            tax: line.tax === null ? null : (sum.tax ?? 0) + line.tax,
          }
        : { ...line },
    );
  }
  const type = (name: 'pickup' | 'delivery' | 'dine_in') => ({
    orders: total((row) => row.by_type[name].orders),
    total: total((row) => row.by_type[name].total),
  });
  return {
    orders: total((row) => row.orders),
    subtotal: total((row) => row.subtotal),
    delivery_fees: total((row) => row.delivery_fees),
    service_fees: total((row) => row.service_fees),
    discounts: total((row) => row.discounts),
    tips: total((row) => row.tips),
    total: total((row) => row.total),
    net: total((row) => row.net),
    tax: total((row) => row.tax),
    by_type: { pickup: type('pickup'), delivery: type('delivery'), dine_in: type('dine_in') },
    tax_lines: sortedLines([...lines.values()]),
  };
}

/** As on orders: rates ascending, the line without a rate last. */
function sortedLines(lines: TaxLine[]): TaxLine[] {
  return lines.sort((a, b) =>
    a.rate_bps === b.rate_bps
      ? 0
      : a.rate_bps === null
        ? 1
        : b.rate_bps === null
          ? -1
          : a.rate_bps - b.rate_bps,
  );
}

export function productReport(ctx: Ctx, input: ReportInput): Promise<ProductReport> {
  return onReplica(ctx.db, (db) => products({ ...ctx, db }, input));
}

async function products(ctx: Ctx, input: ReportInput): Promise<ProductReport> {
  const { restaurant, scope } = await scopeOf(ctx, input);
  const { rows } = await productsQuery(scope).execute(ctx.db);
  const onMenu = await productsOnMenu(
    ctx,
    rows.map((row) => row.product_id),
  );
  return {
    object: 'product_report',
    currency: restaurant.currency,
    timezone: restaurant.timezone,
    from: input.from,
    to: input.to,
    rows: rows.map((row) => ({
      product_id: onMenu.has(row.product_id) ? row.product_id : null,
      name: row.name,
      quantity: count(row.quantity),
      gross: count(row.gross),
      orders: count(row.orders),
    })),
  };
}
