import type { ProductReport, SalesReport } from '../../../domain/reports/report.schema.ts';
import { currencyDigits } from '../../../i18n/money.ts';

/*
 * The reports as CSV files for a spreadsheet (RFC 4180: comma-separated, CRLF line ends, a field
 * quoted when it holds a quote, comma or line break, its quotes doubled). The columns are the
 * report's own fields, named as in the API whatever the page's language, amounts as decimal
 * numbers of the currency (`12.50`, not the API's minor units) with the currency in a column.
 */

/** Starts of a cell a spreadsheet would run as a formula (OWASP "CSV injection"). */
const formulaStart = /^[=+\-@\t\r]/;

/** One field: a formula start defused with a leading `'`, then quoted if it must be. */
function field(value: string | number): string {
  const text = String(value);
  const safe = formulaStart.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * The file: the header row, then a row per record. A byte order mark first, without which Excel
 * reads UTF-8 as its local code page (an umlaut in a product's name comes out garbled).
 */
function csvFile(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  return `\uFEFF${[header, ...rows].map((row) => row.map(field).join(',')).join('\r\n')}\r\n`;
}

/** Minor units as a decimal amount of the currency, exact (no floating point): 1250 → `12.50`. */
export function decimalAmount(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  if (digits === 0) return String(minor);
  const units = String(Math.abs(minor)).padStart(digits + 1, '0');
  return `${minor < 0 ? '-' : ''}${units.slice(0, -digits)}.${units.slice(-digits)}`;
}

const salesHeader = [
  'from',
  'to',
  'currency',
  'orders',
  'subtotal',
  'delivery_fees',
  'service_fees',
  'discounts',
  'tips',
  'total',
  'net',
  'tax',
  'pickup_orders',
  'pickup_total',
  'delivery_orders',
  'delivery_total',
  'dine_in_orders',
  'dine_in_total',
];

/** A row per period, oldest first. */
export function salesCsv(report: SalesReport): string {
  const amount = (minor: number) => decimalAmount(minor, report.currency);
  return csvFile(
    salesHeader,
    report.rows.map((row) => [
      row.from,
      row.to,
      report.currency,
      row.orders,
      amount(row.subtotal),
      amount(row.delivery_fees),
      amount(row.service_fees),
      amount(row.discounts),
      amount(row.tips),
      amount(row.total),
      amount(row.net),
      amount(row.tax),
      row.by_type.pickup.orders,
      amount(row.by_type.pickup.total),
      row.by_type.delivery.orders,
      amount(row.by_type.delivery.total),
      row.by_type.dine_in.orders,
      amount(row.by_type.dine_in.total),
    ]),
  );
}

/** A row per product, by gross descending; `product_id` empty once it is gone from the menu. */
export function productsCsv(report: ProductReport): string {
  return csvFile(
    ['product_id', 'name', 'quantity', 'orders', 'gross', 'currency'],
    report.rows.map((row) => [
      row.product_id ?? '',
      row.name,
      row.quantity,
      row.orders,
      decimalAmount(row.gross, report.currency),
      report.currency,
    ]),
  );
}
