import { randomBytes } from 'node:crypto';
import type { Insertable } from 'kysely';
import { DateTime } from 'luxon';
import type { Db } from '../../src/db/client.ts';
import type { DB } from '../../src/db/schema.ts';
import { orderMoney, type TaxLine } from '../../src/domain/orders/order-amounts.ts';
import { newId } from '../../src/domain/shared/ids.ts';

/*
 * Orders inserted in bulk, as the reports read them: the row a placement writes (amounts from
 * orderMoney over the lines, lines and tax lines frozen on it), with its creation time, type, status
 * and listing chosen by the caller. For many orders at chosen times (the property test, DST days,
 * the bench); test/reports/reports-api.test.ts also places real ones through the guest API.
 */

export const orderTypes = ['pickup', 'delivery', 'dine_in'] as const;
export const orderStatuses = [
  'pending',
  'confirmed',
  'preparing',
  'ready',
  'completed',
  'cancelled',
] as const;

export interface BulkLine {
  product_id: string;
  name: string;
  quantity: number;
  unit_price: number;
  tax_rate_bps: number | null;
}

export interface BulkOrder {
  created_at: Date;
  type: (typeof orderTypes)[number];
  status: (typeof orderStatuses)[number];
  /** false: an online order still awaiting its payment (not listed). */
  listed: boolean;
  lines: BulkLine[];
  delivery_fee: number;
  service_fee: number;
  discount: number;
  tip: number;
}

/** The orders row of `order` (a placement's columns; amounts and tax lines by orderMoney). */
export function orderRow(tenantId: string, order: BulkOrder): Insertable<DB['orders']> {
  const items = order.lines.map((line) => ({
    id: newId(),
    product_id: line.product_id,
    name: line.name,
    quantity: line.quantity,
    unit_price: line.unit_price,
    line_total: line.unit_price * line.quantity,
    tax_rate_bps: line.tax_rate_bps,
    options: [],
  }));
  const money = orderMoney(items, order);
  const online = !order.listed || order.tip % 2 === 1;
  return {
    tenant_id: tenantId,
    id: newId(),
    code: randomBytes(5).toString('hex').toUpperCase(),
    type: order.type,
    source: order.type === 'dine_in' ? 'table' : 'storefront',
    status: order.status,
    listed: order.listed,
    payment_method: online ? 'online' : 'on_site',
    payment_state: order.listed ? (online ? 'paid' : 'open') : 'awaiting',
    pay_by: online ? new Date(order.created_at.getTime() + 30 * 60_000) : null,
    paid_at: online && order.listed ? new Date(order.created_at.getTime() + 60_000) : null,
    currency: 'EUR',
    ...money.amounts,
    items: JSON.stringify(items),
    tax_lines: JSON.stringify(money.tax.lines),
    customer_name: order.type === 'dine_in' ? null : 'Bulk Guest',
    delivery_address: order.type === 'delivery' ? 'Hauptstraße 1' : null,
    delivery_postal_code: order.type === 'delivery' ? '10115' : null,
    delivery_city: order.type === 'delivery' ? 'Berlin' : null,
    table_id: order.type === 'dine_in' ? newId() : null,
    table_label: order.type === 'dine_in' ? 'Table 1' : null,
    cancel_reason: order.status === 'cancelled' ? 'Bulk.' : null,
    cancelled_by: order.status === 'cancelled' ? 'restaurant' : null,
    guest_key_hash: randomBytes(32).toString('hex'),
    created_at: order.created_at,
    updated_at: order.created_at,
  };
}

/** Inserts the orders, 1000 a statement. */
export async function insertOrders(db: Db, tenantId: string, orders: readonly BulkOrder[]): Promise<void> {
  for (let from = 0; from < orders.length; from += 1000)
    await db
      .insertInto('orders')
      .values(orders.slice(from, from + 1000).map((order) => orderRow(tenantId, order)))
      .execute();
}

/** A pickup order of one line, paid on site, created at `at`. */
export function simpleOrder(at: string | Date, more: Partial<BulkOrder> = {}): BulkOrder {
  return {
    created_at: typeof at === 'string' ? new Date(at) : at,
    type: 'pickup',
    status: 'completed',
    listed: true,
    lines: [{ product_id: newId(), name: 'Pizza', quantity: 1, unit_price: 1000, tax_rate_bps: 700 }],
    delivery_fee: 0,
    service_fee: 0,
    discount: 0,
    tip: 0,
    ...more,
  };
}

/** The instant of a Berlin wall-clock time (`2026-10-25T23:30`). */
export const berlin = (local: string): Date => DateTime.fromISO(local, { zone: 'Europe/Berlin' }).toJSDate();

export interface Sums {
  orders: number;
  subtotal: number;
  delivery_fees: number;
  service_fees: number;
  discounts: number;
  tips: number;
  total: number;
  net: number;
  tax: number;
  by_type: Record<(typeof orderTypes)[number], { orders: number; total: number }>;
  tax_lines: TaxLine[];
}

/** What a report must show for these orders (already filtered): sums over their own rows. */
export function expectedSums(rows: readonly Insertable<DB['orders']>[]): Sums {
  const byRate = new Map<number | null, TaxLine>();
  const sums: Sums = {
    orders: 0,
    subtotal: 0,
    delivery_fees: 0,
    service_fees: 0,
    discounts: 0,
    tips: 0,
    total: 0,
    net: 0,
    tax: 0,
    by_type: {
      pickup: { orders: 0, total: 0 },
      delivery: { orders: 0, total: 0 },
      dine_in: { orders: 0, total: 0 },
    },
    tax_lines: [],
  };
  for (const row of rows) {
    sums.orders += 1;
    sums.subtotal += row.subtotal;
    sums.delivery_fees += row.delivery_fee;
    sums.service_fees += row.service_fee;
    sums.discounts += row.discount;
    sums.tips += row.tip;
    sums.total += row.total;
    const type = sums.by_type[row.type as (typeof orderTypes)[number]];
    type.orders += 1;
    type.total += row.total;
    for (const line of JSON.parse(row.tax_lines as string) as TaxLine[]) {
      sums.tax += line.tax ?? 0;
      sums.net += line.net ?? line.gross;
      const sum = byRate.get(line.rate_bps) ?? { rate_bps: line.rate_bps, gross: 0, net: null, tax: null };
      sum.gross += line.gross;
      if (line.net !== null) sum.net = (sum.net ?? 0) + line.net;
      if (line.tax !== null) sum.tax = (sum.tax ?? 0) + line.tax;
      byRate.set(line.rate_bps, sum);
    }
  }
  sums.tax_lines = [...byRate.values()].sort((a, b) =>
    a.rate_bps === null ? 1 : b.rate_bps === null ? -1 : a.rate_bps - b.rate_bps,
  );
  return sums;
}
