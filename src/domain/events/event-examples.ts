import type { Connection } from '../connections/connection.schema.ts';
import { connectionRateLimit } from '../connections/rate-limit.ts';
import type { Store } from '../store/store.schema.ts';
import type { EventType, NewEvent } from './events.store.ts';

/*
 * The documented example `data` of every event type: what a test event carries when the
 * webhook may not see a real event of its type (docs/api-decisions.md, test events). The objects
 * are in the spec's resource shapes, with `previous_status`, `changed`, `previous`,
 * `previous_scopes` and `reason` as decisions.md (Events) gives them. Ids, names and times are
 * fixed and invented; only the restaurant's and the connection's own ids are the receiver's, so
 * that `data` agrees with the envelope's `tenant_id` and `connection_id` and shows nothing else.
 */

/** Whose test event it is: the ids the envelope carries too. */
export interface ExampleAudience {
  tenantId: string;
  /** Null for a restaurant's own webhook, which is sent no app.* events. */
  connectionId: string | null;
}

type EventData = NewEvent['data'];

const at = (time: string) => new Date(`2026-10-08T${time}.000Z`);

const ids = {
  connection: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c01',
  order: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c02',
  pizzaLine: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c03',
  lemonadeLine: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c04',
  reservation: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c05',
  table: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c06',
  category: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c07',
  pizza: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c08',
  lemonade: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c09',
  extras: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c0a',
  extraCheese: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c0b',
};

/**
 * A delivery order paid online: two pizzas with extra cheese and a lemonade, 2.50 delivery, 2.00 tip
 * (spec: Order). Its events exist once the payment is confirmed, so it is paid in all of them; the
 * tax lines are orderMoney's (order-amounts.ts): the delivery fee shared in proportion to the items.
 */
const order = {
  object: 'order',
  id: ids.order,
  code: 'K7Q2',
  external_id: null,
  type: 'delivery',
  source: 'storefront',
  status: 'pending',
  created_at: at('17:02:11'),
  updated_at: at('17:02:30'),
  acknowledged_at: null,
  requested_for: null,
  currency: 'EUR',
  amounts: { subtotal: 3050, delivery_fee: 250, service_fee: 0, discount: 0, tip: 200, total: 3500 },
  tax: {
    included: true,
    lines: [
      { rate_bps: 700, gross: 2921, net: 2730, tax: 191 },
      { rate_bps: 1900, gross: 379, net: 318, tax: 61 },
    ],
  },
  payment: { method: 'online', status: 'paid', paid_at: at('17:02:30') },
  customer: { name: 'Alex Example', phone: '+49 30 5550123' },
  delivery: { address: 'Beispielstraße 12', postal_code: '10115', city: 'Berlin' },
  table: null,
  note: 'Please ring twice.',
  items: [
    {
      id: ids.pizzaLine,
      product_id: ids.pizza,
      name: 'Pizza Margherita',
      quantity: 2,
      unit_price: 1350,
      line_total: 2700,
      tax_rate_bps: 700,
      options: [
        {
          id: ids.extraCheese,
          name: 'Extra cheese',
          price_delta: 150,
          group_id: ids.extras,
          group_name: 'Extras',
        },
      ],
    },
    {
      id: ids.lemonadeLine,
      product_id: ids.lemonade,
      name: 'Lemonade 0.33 l',
      quantity: 1,
      unit_price: 350,
      line_total: 350,
      tax_rate_bps: 1900,
      options: [],
    },
  ],
  cancellation: null,
  estimated_ready_at: null,
};

const reservation = {
  object: 'reservation',
  id: ids.reservation,
  code: 'R4M8',
  status: 'confirmed',
  starts_at: new Date('2026-10-09T17:30:00.000Z'),
  duration_minutes: 120,
  party_size: 4,
  table_ids: [ids.table],
  source: 'guest',
  guest_name: 'Sam Example',
  note: 'A window table if possible.',
  created_at: at('09:15:40'),
  updated_at: at('09:15:40'),
  deleted_at: null,
};

const category = {
  object: 'category',
  id: ids.category,
  external_id: null,
  name: 'Pizza',
  position: 0,
  tax_class: 'food',
  created_at: at('08:00:00'),
  updated_at: at('08:00:00'),
};

const product = {
  object: 'product',
  id: ids.pizza,
  external_id: null,
  category_id: ids.category,
  name: 'Pizza Margherita',
  description: 'Tomato, mozzarella, basil.',
  price: 1050,
  available: true,
  unavailable_until: null,
  position: 0,
  allergens: ['gluten', 'milk'],
  diets: ['vegetarian'],
  image_url: null,
  images: null,
  tax_class: null,
  tax_rates: { dine_in_bps: 700, takeaway_bps: 700 },
  option_group_ids: [ids.extras],
  created_at: at('08:00:00'),
  updated_at: at('08:00:00'),
};

const option = {
  object: 'option',
  id: ids.extraCheese,
  external_id: null,
  group_id: ids.extras,
  name: 'Extra cheese',
  price_delta: 150,
  available: true,
  unavailable_until: null,
  position: 0,
  updated_at: at('08:00:00'),
};

/** A shared group of up to three extras. */
const optionGroup = {
  object: 'option_group',
  id: ids.extras,
  external_id: null,
  name: 'Extras',
  min_select: 0,
  max_select: 3,
  position: 0,
  product_id: null,
  options: [option],
  updated_at: at('08:00:00'),
};

function store(tenantId: string): Store {
  return {
    object: 'store',
    id: tenantId,
    name: 'Example Bistro',
    slug: 'example-bistro',
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    status: 'open',
    paused_until: null,
    pause_note: null,
    next_opening_at: null,
    preorders: true,
    order_types: { pickup: true, delivery: true, dine_in: true },
    order_statuses: ['pending', 'confirmed', 'preparing', 'ready', 'completed', 'cancelled'],
    lead_times: { pickup_minutes: 20, delivery_minutes: 45 },
    busy: null,
    min_order: 1500,
    always_open: false,
    opening_hours: [1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, open: '11:30', close: '22:00' })),
    delivery_hours: [],
    closures: [{ object: 'closure', date: '2026-12-24', closed: true, hours: [], note: 'Christmas Eve' }],
    contact: { phone: '+49 30 5550100', email: 'hello@example.com', website: 'https://example.com' },
    address: { line: '10115 Berlin, Beispielstraße 1', postal_code: '10115', city: 'Berlin', country: 'DE' },
    location: { lat: 52.532, lon: 13.384 },
    delivery_zones: [
      { name: 'Mitte', postal_codes: ['10115', '10117', '10119'], fee: 250, min_order: 1500 },
      { name: 'Prenzlauer Berg', postal_codes: ['104*'], fee: 400, min_order: 2000 },
    ],
  };
}

function connection(audience: ExampleAudience): Connection {
  return {
    object: 'connection',
    // A restaurant's own webhook is never sent app.* events: the fixed id is only a fallback.
    id: audience.connectionId ?? ids.connection,
    livemode: false,
    app: { client_id: 'example_client_id', name: 'Example App' },
    tenant: {
      id: audience.tenantId,
      name: 'Example Bistro',
      slug: 'example-bistro',
      timezone: 'Europe/Berlin',
      currency: 'EUR',
      country: 'DE',
    },
    scopes: ['orders:read', 'orders:write', 'menu:read'],
    plan: 'pro',
    rate_limit: { limit: connectionRateLimit.limit, window_seconds: connectionRateLimit.windowSeconds },
    created_at: at('07:45:00'),
  };
}

const examples: { [T in EventType]: (audience: ExampleAudience) => EventData } = {
  'order.created': () => ({ object: order }),
  'order.status_changed': () => ({
    object: { ...order, status: 'preparing', updated_at: at('17:10:00'), estimated_ready_at: at('17:35:00') },
    previous_status: 'confirmed',
  }),
  'order.cancelled': () => ({
    object: {
      ...order,
      status: 'cancelled',
      updated_at: at('17:05:00'),
      cancellation: { reason: 'Out of mozzarella tonight.', by: 'app' },
    },
    previous_status: 'pending',
    reason: 'Out of mozzarella tonight.',
  }),
  // Recorded with order.created when the online payment is confirmed: the same object.
  'order.paid': () => ({ object: order }),
  'reservation.created': () => ({ object: reservation }),
  'reservation.updated': () => ({
    object: { ...reservation, status: 'seated', updated_at: at('17:32:05') },
    changed: ['status'],
    previous: { status: 'confirmed' },
    previous_status: 'confirmed',
  }),
  'menu.category.created': () => ({ object: category }),
  'menu.category.updated': () => ({
    object: { ...category, name: 'Pizzas', updated_at: at('10:00:00') },
    changed: ['name'],
    previous: { name: 'Pizza' },
  }),
  'menu.category.deleted': () => ({ object: category }),
  'menu.product.created': () => ({ object: product }),
  'menu.product.updated': () => ({
    object: { ...product, available: false, unavailable_until: at('14:00:00'), updated_at: at('10:00:00') },
    changed: ['available', 'unavailable_until'],
    previous: { available: true, unavailable_until: null },
  }),
  'menu.product.deleted': () => ({ object: product }),
  'menu.option_group.created': () => ({ object: optionGroup }),
  'menu.option_group.updated': () => ({
    object: { ...optionGroup, updated_at: at('10:00:00') },
    changed: ['max_select'],
    previous: { max_select: 2 },
  }),
  'menu.option_group.deleted': () => ({ object: optionGroup }),
  'menu.option.created': () => ({ object: option }),
  'menu.option.updated': () => ({
    object: { ...option, price_delta: 200, updated_at: at('10:00:00') },
    changed: ['price_delta'],
    previous: { price_delta: 150 },
  }),
  'menu.option.deleted': () => ({ object: option }),
  'menu.synced': (audience) => ({
    object: {
      object: 'menu_sync',
      connection_id: audience.connectionId ?? ids.connection,
      mode: 'merge',
      counts: {
        categories: { created: 1, updated: 0, deleted: 0, unchanged: 4 },
        products: { created: 3, updated: 2, deleted: 1, unchanged: 40 },
        option_groups: { created: 0, updated: 0, deleted: 0, unchanged: 6 },
        options: { created: 0, updated: 1, deleted: 0, unchanged: 18 },
      },
    },
  }),
  'menu.refresh_requested': () => ({
    object: {
      object: 'menu_refresh_request',
      requested_at: at('09:15:00'),
      note: 'New summer menu is online: please sync.',
    },
  }),
  'store.paused': ({ tenantId }) => ({
    object: {
      ...store(tenantId),
      status: 'paused',
      paused_until: at('18:30:00'),
      pause_note: 'Kitchen is full, back soon.',
    },
  }),
  'store.resumed': ({ tenantId }) => ({ object: store(tenantId) }),
  'store.updated': ({ tenantId }) => ({
    object: store(tenantId),
    changed: ['lead_times'],
    previous: { lead_times: { pickup_minutes: 15, delivery_minutes: 40 } },
  }),
  'app.connected': (audience) => ({ object: connection(audience) }),
  'app.scopes_changed': (audience) => ({
    object: connection(audience),
    previous_scopes: ['orders:read'],
  }),
  'app.disconnected': (audience) => ({ object: connection(audience), reason: 'app' }),
  ping: () => ({ object: null }),
};

export function eventExample(type: EventType, audience: ExampleAudience): EventData {
  return examples[type](audience);
}
