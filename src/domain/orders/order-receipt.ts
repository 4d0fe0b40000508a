import type { OrdersTable, TaxLineRow } from '../../db/schema.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { orderColumns } from './order-rows.ts';

/*
 * An order's receipt: what the guest's confirmation mail and the storefront's print view show,
 * from the order as it was placed (its lines and VAT lines are frozen on it) and the restaurant
 * as it is (name, address, VAT id). Amounts in minor units of `currency`; instants as ISO 8601,
 * shown in the restaurant's `timezone`.
 */
export interface Receipt {
  restaurant: { name: string; address: string | null; vat_id: string | null };
  code: string;
  placed_at: string;
  timezone: string;
  currency: string;
  type: OrdersTable['type'];
  items: { quantity: number; name: string; options: string[]; line_total: number }[];
  tax_lines: TaxLineRow[];
  amounts: Pick<OrdersTable, 'subtotal' | 'delivery_fee' | 'service_fee' | 'discount' | 'tip' | 'total'>;
  payment: { method: OrdersTable['payment_method']; paid: boolean };
}

/** The order (by id, in the ctx's restaurant) with what its receipt and its guest's mails need; undefined: none. */
export function orderWithRestaurant(ctx: Ctx, orderId: string) {
  const tenantId = tenantOf(ctx);
  return ctx.db
    .selectFrom('orders as o')
    .innerJoin('restaurants as r', 'r.id', 'o.tenant_id')
    .innerJoin('stores as s', 's.tenant_id', 'o.tenant_id')
    .select(['r.name', 'r.slug', 'r.language', 'r.livemode', 'r.timezone', 's.address_line', 's.vat_id'])
    .select([...orderColumns, 'o.guest_email'])
    .where('o.tenant_id', '=', tenantId)
    .where('r.id', '=', tenantId)
    .where('s.tenant_id', '=', tenantId)
    .where('o.id', '=', orderId)
    .executeTakeFirst();
}
export type OrderWithRestaurant = NonNullable<Awaited<ReturnType<typeof orderWithRestaurant>>>;

export function receiptOf(row: OrderWithRestaurant): Receipt {
  return {
    restaurant: { name: row.name, address: row.address_line, vat_id: row.vat_id },
    code: row.code,
    placed_at: row.created_at.toISOString(),
    timezone: row.timezone,
    currency: row.currency,
    type: row.type,
    items: row.items.map((item) => ({
      quantity: item.quantity,
      name: item.name,
      options: item.options.map((option) => option.name),
      line_total: item.line_total,
    })),
    tax_lines: row.tax_lines,
    amounts: {
      subtotal: row.subtotal,
      delivery_fee: row.delivery_fee,
      service_fee: row.service_fee,
      discount: row.discount,
      tip: row.tip,
      total: row.total,
    },
    payment: { method: row.payment_method, paid: row.payment_state === 'paid' },
  };
}
