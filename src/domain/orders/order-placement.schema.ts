import Type, { type Static } from 'typebox';
import { nullable } from '../shared/common.schema.ts';
import { GuestOrderSchema } from './order.schema.ts';

/** Limits of one guest order. */
export const maxItems = 100;
export const maxQuantity = 99;
export const maxOptionsPerItem = 50;
export const maxTip = 100_000;

const Text = (maxLength: number) => Type.String({ maxLength });

/**
 * A guest's order as the storefront sends it. Prices are never sent: they come from the menu at
 * order time, so an unknown field such as `unit_price` is a 400 like any other.
 */
export const PlaceOrderInputSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('pickup'), Type.Literal('delivery'), Type.Literal('dine_in')]),
    items: Type.Array(
      Type.Object(
        {
          product_id: Type.String({ format: 'uuid' }),
          quantity: Type.Integer({ minimum: 1, maximum: maxQuantity }),
          option_ids: Type.Optional(
            Type.Array(Type.String({ format: 'uuid' }), { maxItems: maxOptionsPerItem, uniqueItems: true }),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: maxItems },
    ),
    requested_for: Type.Optional(
      nullable(
        Type.String({
          format: 'date-time',
          description: 'A preorder’s time; null or absent: as soon as possible.',
        }),
      ),
    ),
    customer: Type.Optional(
      Type.Object(
        { name: Type.Optional(nullable(Text(120))), phone: Type.Optional(nullable(Text(40))) },
        { additionalProperties: false },
      ),
    ),
    delivery: Type.Optional(
      Type.Object(
        { address: Text(200), postal_code: Text(20), city: Text(100) },
        { additionalProperties: false },
      ),
    ),
    table_key: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'From the table’s QR code.' }),
    ),
    note: Type.Optional(nullable(Text(500))),
    guest_email: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 200,
        description:
          'Where the confirmation with the receipt and word of the order’s acceptance, rejection or ' +
          'cancellation go; needed to pay online. Never returned.',
      }),
    ),
    tip: Type.Optional(Type.Integer({ minimum: 0, maximum: maxTip })),
    payment_method: Type.Union([Type.Literal('online'), Type.Literal('on_site')]),
    expected_total: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'The total the guest saw; when the menu’s prices make another, the order is refused.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PlaceOrderInput = Static<typeof PlaceOrderInputSchema>;

/** The answer to a placed order: the order, and the key that lets its guest follow and pay it. */
export const PlacedOrderSchema = Type.Object(
  {
    object: Type.Literal('placed_order'),
    order: GuestOrderSchema,
    guest_key: Type.String({ description: 'Shown once: the guest’s key to the order’s page and payment.' }),
  },
  { additionalProperties: false },
);
export type PlacedOrder = Static<typeof PlacedOrderSchema>;
