import type { TFunction } from 'i18next';
import type { PlaceOrderInput } from '../../../domain/orders/order-placement.schema.ts';
import type { ApiError } from '../../../domain/shared/errors.ts';
import { deliveryTerms } from '../../../domain/store/delivery-zones.ts';
import type { Store } from '../../../domain/store/store.schema.ts';
import { parseLocalDateTime } from '../../../i18n/local-time.ts';
import { parseMoney } from '../../../i18n/money.ts';
import type { FormError } from '../../web/page.ts';
import type { Cart } from './cart-cookie.ts';

/*
 * The checkout form: what the guest sent as the input of placeOrder, and the refusal of an input
 * as the error beside its field. Field names are the input's paths with `_` for `.`
 * (`delivery_address` is `delivery.address`); a cart line's errors (`items[2].option_ids`) go to
 * the line (`line-2`). Messages come from the catalog, by field and kind: the domain's own
 * messages are English and for developers.
 */

export type CheckoutValues = Record<string, string>;

/** The sent form's text fields, nothing else. */
export function checkoutValues(body: unknown): CheckoutValues {
  const values: CheckoutValues = {};
  if (typeof body !== 'object' || body === null) return values;
  for (const [name, value] of Object.entries(body)) if (typeof value === 'string') values[name] = value;
  return values;
}

const optional = (text: string | undefined) => (text?.trim() ? text : null);

/**
 * The order the form asks for, or the fields the form itself refuses, all of them at once: those
 * it could not read (a tip that is no amount, a later time that is no time, an e-mail that is no
 * address), the blank parts of a delivery address and a missing e-mail when paying online. Such a form never reaches placeOrder.
 */
export function checkoutInput(
  values: CheckoutValues,
  cart: Cart,
  store: Store,
): { input: PlaceOrderInput; unreadable: string[] } {
  const unreadable: string[] = [];
  const type = values.type as PlaceOrderInput['type'];
  const address = ['address', 'postal_code', 'city'] as const;
  const sentAddress = address.some((field) => values[`delivery_${field}`]?.trim());
  // Every blank part of a delivery address at once, beside its field (placement names one), in the form's order.
  if (type === 'delivery')
    for (const field of address)
      if (!values[`delivery_${field}`]?.trim()) unreadable.push(`delivery.${field}`);
  // The e-mail: needed to pay online, and an address when given (a message beside the field either way).
  const email = values.guest_email?.trim() ?? '';
  if (email === '' ? values.payment_method === 'online' : !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
    unreadable.push('guest_email');
  const tipText = values.tip?.trim() ?? '';
  const tip = tipText === '' ? 0 : parseMoney(tipText, store.currency);
  if (tip === null) unreadable.push('tip');
  let requestedFor: string | null = null;
  if (values.when === 'later') {
    requestedFor = parseLocalDateTime(values.requested_for?.trim() ?? '', store.timezone);
    if (requestedFor === null) unreadable.push('requested_for');
  }
  const seen = Number(values.seen_subtotal);
  const fee = type === 'delivery' ? seenDeliveryFee(values) : 0;
  const input: PlaceOrderInput = {
    type,
    items: cart.lines.map((line) => ({
      product_id: line.productId,
      quantity: line.quantity,
      option_ids: line.optionIds,
    })),
    customer: { name: optional(values.customer_name), phone: optional(values.customer_phone) },
    note: optional(values.note),
    ...(email !== '' && { guest_email: email }),
    tip: tip ?? 0,
    payment_method: values.payment_method as PlaceOrderInput['payment_method'],
    requested_for: requestedFor,
    ...(type === 'delivery' &&
      sentAddress && {
        delivery: {
          address: values.delivery_address ?? '',
          postal_code: values.delivery_postal_code ?? '',
          city: values.delivery_city ?? '',
        },
      }),
    ...(type === 'dine_in' && cart.tableKey !== null && { table_key: cart.tableKey }),
    ...(Number.isSafeInteger(seen) && seen >= 0 && { expected_total: seen + fee + (tip ?? 0) }),
  };
  return { input, unreadable };
}

/** The delivery fee the page showed the guest (none: 0). */
function seenDeliveryFee(values: CheckoutValues): number {
  const fee = Number(values.seen_delivery_fee ?? '');
  return values.seen_delivery_fee && Number.isSafeInteger(fee) && fee >= 0 ? fee : 0;
}

/**
 * The delivery fee of the zone of the postal code sent, when the page has not shown it to the
 * guest (they typed the code, or the restaurant changed the fee since): the page then shows it,
 * and the guest places the order again. null: nothing to show (no delivery, a postal code outside
 * every zone, or the fee the guest saw).
 */
export function unseenDeliveryFee(values: CheckoutValues, store: Store): number | null {
  if (values.type !== 'delivery' || !values.delivery_postal_code?.trim()) return null;
  const terms = deliveryTerms(store, values.delivery_postal_code);
  if (terms === null || terms.fee === seenDeliveryFee(values)) return null;
  return terms.fee;
}

/** The form's field for a refusal's `param`: a changed total goes to the cart's lines, a table's key to the order type. */
export function fieldOfParam(param: string | undefined): string | undefined {
  if (param === undefined) return undefined;
  const line = /^items\[(\d+)\]/.exec(param);
  if (line) return `line-${line[1]}`;
  const fields: Record<string, string> = {
    delivery: 'delivery_address',
    customer: 'customer_name',
    items: 'lines',
    expected_total: 'lines',
    table_key: 'type',
  };
  return fields[param] ?? param.replace(/\./g, '_');
}

/** The catalog's message for each field a refusal may name (`checkout.errors.<key>`). */
const ownMessages = new Set([
  'type',
  'delivery_address',
  'delivery_postal_code',
  'delivery_city',
  'customer_name',
  'customer_phone',
  'guest_email',
  'note',
  'tip',
  'payment_method',
  'table_key',
  'expected_total',
]);

/** What the page says of one refusal, beside its field and in the summary. */
export function checkoutError(
  t: TFunction,
  error: ApiError | { param: string; code?: undefined },
  context: {
    input: PlaceOrderInput;
    lineNames: string[];
    minOrder: string;
    earliest: string;
    /** The store is paused without an end: no order now or for later (placeOrder's rule). */
    pausedWithoutEnd: boolean;
  },
): FormError {
  const field = fieldOfParam(error.param);
  const said = (key: string, options: Record<string, unknown> = {}) => ({
    field,
    message: t(`checkout.errors.${key}`, options),
  });
  const param = error.param ?? '';
  const line = /^items\[(\d+)\]/.exec(param);
  if (line) {
    const name = context.lineNames[Number(line[1])] ?? '';
    return said(param.endsWith('.option_ids') ? 'lineOptions' : 'lineUnavailable', { name });
  }
  if (param === 'items')
    return said(context.input.items.length === 0 ? 'empty' : 'minOrder', { amount: context.minOrder });
  if (param === 'requested_for') {
    const later = Boolean(context.input.requested_for);
    if (error.code === 'slot_unavailable' && context.pausedWithoutEnd) return said('pausedWithoutEnd');
    if (error.code === 'slot_unavailable')
      return said(later ? 'timeUnavailable' : 'closedNow', { earliest: context.earliest });
    return said(later ? 'noPreorders' : 'requestedFor');
  }
  // A postal code that is there but in none of the delivery zones (a blank one is missing).
  if (param === 'delivery.postal_code' && context.input.delivery?.postal_code.trim())
    return said('outsideZones');
  if (param === 'guest_email') return said(context.input.guest_email ? 'guest_email_format' : 'guest_email');
  const own = ownMessages.has(param.replace(/\./g, '_')) ? param.replace(/\./g, '_') : null;
  if (param === 'delivery') return said('delivery_address');
  if (param === 'customer') return said('customer_name');
  return own ? said(own) : { message: t('checkout.errors.other') };
}
