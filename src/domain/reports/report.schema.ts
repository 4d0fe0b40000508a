import Type, { type Static } from 'typebox';
import { TaxLineSchema } from '../orders/order.schema.ts';
import { LocalDate } from '../store/store.schema.ts';

/*
 * Sales and product reports (decisions.md "Reports"): restaurant-local dates, `to` inclusive, at
 * most 366 days; the orders that are listed (an unpaid online order does not exist for the API)
 * and not cancelled, by their local creation date. Amounts in minor units, prices including VAT.
 */

/** Longest report: a leap year. */
export const maxReportDays = 366;
export const GroupingSchema = Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')], {
  description: 'The rows’ period: a day, a week from Monday, a month.',
});
export type Grouping = Static<typeof GroupingSchema>;

const Sum = Type.Integer({ minimum: 0 });
const Count = Type.Integer({ minimum: 0, description: 'Orders counted.' });

const TypeSales = Type.Object(
  { orders: Count, total: Type.Integer({ minimum: 0, description: 'Σ total of these orders.' }) },
  { additionalProperties: false },
);

const salesFigures = {
  orders: Count,
  subtotal: { ...Sum, description: 'Σ subtotal (the items’ line totals).' },
  delivery_fees: { ...Sum, description: 'Σ delivery_fee.' },
  service_fees: { ...Sum, description: 'Σ service_fee.' },
  discounts: { ...Sum, description: 'Σ discount.' },
  tips: { ...Sum, description: 'Σ tip.' },
  total: { ...Sum, description: 'Σ total = subtotal + delivery_fees + service_fees − discounts + tips.' },
  net: {
    ...Sum,
    description:
      'total − tips − tax: the revenue before VAT, the gross of every tax line less its tax (a line ' +
      'without a rate counts whole: its VAT is not known).',
  },
  tax: { ...Sum, description: 'Σ tax of the orders’ tax lines (a line without a rate counts 0).' },
  by_type: Type.Object(
    { pickup: TypeSales, delivery: TypeSales, dine_in: TypeSales },
    { additionalProperties: false, description: 'The orders and their total by order type.' },
  ),
  tax_lines: Type.Array(TaxLineSchema, {
    description:
      'The orders’ tax lines added up by rate (gross, net and tax each summed): one line per rate, ' +
      'ascending, the line without a rate last; the gross amounts add up to total − tips.',
  }),
};

export const SalesFiguresSchema = Type.Object(salesFigures, { additionalProperties: false });
export type SalesFigures = Static<typeof SalesFiguresSchema>;

export const SalesRowSchema = Type.Object(
  {
    from: {
      ...LocalDate,
      description: 'First day of the period within the report (a Monday, a 1st, or the report’s `from`).',
    },
    to: { ...LocalDate, description: 'Last day of the period within the report (inclusive).' },
    ...salesFigures,
  },
  { additionalProperties: false },
);
export type SalesRow = Static<typeof SalesRowSchema>;

export const SalesReportSchema = Type.Object(
  {
    object: Type.Literal('sales_report'),
    currency: Type.String({ description: 'ISO 4217, the restaurant’s.' }),
    timezone: Type.String({ description: 'The restaurant’s IANA time zone, in which the dates are read.' }),
    from: LocalDate,
    to: LocalDate,
    group_by: GroupingSchema,
    totals: SalesFiguresSchema,
    rows: Type.Array(SalesRowSchema, {
      description: 'Every period from `from` to `to`, oldest first, periods without orders included (zeros).',
    }),
  },
  { additionalProperties: false },
);
export type SalesReport = Static<typeof SalesReportSchema>;

export const ProductRowSchema = Type.Object(
  {
    product_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'null once the product is gone from the menu (as on orders’ lines).',
    }),
    name: Type.String({ description: 'The product’s name on its most recent order line.' }),
    quantity: Type.Integer({ minimum: 0, description: 'Σ quantity of its order lines.' }),
    gross: Type.Integer({
      minimum: 0,
      description:
        'Σ line_total of its order lines (options included, VAT included), before the orders’ fees, ' +
        'discounts and tips, which are not shared out to products.',
    }),
    orders: Type.Integer({ minimum: 0, description: 'Orders with at least one line of it.' }),
  },
  { additionalProperties: false },
);
export type ProductRow = Static<typeof ProductRowSchema>;

export const ProductReportSchema = Type.Object(
  {
    object: Type.Literal('product_report'),
    currency: Type.String({ description: 'ISO 4217, the restaurant’s.' }),
    timezone: Type.String({ description: 'The restaurant’s IANA time zone, in which the dates are read.' }),
    from: LocalDate,
    to: LocalDate,
    rows: Type.Array(ProductRowSchema, {
      description: 'One row per product sold, by gross descending (then name, then product_id).',
    }),
  },
  { additionalProperties: false },
);
export type ProductReport = Static<typeof ProductReportSchema>;
