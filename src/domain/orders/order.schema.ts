import Type, { type Static } from 'typebox';
import { nullable, Timestamp } from '../shared/common.schema.ts';
import { finalOrderStatuses, usableOrderStatuses } from './order-status.ts';

const Id = Type.String({ format: 'uuid' });
const Amount = Type.Integer({ minimum: 0 });

export const orderStatuses = [...usableOrderStatuses, ...finalOrderStatuses] as const;
export const orderSources = ['storefront', 'table', 'app'] as const;
export const maxReason = 200;
export const maxExternalId = 100;

const OrderStatusSchema = Type.Enum(orderStatuses);

export const AmountsSchema = Type.Object(
  {
    subtotal: Amount,
    delivery_fee: Amount,
    service_fee: Amount,
    discount: { ...Amount, description: 'Already subtracted from the total.' },
    tip: { ...Amount, description: 'Passed on to the restaurant, not revenue.' },
    total: {
      ...Amount,
      description: 'subtotal + delivery_fee + service_fee − discount + tip, in the smallest currency unit.',
    },
  },
  { additionalProperties: false },
);

export const TaxLineSchema = Type.Object(
  {
    rate_bps: nullable(
      Type.Integer({ minimum: 0, description: 'VAT rate in basis points; null: no rate stored.' }),
    ),
    gross: Amount,
    net: nullable(Type.Integer({ description: 'gross − tax; null without a rate.' })),
    tax: nullable(
      Type.Integer({ description: 'round(gross × rate / (10000 + rate)); null without a rate.' }),
    ),
  },
  { additionalProperties: false },
);

export const TaxSchema = Type.Object(
  {
    included: Type.Literal(true),
    lines: Type.Array(TaxLineSchema, {
      description:
        'One line per rate, ascending, the line without a rate last; the gross amounts add up to total − tip. ' +
        'Delivery and service fees and discounts are split over the rates in proportion to the items’ gross.',
    }),
  },
  { additionalProperties: false },
);

const OrderItemOptionSchema = Type.Object(
  {
    id: nullable(Id),
    name: Type.String(),
    price_delta: Type.Integer({ description: 'Per unit.' }),
    group_id: nullable(Id),
    group_name: nullable(Type.String()),
  },
  { additionalProperties: false },
);

const OrderItemSchema = Type.Object(
  {
    id: Id,
    product_id: nullable({ ...Id, description: 'null when the product has since been deleted.' }),
    name: Type.String({ description: 'The product’s name at order time.' }),
    quantity: Type.Integer({ minimum: 1 }),
    unit_price: { ...Amount, description: 'One unit including its options.' },
    line_total: { ...Amount, description: 'unit_price × quantity.' },
    tax_rate_bps: nullable(Type.Integer({ minimum: 0, description: 'Frozen at order time.' })),
    options: Type.Array(OrderItemOptionSchema),
  },
  { additionalProperties: false },
);

export const CancellationSchema = nullable(
  Type.Object(
    {
      reason: nullable(Type.String()),
      by: Type.Enum(['app', 'restaurant', 'guest'] as const),
    },
    { additionalProperties: false, description: 'Why and by whom the order was cancelled; null otherwise.' },
  ),
);

/** The fields the public Order and the guest's view of it share, in the spec's order. */
const orderFields = {
  id: Id,
  code: Type.String({ description: 'The short code the guest sees.', examples: ['K7Q2'] }),
  type: Type.Enum(['pickup', 'delivery', 'dine_in'] as const),
  source: Type.Enum(orderSources, {
    description: '`storefront`: the ordering page; `table`: a table’s QR code; `app`: a signed-in guest.',
  }),
  status: OrderStatusSchema,
  created_at: Timestamp,
  updated_at: Timestamp,
};

const orderTail = {
  requested_for: nullable({
    ...Timestamp,
    description: 'The guest’s chosen time; null: as soon as possible.',
  }),
  currency: Type.String({ examples: ['EUR'] }),
  amounts: AmountsSchema,
  tax: TaxSchema,
};

const orderRest = {
  customer: nullable(
    Type.Object(
      { name: nullable(Type.String()), phone: nullable(Type.String()) },
      { additionalProperties: false, description: 'No e-mail ever; phone null for dine-in.' },
    ),
  ),
  delivery: nullable(
    Type.Object(
      {
        address: nullable(Type.String()),
        postal_code: nullable(Type.String()),
        city: nullable(Type.String()),
      },
      { additionalProperties: false, description: 'Only for delivery orders.' },
    ),
  ),
  table: nullable(
    Type.Object(
      { id: Id, label: nullable(Type.String()) },
      { additionalProperties: false, description: 'Only for dine-in orders.' },
    ),
  ),
  note: nullable(Type.String({ description: 'The guest’s note for the kitchen.' })),
  items: Type.Array(OrderItemSchema),
  cancellation: CancellationSchema,
  estimated_ready_at: nullable({
    ...Timestamp,
    description: 'When the kitchen expects it ready: set by accepting with `prep_minutes` (an addition).',
  }),
};

/** The Order resource (spec: Order), plus `cancellation` and `estimated_ready_at` (decisions.md). */
export const OrderSchema = Type.Object(
  {
    object: Type.Literal('order'),
    ...orderFields,
    external_id: nullable(
      Type.String({
        description: 'Your app’s own reference, set by acknowledge; null to other apps and in events.',
      }),
    ),
    acknowledged_at: nullable({
      ...Timestamp,
      description: 'When your app first acknowledged it; null to other apps and in events.',
    }),
    ...orderTail,
    payment: Type.Object(
      {
        method: Type.Enum(['online', 'on_site'] as const),
        status: Type.Enum(['paid', 'open'] as const, {
          description: '`open` for on-site payments, never recorded.',
        }),
        paid_at: nullable(Timestamp),
      },
      { additionalProperties: false },
    ),
    ...orderRest,
  },
  { additionalProperties: false },
);
export type Order = Static<typeof OrderSchema>;

/**
 * What the guest sees of their order: the Order without the apps' fields, with the payment's own
 * progress (`awaiting` until an online payment is confirmed, `expired` when it never came).
 */
export const GuestOrderSchema = Type.Object(
  {
    object: Type.Literal('guest_order'),
    ...orderFields,
    ...orderTail,
    payment: Type.Object(
      {
        method: Type.Enum(['online', 'on_site'] as const),
        status: Type.Enum(['awaiting', 'paid', 'open', 'expired'] as const),
        paid_at: nullable(Timestamp),
      },
      { additionalProperties: false },
    ),
    ...orderRest,
  },
  { additionalProperties: false },
);
export type GuestOrder = Static<typeof GuestOrderSchema>;

const Reason = Type.String({
  maxLength: maxReason,
  description: `Up to ${maxReason} characters; shown to the guest.`,
  examples: ['Out of dough tonight.'],
});

export const AcknowledgeInputSchema = Type.Object(
  {
    external_id: Type.Optional(
      nullable(
        Type.String({
          minLength: 1,
          maxLength: maxExternalId,
          description:
            'Your own reference (1 to 100 characters, no leading or trailing space, no control characters); ' +
            'one order per value. null clears it.',
          examples: ['POS-10492'],
        }),
      ),
    ),
  },
  { additionalProperties: false, examples: [{ external_id: 'POS-10492' }] },
);
export type AcknowledgeInput = Static<typeof AcknowledgeInputSchema>;

export const maxPrepMinutes = 240;
export const AcceptInputSchema = Type.Object(
  {
    prep_minutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: maxPrepMinutes,
        description: 'Minutes until ready (an addition): sets `estimated_ready_at`, also shown to the guest.',
        examples: [20],
      }),
    ),
  },
  { additionalProperties: false, examples: [{ prep_minutes: 20 }] },
);
export type AcceptInput = Static<typeof AcceptInputSchema>;

export const ReasonInputSchema = Type.Object(
  { reason: Type.Optional(nullable(Reason)) },
  { additionalProperties: false, examples: [{ reason: 'Out of dough tonight.' }] },
);
export type ReasonInput = Static<typeof ReasonInputSchema>;

export const AdvanceInputSchema = Type.Object(
  {
    status: Type.Optional(
      Type.Enum(orderStatuses, {
        description:
          'Forward to this status; without it, to the next status the restaurant uses. `cancelled` only by reject or cancel.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ status: 'ready' }] },
);
export type AdvanceInput = Static<typeof AdvanceInputSchema>;
