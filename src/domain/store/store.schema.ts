import Type, { type Static } from 'typebox';
import { usableOrderStatuses } from '../orders/order-status.ts';
import { nullable, Timestamp } from '../shared/common.schema.ts';

/** A local time of day (spec: Store, opening_hours): `HH:MM`, 00:00 to 23:59. */
export const LocalTime = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: 'Restaurant-local time of day, `HH:MM`.',
});

export const HoursWindowSchema = Type.Object(
  { open: LocalTime, close: LocalTime },
  {
    additionalProperties: false,
    description: 'close earlier than open runs past midnight; close equal to open runs until midnight.',
  },
);

export const WeeklyWindowSchema = Type.Object(
  {
    weekday: Type.Integer({ minimum: 0, maximum: 6, description: '0 = Monday … 6 = Sunday.' }),
    open: LocalTime,
    close: LocalTime,
  },
  { additionalProperties: false },
);
export type WeeklyWindow = Static<typeof WeeklyWindowSchema>;

/** Most windows in one weekly schedule (ten a day). */
const maxWeeklyWindows = 70;
const WeeklyHours = Type.Array(WeeklyWindowSchema, { maxItems: maxWeeklyWindows });

/** A calendar date, restaurant-local. */
export const LocalDate = Type.String({
  format: 'date',
  description: 'Restaurant-local date, `YYYY-MM-DD`: a day that exists in the calendar.',
});

/** Longest special-day note. */
export const maxClosureNote = 200;

export const ClosureSchema = Type.Object(
  {
    object: Type.Literal('closure'),
    date: LocalDate,
    closed: Type.Boolean({ description: 'Closed all day.' }),
    hours: Type.Array(HoursWindowSchema, {
      description: 'The day’s own hours when not closed (one or two).',
    }),
    note: nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type Closure = Static<typeof ClosureSchema>;

export const ClosureInputSchema = Type.Object(
  {
    date: LocalDate,
    closed: Type.Boolean(),
    hours: Type.Optional(Type.Array(HoursWindowSchema, { maxItems: 2 })),
    note: Type.Optional(nullable(Type.String({ maxLength: maxClosureNote }))),
  },
  {
    additionalProperties: false,
    examples: [
      {
        date: '2030-12-24',
        closed: false,
        hours: [{ open: '11:30', close: '15:00' }],
        note: 'Christmas Eve: lunch only',
      },
    ],
  },
);
export type ClosureInput = Static<typeof ClosureInputSchema>;

export const DeletedClosureSchema = Type.Object(
  { object: Type.Literal('closure'), date: LocalDate, deleted: Type.Literal(true) },
  { additionalProperties: false },
);

export const ClosureListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(ClosureSchema),
    has_more: Type.Boolean(),
    next_cursor: Type.Null(),
  },
  { additionalProperties: false },
);

export const orderTypes = ['pickup', 'delivery', 'dine_in'] as const;
export type OrderType = (typeof orderTypes)[number];

const OrderTypesSchema = Type.Object(
  { pickup: Type.Boolean(), delivery: Type.Boolean(), dine_in: Type.Boolean() },
  { additionalProperties: false },
);

const PickupMinutes = Type.Integer({ minimum: 0, maximum: 240 });
const DeliveryMinutes = Type.Integer({ minimum: 0, maximum: 360 });

/** Longest busy period ahead: `busy.until` at most this long after the request. */
export const maxBusyHours = 24;

/*
 * Busy mode (decisions.md, Additions beyond the spec): extra minutes on the lead times until
 * `until`, then over by itself (store.updated with `changed` ["busy"]).
 */
const BusyExtraMinutes = Type.Integer({
  minimum: 5,
  maximum: 120,
  description: 'Minutes added to the lead time of every order type while busy.',
});

const BusySchema = Type.Union(
  [
    Type.Object(
      {
        extra_minutes: BusyExtraMinutes,
        until: { ...Timestamp, description: 'When busy mode ends by itself.' },
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      'Busy mode: while set, `extra_minutes` are added to the lead times (`lead_times` keeps the usual ' +
      'ones) until `until`; it then ends by itself and `store.updated` reports `busy` changed. null: not ' +
      'busy (a period whose `until` has passed reads as null at once).',
  },
);

const BusyInputSchema = Type.Union(
  [
    Type.Object(
      {
        extra_minutes: BusyExtraMinutes,
        until: Type.String({
          format: 'date-time',
          description: `When busy mode ends by itself: in the future, at most ${maxBusyHours} hours ahead; with \`Z\` or an offset.`,
        }),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      'Starts or replaces busy mode (both fields needed): `extra_minutes` (5 to 120) on the lead times ' +
      'until `until`. null ends it at once.',
  },
);

/** Limits of the delivery zones (decisions.md, Delivery zones). */
export const maxDeliveryZones = 20;
export const maxZonePostalCodes = 200;
export const maxZoneName = 80;
export const maxDeliveryFee = 1_000_000;
const maxMinOrder = 100_000_000;

/*
 * A delivery zone (decisions.md, Delivery zones): an address is in it when its postal code,
 * normalized (trimmed, upper case, inner spaces removed), equals one of the zone's codes, or
 * starts with one that ends in `*` (`101*`). The first zone in the list that matches applies.
 */
const ZonePostalCode = Type.String({
  minLength: 1,
  maxLength: 20,
  pattern: '^ *[A-Za-z0-9][A-Za-z0-9 -]*[*]? *$',
  description:
    'A postal code (letters, digits, spaces, dashes), or a prefix ending in `*` (`101*`). Compared ' +
    'trimmed, in upper case and without inner spaces.',
});

export const DeliveryZoneSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: maxZoneName, description: 'Shown to guests.' }),
    postal_codes: Type.Array(ZonePostalCode, {
      minItems: 1,
      maxItems: maxZonePostalCodes,
      description: 'The postal codes delivered to; `*` at the end makes a prefix (`101*`).',
    }),
    fee: Type.Integer({
      minimum: 0,
      maximum: maxDeliveryFee,
      description: 'The delivery fee of an order to this zone (minor units): its `amounts.delivery_fee`.',
    }),
    min_order: Type.Integer({
      minimum: 0,
      maximum: maxMinOrder,
      description:
        'The zone’s minimum order (minor units, on the subtotal); the store’s `min_order` applies too, ' +
        'so the higher of the two counts.',
    }),
  },
  { additionalProperties: false },
);
export type DeliveryZone = Static<typeof DeliveryZoneSchema>;

const DeliveryZonesSchema = Type.Array(DeliveryZoneSchema, {
  maxItems: maxDeliveryZones,
  description:
    'Where the restaurant delivers, each zone with its fee and minimum order; an address is in the ' +
    'first zone (in this order) one of whose postal codes matches its own. Empty: delivery to any ' +
    'address, without a fee, with the store’s `min_order`. Set in the dashboard.',
});

/** The Store resource (spec: Store), fields in the spec's order. */
export const StoreSchema = Type.Object(
  {
    object: Type.Literal('store'),
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    slug: Type.String(),
    timezone: Type.String(),
    currency: Type.String(),
    status: Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('paused')]),
    paused_until: nullable(Timestamp),
    pause_note: nullable(Type.String()),
    next_opening_at: nullable(Timestamp),
    preorders: Type.Boolean(),
    order_types: OrderTypesSchema,
    order_statuses: Type.Array(Type.String()),
    lead_times: Type.Object(
      { pickup_minutes: PickupMinutes, delivery_minutes: DeliveryMinutes },
      { additionalProperties: false },
    ),
    busy: BusySchema,
    min_order: Type.Integer({ minimum: 0 }),
    always_open: Type.Boolean(),
    opening_hours: Type.Array(WeeklyWindowSchema),
    delivery_hours: Type.Array(WeeklyWindowSchema),
    closures: Type.Array(ClosureSchema),
    contact: Type.Object(
      { phone: nullable(Type.String()), email: nullable(Type.String()), website: nullable(Type.String()) },
      { additionalProperties: false },
    ),
    address: nullable(
      Type.Object(
        {
          line: nullable(Type.String()),
          postal_code: nullable(Type.String()),
          city: nullable(Type.String()),
          country: nullable(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    location: nullable(
      Type.Object({ lat: Type.Number(), lon: Type.Number() }, { additionalProperties: false }),
    ),
    delivery_zones: DeliveryZonesSchema,
  },
  { additionalProperties: false },
);
export type Store = Static<typeof StoreSchema>;

/** PATCH /store: only the sent fields change. */
export const StorePatchSchema = Type.Object(
  {
    lead_times: Type.Optional(
      Type.Object(
        { pickup_minutes: Type.Optional(PickupMinutes), delivery_minutes: Type.Optional(DeliveryMinutes) },
        { additionalProperties: false },
      ),
    ),
    order_types: Type.Optional(
      Type.Object(
        {
          pickup: Type.Optional(Type.Boolean()),
          delivery: Type.Optional(Type.Boolean()),
          dine_in: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    preorders: Type.Optional(Type.Boolean()),
    busy: Type.Optional(BusyInputSchema),
  },
  {
    additionalProperties: false,
    examples: [
      {
        lead_times: { pickup_minutes: 20, delivery_minutes: 45 },
        order_types: { pickup: true, delivery: true },
        preorders: true,
      },
    ],
  },
);
export type StorePatch = Static<typeof StorePatchSchema>;

/** What the restaurant's owners may change besides (dashboard): PATCH /store's fields and these. */
export const StoreSettingsPatchSchema = Type.Object(
  {
    ...StorePatchSchema.properties,
    min_order: Type.Optional(Type.Integer({ minimum: 0, maximum: maxMinOrder })),
    order_statuses: Type.Optional(
      Type.Array(Type.Union(usableOrderStatuses.map((status) => Type.Literal(status))), {
        minItems: 1,
        maxItems: usableOrderStatuses.length,
        description:
          'The non-final statuses in use: at least one of pending, confirmed, preparing, ready, in that ' +
          'order, none twice (without pending, orders are taken automatically: a new order starts in the ' +
          'first status listed). completed and cancelled always follow.',
      }),
    ),
    contact: Type.Optional(
      Type.Object(
        {
          phone: Type.Optional(nullable(Type.String({ maxLength: 40 }))),
          email: Type.Optional(nullable(Type.String({ maxLength: 200 }))),
          website: Type.Optional(nullable(Type.String({ maxLength: 500 }))),
        },
        { additionalProperties: false },
      ),
    ),
    address_line: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 300 }))),
    location: Type.Optional(
      nullable(
        Type.Object(
          {
            lat: Type.Number({ minimum: -90, maximum: 90 }),
            lon: Type.Number({ minimum: -180, maximum: 180 }),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    default_table_seats: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
    delivery_zones: Type.Optional(DeliveryZonesSchema),
  },
  { additionalProperties: false },
);
export type StoreSettingsPatch = Static<typeof StoreSettingsPatchSchema>;

export const StoreHoursSchema = Type.Object(
  {
    object: Type.Literal('store_hours'),
    always_open: Type.Boolean(),
    opening_hours: Type.Array(WeeklyWindowSchema),
    delivery_hours: Type.Array(WeeklyWindowSchema),
  },
  { additionalProperties: false },
);
export type StoreHours = Static<typeof StoreHoursSchema>;

/** PUT /store/hours: the sent parts are replaced. */
export const StoreHoursInputSchema = Type.Object(
  {
    always_open: Type.Optional(Type.Boolean()),
    opening_hours: Type.Optional(WeeklyHours),
    delivery_hours: Type.Optional(WeeklyHours),
  },
  {
    additionalProperties: false,
    examples: [
      {
        always_open: false,
        // Tuesday to Sunday, 11:30 to 22:00 (Friday and Saturday to 1:00 at night); delivery from 17:00.
        opening_hours: [1, 2, 3, 4, 5, 6].map((weekday) => ({
          weekday,
          open: '11:30',
          close: weekday === 4 || weekday === 5 ? '01:00' : '22:00',
        })),
        delivery_hours: [1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, open: '17:00', close: '22:00' })),
      },
    ],
  },
);
export type StoreHoursInput = Static<typeof StoreHoursInputSchema>;

/** Longest pause note (spec: Limits). */
export const maxPauseNote = 140;

export const PauseInputSchema = Type.Object(
  {
    until: Type.Optional(
      nullable(
        Type.String({
          format: 'date-time',
          description: 'When the pause ends; with a zone (`Z` or an offset).',
        }),
      ),
    ),
    note: Type.Optional(nullable(Type.String({ maxLength: maxPauseNote }))),
  },
  {
    additionalProperties: false,
    examples: [{ until: '2030-06-01T16:00:00Z', note: 'Closed for a private party, back at six.' }],
  },
);
export type PauseInput = Static<typeof PauseInputSchema>;
