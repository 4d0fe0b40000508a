import type { Db } from '../../db/client.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { type OrderRecord, ordersQuery, productsOf, productsOnMenu, publicOrderOf } from './order-rows.ts';

/*
 * The JSON text of each order as everyone sees it, kept by the process for the orders list (apps
 * poll it): every change of an order sets its updated_at, so (id, updated_at) names one text for
 * good, in every process. Two things a text does not hold are applied to it per request: the
 * calling app's acknowledgement, and a product deleted since (its lines' product_id then null).
 * Whether the products are still on the menu is kept too, for as long as the restaurant's count of
 * product removals (read with the page, see migration 0022) stands still.
 */

/** An order's public text and the products its lines name. */
interface OrderText {
  text: string;
  productIds: readonly string[];
}

/** At most this many texts per database; the oldest kept go first. */
const maxTexts = 10_000;
const textsByDb = new WeakMap<Db, Map<string, OrderText>>();

function textsOf(db: Db): Map<string, OrderText> {
  let texts = textsByDb.get(db);
  if (!texts) {
    texts = new Map();
    textsByDb.set(db, texts);
  }
  return texts;
}

/** A restaurant's products a process looked up: on the menu or not, as of `removals`. */
interface MenuLookups {
  removals: number;
  onMenu: Map<string, boolean>;
}

/** At most this many restaurants' look-ups per database; the oldest kept go first. */
const maxRestaurants = 1_000;
const lookupsByDb = new WeakMap<Db, Map<string, MenuLookups>>();

/** The products of `productIds` on the restaurant's menu, looking up only what `removals` leaves open. */
async function onMenuOf(
  ctx: Ctx,
  removals: number,
  productIds: readonly string[],
): Promise<ReadonlySet<string>> {
  let restaurants = lookupsByDb.get(ctx.db);
  if (!restaurants) {
    restaurants = new Map();
    lookupsByDb.set(ctx.db, restaurants);
  }
  const tenant = tenantOf(ctx);
  let lookups = restaurants.get(tenant);
  if (lookups?.removals !== removals) {
    if (!lookups && restaurants.size >= maxRestaurants)
      restaurants.delete(restaurants.keys().next().value as string);
    lookups = { removals, onMenu: new Map() };
    restaurants.set(tenant, lookups);
  }
  const known = lookups.onMenu;
  const unknown = productIds.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    const found = await productsOnMenu(ctx, unknown);
    for (const id of unknown) known.set(id, found.has(id));
  }
  return new Set(productIds.filter((id) => known.get(id)));
}

const keyOf = (order: { id: string; updated_at: Date }) => `${order.id}:${order.updated_at.getTime()}`;

function keep(texts: Map<string, OrderText>, record: OrderRecord): OrderText {
  const productIds = [...new Set(productsOf([record]))];
  const entry = { text: JSON.stringify(publicOrderOf(record, new Set(productIds))), productIds };
  if (texts.size >= maxTexts) texts.delete(texts.keys().next().value as string);
  texts.set(keyOf(record), entry);
  return entry;
}

/** A listed order as the list reads it first: which, which version, and the caller's acknowledgement. */
export interface ListedOrder {
  id: string;
  updated_at: Date;
  ack_external_id: string | null;
  ack_at: Date | null;
}

const noAcknowledgement = '"external_id":null,"acknowledged_at":null';

/**
 * The Orders of `listed`, as the caller sees them, as JSON texts: kept ones, the rest read once;
 * `removals` is the restaurant's product_removals read with `listed`.
 */
export async function orderTexts(
  ctx: Ctx,
  listed: readonly ListedOrder[],
  removals: number,
): Promise<string[]> {
  const texts = textsOf(ctx.db);
  const found = new Map(listed.map((order) => [order.id, texts.get(keyOf(order))]));
  const missing = listed.filter((order) => found.get(order.id) === undefined).map((order) => order.id);
  if (missing.length > 0) {
    // An order changed since the first read shows as it is now.
    const records = await ordersQuery(ctx).where('o.id', 'in', missing).execute();
    for (const record of records) found.set(record.id, keep(texts, record));
  }
  const entries = listed.map((order) => found.get(order.id) as OrderText);
  const onMenu = await onMenuOf(ctx, removals, [...new Set(entries.flatMap((entry) => entry.productIds))]);
  return listed.map((order, index) => {
    const entry = entries[index] as OrderText;
    let text = entry.text;
    if (entry.productIds.some((id) => !onMenu.has(id))) {
      const parsed = JSON.parse(text) as { items: { product_id: string | null }[] };
      for (const item of parsed.items)
        if (item.product_id !== null && !onMenu.has(item.product_id)) item.product_id = null;
      text = JSON.stringify(parsed);
    }
    if (order.ack_at === null) return text;
    return text.replace(
      noAcknowledgement,
      `"external_id":${JSON.stringify(order.ack_external_id)},"acknowledged_at":${JSON.stringify(order.ack_at)}`,
    );
  });
}
