import { randomInt } from 'node:crypto';
import { type Insertable, sql } from 'kysely';
import type { OrdersTable } from '../../db/schema.ts';
import { recordEvent } from '../events/events.store.ts';
import type { TaxClass } from '../menu/menu.schema.ts';
import { taxCountryOf } from '../menu/tax-country.ts';
import { vatRates } from '../menu/vat-rates.ts';
import { guestOrderByKey } from '../payments/payments.service.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { newId, newSecret, sha256 } from '../shared/ids.ts';
import { requireFeature } from '../shared/plans.ts';
import type { Plan } from '../shared/scopes.ts';
import { parseTimestamp } from '../shared/timestamps.ts';
import { deliveryTerms } from '../store/delivery-zones.ts';
import { storeStatus } from '../store/schedule.ts';
import type { Store } from '../store/store.schema.ts';
import { getStoreAndRestaurant, leadMinutes } from '../store/store.service.ts';
import { queueKitchenTicket } from './kitchen-printing.ts';
import { orderMoney } from './order-amounts.ts';
import { queueOrderEmail } from './order-emails.ts';
import type { PlacedOrder, PlaceOrderInput } from './order-placement.schema.ts';
import { guestOrderOf, publicOrderOf } from './order-rows.ts';

/*
 * A guest places an order (storefront or table QR code). Everything a real restaurant checks, each
 * refusal naming its field, and nothing written unless all pass:
 * - the order type is switched on (400 `type`) and in the plan (403 plan_required `type`); dine-in
 *   names a table by the key of its QR code (400 `table_key`), delivery an address (400 `delivery`);
 * - as soon as possible only while the store is open (for delivery: in its delivery hours, when it
 *   has any); otherwise a preorder: `requested_for` at least the lead time ahead (with busy mode's
 *   extra minutes), at most 14 days ahead, at a time the store is open and not paused, and only
 *   where the store takes preorders (409 slot_unavailable `requested_for`); a pause without end
 *   takes no orders at all, neither now nor for later (takesLaterOrders);
 * - every product and option exists on the menu and is available (400 on the item's field); an
 *   option belongs to one of the product's groups, and each group's choice count is within its
 *   min_select..max_select (400 `items[i].option_ids`);
 * - prices and VAT rates come from the menu at this moment (dine-in or takeaway rate by type),
 *   never from the guest; `expected_total`, when sent, must equal what they make (400);
 * - a delivery goes to an address in one of the store's delivery zones, when it has any (400
 *   `delivery.postal_code`): the zone's fee is the order's delivery fee, and the order reaches the
 *   higher of the store's and the zone's minimum order (400 `items`); without zones, no fee and the
 *   store's minimum (delivery-zones.ts).
 * The order starts in the first status the restaurant uses. Paid on site, it exists at once
 * (order.created); paid online, it waits for the payment (domain/payments) and expires without it.
 * An online payment needs the guest's e-mail (400 `guest_email`): with it, the confirmation with
 * the receipt is queued with an on-site order, and with an online one once paid (order-emails.ts).
 * An order that starts past pending is accepted as placed: the kitchen's ticket is queued then
 * (once paid, online), when a printer is set (kitchen-printing.ts).
 */

/** The largest total an order may come to (its amounts are 32-bit integers in the database). */
export const maxOrderTotal = 1_000_000_000;

/** How long an online order waits for its payment before it is abandoned. */
export const paymentWindowMs = 30 * 60_000;
const preorderHorizonMs = 14 * 24 * 3600_000;

/** Order codes: no 0/O, 1/I/L, 2/Z, 5/S, 8/B, so a code read aloud or off a screen is never mistaken. */
const codeAlphabet = 'ACDEFGHJKMNPQRTUVWXY34679';

/** A code of `length` characters of the alphabet above (reservations use it too). */
export function newCode(length: number): string {
  let code = '';
  for (let i = 0; i < length; i += 1) code += codeAlphabet[randomInt(codeAlphabet.length)];
  return code;
}

/**
 * Whether guests may order for a later time now (what the storefront offers and placeOrder takes):
 * where the store takes preorders, also while it is closed or paused until a set time (for a time
 * after it), but not while it is paused without an end: no later time is outside that pause.
 */
export function takesLaterOrders(store: Pick<Store, 'preorders' | 'status' | 'paused_until'>): boolean {
  return store.preorders && !pausedWithoutEnd(store);
}

/** A pause with no `until`: it lasts until the restaurant lifts it. */
export function pausedWithoutEnd(store: Pick<Store, 'status' | 'paused_until'>): boolean {
  return store.status === 'paused' && store.paused_until === null;
}

const pausedMessage =
  'The restaurant is paused until it lifts the pause: it takes no orders, neither now nor for later.';

function refuse(code: 'invalid_request' | 'slot_unavailable', message: string, param: string): ApiError {
  return new ApiError(code, message, { param });
}

/**
 * `anyHour`: the store's hours and pause are not checked (a developer's test order from the
 * console, at whatever hour they try the flow); every other rule is.
 * `guestKey`: the key the order gets, chosen before (the storefront's checkout keeps one in the
 * guest's cart): placing again with it answers the order it placed, unchanged, and places nothing
 * (a checkout sent twice, also two at once, is one order).
 */
export async function placeOrder(
  ctx: Ctx,
  input: PlaceOrderInput,
  options: { anyHour?: boolean; guestKey?: string } = {},
): Promise<PlacedOrder> {
  const tenantId = tenantOf(ctx);
  const now = ctx.clock.now();
  if (options.guestKey !== undefined) {
    const placedBefore = await placedWith(ctx, options.guestKey);
    if (placedBefore) return placedBefore;
  }
  const { store, plan, livemode, country } = await getStoreAndRestaurant(ctx);
  checkType(store, plan, input);
  if (input.payment_method === 'online' && input.guest_email === undefined)
    throw refuse(
      'invalid_request',
      'An online payment needs the guest’s e-mail for the receipt.',
      'guest_email',
    );
  const table = input.type === 'dine_in' ? await tableByKey(ctx, input.table_key) : null;
  const delivery = checkDelivery(store, input);
  const requestedFor = options.anyHour ? null : checkTime(store, input, now);
  const lines = await pricedLines(ctx, input, now, taxCountryOf({ country, timezone: store.timezone }));
  const subtotal = lines.reduce((sum, line) => sum + line.line_total, 0);
  if (subtotal < delivery.minOrder)
    throw refuse('invalid_request', `Delivery orders start at ${delivery.minOrder} (minor units).`, 'items');
  if (subtotal + delivery.fee + (input.tip ?? 0) > maxOrderTotal)
    throw refuse('invalid_request', `An order comes to at most ${maxOrderTotal} (minor units).`, 'items');
  const money = orderMoney(lines, {
    delivery_fee: delivery.fee,
    service_fee: 0,
    discount: 0,
    tip: input.tip ?? 0,
  });
  if (input.expected_total !== undefined && input.expected_total !== money.amounts.total)
    throw refuse(
      'invalid_request',
      `The menu's prices make a total of ${money.amounts.total}, not ${input.expected_total}: show the guest the new total.`,
      'expected_total',
    );

  const online = input.payment_method === 'online';
  const guestKey = options.guestKey ?? newSecret('sgk_');
  const items = lines.map((line) => ({ id: newId(), ...line }));
  const order = {
    id: newId(),
    type: input.type,
    source: table === null ? ('storefront' as const) : ('table' as const),
    status: (store.order_statuses[0] ?? 'completed') as OrdersTable['status'],
    payment_method: input.payment_method,
    payment_state: online ? ('awaiting' as const) : ('open' as const),
    paid_at: null,
    currency: store.currency,
    ...money.amounts,
    requested_for: requestedFor,
    estimated_ready_at: null,
    customer_name: input.customer?.name?.trim() || null,
    customer_phone: input.type === 'dine_in' ? null : input.customer?.phone?.trim() || null,
    delivery_address: input.type === 'delivery' ? (input.delivery?.address.trim() ?? null) : null,
    delivery_postal_code: input.type === 'delivery' ? (input.delivery?.postal_code.trim() ?? null) : null,
    delivery_city: input.type === 'delivery' ? (input.delivery?.city.trim() ?? null) : null,
    table_id: table?.id ?? null,
    table_label: table?.label ?? null,
    note: input.note?.trim() || null,
    cancel_reason: null,
    cancelled_by: null,
    created_at: now,
    updated_at: now,
  };
  const code = await insertWithFreshCode(ctx, {
    ...order,
    tenant_id: tenantId,
    listed: !online,
    pay_by: online ? new Date(now.getTime() + paymentWindowMs) : null,
    items: JSON.stringify(items),
    tax_lines: JSON.stringify(money.tax.lines),
    guest_key_hash: sha256(guestKey),
    guest_email: input.guest_email ?? null,
  });
  if (code === null) return (await placedWith(ctx, guestKey)) as PlacedOrder;
  // The order as saved, with every product of its lines on the menu (checked above).
  const saved = { ...order, code, items, tax_lines: money.tax.lines, ack_external_id: null, ack_at: null };
  const onMenu = new Set(items.map((item) => item.product_id));
  if (!online) {
    await recordEvent(ctx, {
      tenantId,
      type: 'order.created',
      connectionId: null,
      livemode,
      data: { object: publicOrderOf(saved, onMenu) },
    });
    await queueOrderEmail(
      ctx,
      { id: saved.id, guest_email: input.guest_email ?? null },
      'orderPlaced',
      guestKey,
    );
    // Accepted as placed (a restaurant that does not use pending): the kitchen's ticket at once.
    if (saved.status !== 'pending') await queueKitchenTicket(ctx, saved.id);
  }
  return { object: 'placed_order', order: guestOrderOf(saved, onMenu), guest_key: guestKey };
}

function checkType(store: Store, plan: Plan, input: PlaceOrderInput): void {
  if (input.type === 'dine_in') requireFeature(plan, 'dine_in', 'type');
  if (!store.order_types[input.type])
    throw refuse('invalid_request', `This restaurant does not take ${input.type} orders now.`, 'type');
  if (input.type === 'delivery' && input.delivery === undefined)
    throw refuse('invalid_request', 'A delivery needs the address.', 'delivery');
  if (input.type === 'delivery')
    for (const field of ['address', 'postal_code', 'city'] as const)
      if (input.delivery?.[field].trim() === '')
        throw refuse('invalid_request', `The delivery ${field} is missing.`, `delivery.${field}`);
  if (input.type !== 'dine_in' && input.table_key !== undefined)
    throw refuse('invalid_request', 'A table key goes only with dine-in orders.', 'table_key');
}

/** A delivery's fee and minimum order (its zone's, delivery-zones.ts); none for other types. */
function checkDelivery(store: Store, input: PlaceOrderInput): { fee: number; minOrder: number } {
  if (input.type !== 'delivery' || input.delivery === undefined) return { fee: 0, minOrder: 0 };
  const terms = deliveryTerms(store, input.delivery.postal_code);
  if (terms === null)
    throw refuse(
      'invalid_request',
      'The restaurant does not deliver to this postal code (none of its delivery zones has it).',
      'delivery.postal_code',
    );
  return terms;
}

async function tableByKey(ctx: Ctx, key: string | undefined): Promise<{ id: string; label: string }> {
  if (key === undefined)
    throw refuse('invalid_request', 'A dine-in order needs its table’s key.', 'table_key');
  const table = await ctx.db
    .selectFrom('store_tables')
    .select(['id', 'label'])
    .where('tenant_id', '=', tenantOf(ctx))
    .where('qr_key', '=', key)
    .executeTakeFirst();
  if (!table) throw refuse('invalid_request', 'No table of this restaurant has this key.', 'table_key');
  return table;
}

/** The order's time: null for as soon as possible, else the checked preorder time. */
function checkTime(store: Store, input: PlaceOrderInput, now: Date): Date | null {
  const param = 'requested_for';
  const hours =
    input.type === 'delivery' && store.delivery_hours.length > 0 ? store.delivery_hours : store.opening_hours;
  const schedule = {
    timezone: store.timezone,
    alwaysOpen: store.always_open && !(input.type === 'delivery' && store.delivery_hours.length > 0),
    openingHours: hours,
    specialDays: store.closures,
  };
  const pause = { paused: store.status === 'paused', until: store.paused_until };
  if (input.requested_for === undefined || input.requested_for === null) {
    if (storeStatus(schedule, pause, now).status !== 'open')
      throw refuse(
        'slot_unavailable',
        pausedWithoutEnd(store)
          ? pausedMessage
          : store.preorders
            ? 'The restaurant is not taking orders now: choose a later time (requested_for).'
            : 'The restaurant is not taking orders now.',
        param,
      );
    return null;
  }
  if (!store.preorders) throw refuse('invalid_request', 'This restaurant takes no orders for later.', param);
  if (!takesLaterOrders(store)) throw refuse('slot_unavailable', pausedMessage, param);
  const at = parseTimestamp(input.requested_for);
  if (at === null) throw refuse('invalid_request', 'requested_for is no instant.', param);
  const earliest = now.getTime() + leadMinutes(store, input.type) * 60_000;
  if (at.getTime() < earliest)
    throw refuse('slot_unavailable', `The earliest time is ${new Date(earliest).toISOString()}.`, param);
  if (at.getTime() > now.getTime() + preorderHorizonMs)
    throw refuse('slot_unavailable', 'Orders are taken at most 14 days ahead.', param);
  if (storeStatus(schedule, pause, at).status !== 'open')
    throw refuse('slot_unavailable', 'The restaurant is not open at that time.', param);
  return at;
}

interface PricedLine {
  product_id: string;
  name: string;
  quantity: number;
  unit_price: number;
  line_total: number;
  tax_rate_bps: number | null;
  options: { id: string; name: string; price_delta: number; group_id: string; group_name: string }[];
}

/** A row of pricedLines' read: a product, one of its groups (or none), one of the group's options (or none). */
interface MenuRow {
  id: string;
  name: string;
  price: number;
  available: boolean;
  unavailable_until: Date | null;
  tax_class: TaxClass | null;
  category_tax_class: TaxClass | null;
  group_id: string | null;
  group_name: string | null;
  min_select: number | null;
  max_select: number | null;
  option_id: string | null;
  option_name: string | null;
  price_delta: number | null;
  option_available: boolean | null;
  option_unavailable_until: Date | null;
}

/** The order's lines priced from the menu now (VAT of `taxCountry`), every product, option and choice count checked. */
async function pricedLines(
  ctx: Ctx,
  input: PlaceOrderInput,
  now: Date,
  taxCountry: string | null,
): Promise<PricedLine[]> {
  const tenantId = tenantOf(ctx);
  const productIds = [...new Set(input.items.map((item) => item.product_id))];
  // The products with their groups (their own, and the shared ones they link) and the groups'
  // options, in one read: a row per product, group and option. The lateral subquery names the
  // restaurant itself, so that Citus sends the statement to its node alone.
  const { rows } = await sql<MenuRow>`
    SELECT p.id, p.name, p.price, p.available, p.unavailable_until, p.tax_class,
      c.tax_class AS category_tax_class, g.id AS group_id, g.name AS group_name, g.min_select,
      g.max_select, o.id AS option_id, o.name AS option_name, o.price_delta,
      o.available AS option_available, o.unavailable_until AS option_unavailable_until
    FROM menu_products p
    LEFT JOIN menu_categories c ON c.tenant_id = p.tenant_id AND c.id = p.category_id
    LEFT JOIN LATERAL (
      SELECT own.id, own.name, own.min_select, own.max_select FROM menu_option_groups own
      WHERE own.tenant_id = ${tenantId} AND own.product_id = p.id
      UNION ALL
      SELECT shared.id, shared.name, shared.min_select, shared.max_select
      FROM menu_product_option_groups l
      JOIN menu_option_groups shared ON shared.tenant_id = l.tenant_id AND shared.id = l.group_id
      WHERE l.tenant_id = ${tenantId} AND l.product_id = p.id
    ) g ON true
    LEFT JOIN menu_options o ON o.tenant_id = p.tenant_id AND o.group_id = g.id
    WHERE p.tenant_id = ${tenantId} AND p.id IN (${sql.join(productIds)})`.execute(ctx.db);
  const productById = new Map(rows.map((row) => [row.id, row]));
  const groups = [
    ...new Map(
      rows.flatMap((row) =>
        row.group_id === null
          ? []
          : [
              [
                `${row.id} ${row.group_id}`,
                {
                  id: row.group_id,
                  name: row.group_name as string,
                  min_select: row.min_select as number,
                  max_select: row.max_select as number,
                  product_id: row.id,
                },
              ] as const,
            ],
      ),
    ).values(),
  ];
  const options = rows.flatMap((row) =>
    row.option_id === null
      ? []
      : [
          {
            id: row.option_id,
            group_id: row.group_id as string,
            name: row.option_name as string,
            price_delta: row.price_delta as number,
            available: row.option_available as boolean,
            unavailable_until: row.option_unavailable_until,
          },
        ],
  );
  const optionById = new Map(options.map((option) => [option.id, option]));
  const rates = (taxClass: TaxClass) => vatRates(taxCountry, taxClass);
  const onSale = (thing: { available: boolean; unavailable_until: Date | null }) =>
    thing.available || (thing.unavailable_until !== null && thing.unavailable_until <= now);

  return input.items.map((item, index) => {
    const param = `items[${index}]`;
    const product = productById.get(item.product_id);
    if (!product) throw refuse('invalid_request', 'No such product on the menu.', `${param}.product_id`);
    if (!onSale(product))
      throw refuse('invalid_request', `${product.name} is sold out.`, `${param}.product_id`);
    const productGroups = groups.filter((group) => group.product_id === product.id);
    const chosen = (item.option_ids ?? []).map((optionId) => {
      const option = optionById.get(optionId);
      const group = option && productGroups.find((candidate) => candidate.id === option.group_id);
      if (!option || !group)
        throw refuse(
          'invalid_request',
          `Option ${optionId} is not one of ${product.name}'s.`,
          `${param}.option_ids`,
        );
      if (!onSale(option))
        throw refuse('invalid_request', `${option.name} is sold out.`, `${param}.option_ids`);
      return {
        id: option.id,
        name: option.name,
        price_delta: option.price_delta,
        group_id: group.id,
        group_name: group.name,
      };
    });
    for (const group of productGroups) {
      const count = chosen.filter((option) => option.group_id === group.id).length;
      if (count < group.min_select || count > group.max_select)
        throw refuse(
          'invalid_request',
          `${group.name}: choose ${group.min_select === group.max_select ? group.min_select : `${group.min_select} to ${group.max_select}`}, not ${count}.`,
          `${param}.option_ids`,
        );
    }
    const unitPrice = product.price + chosen.reduce((sum, option) => sum + option.price_delta, 0);
    if (unitPrice < 0)
      throw refuse(
        'invalid_request',
        `${product.name} costs less than nothing with these options.`,
        `${param}.option_ids`,
      );
    const taxRates = rates(product.tax_class ?? product.category_tax_class ?? 'food');
    return {
      product_id: product.id,
      name: product.name,
      quantity: item.quantity,
      unit_price: unitPrice,
      line_total: unitPrice * item.quantity,
      tax_rate_bps: input.type === 'dine_in' ? taxRates.dine_in_bps : taxRates.takeaway_bps,
      options: chosen,
    };
  });
}

/** The order placed with this guest key in the restaurant, as placing it answered; null if none. */
async function placedWith(ctx: Ctx, guestKey: string): Promise<PlacedOrder | null> {
  try {
    return { object: 'placed_order', order: await guestOrderByKey(ctx, guestKey), guest_key: guestKey };
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return null;
    throw error;
  }
}

/**
 * Inserts the order under a code no other order of the restaurant has (four characters, longer
 * once they run short); the code, or null when an order of the restaurant has its guest key already
 * (placed by a request that committed first: this one waited for it on the unique guest key).
 */
async function insertWithFreshCode(
  ctx: Ctx,
  row: Omit<Insertable<OrdersTable>, 'code'>,
): Promise<string | null> {
  for (let attempt = 0; ; attempt += 1) {
    const inserted = await ctx.db
      .insertInto('orders')
      .values({ ...row, code: newCode(attempt < 5 ? 4 : 6) })
      .onConflict((conflict) => conflict.doNothing())
      .returning('code')
      .executeTakeFirst();
    if (inserted) return inserted.code;
    const taken = await ctx.db
      .selectFrom('orders')
      .select('id')
      .where('tenant_id', '=', row.tenant_id)
      .where('guest_key_hash', '=', row.guest_key_hash)
      .executeTakeFirst();
    if (taken) return null;
  }
}
