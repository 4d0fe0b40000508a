import { type RawBuilder, sql } from 'kysely';
import type { Grouping } from './report.schema.ts';
import type { ReportPeriod } from './report-period.ts';

/*
 * The reports' statements: aggregates in the database over the orders a report counts, found
 * through the index orders_creation_order (tenant_id, created_at, id) WHERE listed, which
 * `tenant_id = … AND listed AND created_at` ranges match, or, for a span holding all of the
 * restaurant's orders, the primary key's tenant_id (test/reports/report-explain.test.ts shows it on
 * PostgreSQL). No pre-aggregated table: a year of 100,000 orders stays under issue 16's target
 * (bench/reports.ts). Sums come back as bigint; read them with `count`.
 */

export interface ReportScope {
  readonly tenantId: string;
  readonly zone: string;
  readonly period: ReportPeriod;
}

/** The orders a report counts: this restaurant's, listed, not cancelled, created within the period. */
const counted = (scope: ReportScope) => sql`o.tenant_id = ${scope.tenantId}
  AND o.listed AND o.status <> 'cancelled'
  AND o.created_at >= ${scope.period.start} AND o.created_at < ${scope.period.end}`;

/**
 * The first day of an order's period, local (date_trunc's weeks start on Monday); a date, which
 * the driver reads as `YYYY-MM-DD` (src/db/client.ts), cheaper per row than formatting it here.
 */
const periodKey = (scope: ReportScope, group: Grouping) =>
  sql`date_trunc(${group}, o.created_at AT TIME ZONE ${scope.zone})::date`;

export interface AmountsRow {
  period: string;
  orders: number | string;
  subtotal: number | string;
  delivery_fees: number | string;
  service_fees: number | string;
  discounts: number | string;
  tips: number | string;
  total: number | string;
  pickup_orders: number | string;
  pickup_total: number | string;
  delivery_orders: number | string;
  delivery_total: number | string;
  dine_in_orders: number | string;
  dine_in_total: number | string;
}

/** The amounts columns summed per period. */
export function amountsQuery(scope: ReportScope, group: Grouping): RawBuilder<AmountsRow> {
  const byType = (type: string) => sql`
    count(*) FILTER (WHERE o.type = ${type}) AS ${sql.ref(`${type}_orders`)},
    coalesce(sum(o.total) FILTER (WHERE o.type = ${type}), 0) AS ${sql.ref(`${type}_total`)}`;
  return sql<AmountsRow>`
    SELECT ${periodKey(scope, group)} AS period, count(*) AS orders,
      sum(o.subtotal) AS subtotal, sum(o.delivery_fee) AS delivery_fees,
      sum(o.service_fee) AS service_fees, sum(o.discount) AS discounts, sum(o.tip) AS tips,
      sum(o.total) AS total, ${byType('pickup')}, ${byType('delivery')}, ${byType('dine_in')}
    FROM orders o
    WHERE ${counted(scope)}
    GROUP BY 1`;
}

export interface TaxRow {
  period: string;
  rate_bps: number | null;
  gross: number | string;
  net: number | string | null;
  tax: number | string | null;
}

/**
 * The orders' frozen tax lines summed per period and rate (net and tax stay null without a rate).
 * The JSON is the slow part: json_to_recordset parses each order's lines once into typed columns,
 * where `->>` would parse the text again for every field (a third faster over a year).
 */
export function taxQuery(scope: ReportScope, group: Grouping): RawBuilder<TaxRow> {
  return sql<TaxRow>`
    SELECT ${periodKey(scope, group)} AS period, l.rate_bps,
      sum(l.gross) AS gross, sum(l.net) AS net, sum(l.tax) AS tax
    FROM orders o
      CROSS JOIN LATERAL json_to_recordset(o.tax_lines) AS l(rate_bps int, gross bigint, net bigint, tax bigint)
    WHERE ${counted(scope)}
    GROUP BY 1, 2`;
}

export interface ProductSalesRow {
  product_id: string;
  name: string;
  quantity: number | string;
  gross: number | string;
  orders: number | string;
}

/** The orders' frozen lines summed per product, the name of its latest line, by gross descending. */
export function productsQuery(scope: ReportScope): RawBuilder<ProductSalesRow> {
  return sql<ProductSalesRow>`
    SELECT i.product_id, (array_agg(i.name ORDER BY o.created_at DESC, o.id DESC))[1] AS name,
      sum(i.quantity) AS quantity, sum(i.line_total) AS gross, count(DISTINCT o.id) AS orders
    FROM orders o
      CROSS JOIN LATERAL json_to_recordset(o.items) AS i(product_id uuid, name text, quantity bigint, line_total bigint)
    WHERE ${counted(scope)}
    GROUP BY 1
    ORDER BY gross DESC, name, product_id`;
}

/** A count or sum as the driver returns it (bigint: a string on PostgreSQL) as a number. */
export function count(value: number | string | bigint | null): number {
  const n = Number(value ?? 0);
  if (!Number.isSafeInteger(n)) throw new Error(`a report sum ${value} is beyond the safe integers`);
  return n;
}
