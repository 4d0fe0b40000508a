import type { FastifyReply, FastifyRequest } from 'fastify';
import { maxOptionsPerItem, maxQuantity } from '../../../domain/orders/order-placement.schema.ts';
import { newSecret } from '../../../domain/shared/ids.ts';

/*
 * A guest's cart, kept in the browser (a plain cookie, one per storefront by its path or host):
 * product ids, quantities and option ids, and the table's key when the guest came by a table's QR
 * code. Never a price: every page prices the cart from the menu as it is now, and placing the
 * order prices it again. A cookie that is not a cart (changed by hand, or from an older version)
 * reads as an empty cart; lines whose product left the menu are shown to be removed.
 * It also holds the guest key its order will have (placeOrder's `guestKey`): a checkout sent twice
 * (a double click) carries the same key and so places one order; after an order the cart gets a
 * new one.
 */

export interface CartLine {
  productId: string;
  quantity: number;
  optionIds: string[];
}

export interface Cart {
  tableKey: string | null;
  lines: CartLine[];
  /** Null until the cart is first written (writeCart gives it one). */
  checkoutKey: string | null;
}

const cookieName = 'servery_cart';
/** Lines of one cart: keeps the cookie well under the 4 KB browsers keep. */
export const maxCartLines = 20;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const tableKeyPattern = /^[A-Za-z0-9_-]{1,100}$/;
const checkoutKeyPattern = /^sgk_[A-Za-z0-9_-]{43}$/;
const thirtyDays = 30 * 24 * 3600;

export const emptyCart = (): Cart => ({ tableKey: null, lines: [], checkoutKey: null });

function isLine(value: unknown): value is [string, number, string[]] {
  if (!Array.isArray(value) || value.length !== 3) return false;
  const [productId, quantity, optionIds] = value;
  return (
    typeof productId === 'string' &&
    uuid.test(productId) &&
    Number.isInteger(quantity) &&
    quantity >= 1 &&
    quantity <= maxQuantity &&
    Array.isArray(optionIds) &&
    optionIds.length <= maxOptionsPerItem &&
    optionIds.every((id) => typeof id === 'string' && uuid.test(id))
  );
}

export function readCart(request: FastifyRequest): Cart {
  const text = request.cookies[cookieName];
  if (!text) return emptyCart();
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    const tableKey = typeof value?.t === 'string' && tableKeyPattern.test(value.t) ? value.t : null;
    const checkoutKey = typeof value?.k === 'string' && checkoutKeyPattern.test(value.k) ? value.k : null;
    const lines = Array.isArray(value?.l) && value.l.length <= maxCartLines ? value.l : [];
    if (!lines.every(isLine)) return { tableKey, lines: [], checkoutKey };
    return {
      tableKey,
      checkoutKey,
      lines: lines.map(([productId, quantity, optionIds]: [string, number, string[]]) => ({
        productId,
        quantity,
        optionIds,
      })),
    };
  } catch {
    return emptyCart();
  }
}

/** Whether `key` may be a table's QR key (tables.service.ts makes them base64url). */
export function isTableKey(key: string): boolean {
  return tableKeyPattern.test(key);
}

/**
 * The cart for the next requests (with a new checkout key if it has none); `path` is the
 * storefront's (`/s/<slug>`, or `/` on its own host).
 */
export function writeCart(reply: FastifyReply, cart: Cart, path: string, secure: boolean): void {
  const value = Buffer.from(
    JSON.stringify({
      t: cart.tableKey,
      l: cart.lines.map((l) => [l.productId, l.quantity, l.optionIds]),
      k: cart.checkoutKey ?? newSecret('sgk_'),
    }),
  ).toString('base64url');
  reply.setCookie(cookieName, value, { path, httpOnly: true, sameSite: 'lax', secure, maxAge: thirtyDays });
}

/** Adds a line, or more of the same product with the same options (at most 99); false when full. */
export function addLine(cart: Cart, line: CartLine): boolean {
  const key = (l: CartLine) => `${l.productId} ${[...l.optionIds].sort().join(' ')}`;
  const same = cart.lines.find((existing) => key(existing) === key(line));
  if (same) {
    same.quantity = Math.min(maxQuantity, same.quantity + line.quantity);
    return true;
  }
  if (cart.lines.length >= maxCartLines) return false;
  cart.lines.push(line);
  return true;
}
