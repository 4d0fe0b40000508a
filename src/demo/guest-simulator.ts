import { request } from 'undici';

/*
 * Guests ordering at a running Servery, through the storefront's guest API exactly as a script
 * acting as a guest would (docs/storefront.md): it reads the store and menu, builds a plausible cart
 * (one to three products, each group's required choices, sometimes an extra), picks pickup or
 * delivery as offered, pays on site or online (confirming through the test provider), and reports
 * each order as it goes. When the store is closed it preorders for the next opening if it can.
 */

export interface SimulatorOptions {
  /** The service's address, e.g. http://localhost:3000. */
  baseUrl: string;
  slug: string;
  orders: number;
  /** Pause between orders. */
  everyMs: number;
  /** Told of each order placed, or why one was refused. */
  report: (line: string) => void;
  random?: () => number;
}

interface Product {
  id: string;
  name: string;
  price: number;
  available: boolean;
  option_group_ids: string[];
}
interface Group {
  id: string;
  min_select: number;
  max_select: number;
  options: { id: string; available: boolean; price_delta: number }[];
}
interface Storefront {
  livemode: boolean;
  store: {
    status: string;
    next_opening_at: string | null;
    preorders: boolean;
    order_types: Record<string, boolean>;
    lead_times: { pickup_minutes: number; delivery_minutes: number };
    busy: { extra_minutes: number } | null;
    min_order: number;
  };
  menu: { products: Product[]; option_groups: Group[] };
}

const names = ['Alex', 'Sam', 'Robin', 'Kim', 'Jo', 'Charlie', 'Luca', 'Mia', 'Noah', 'Lea'];

interface Placed {
  order: { code: string; currency: string; amounts: { total: number } };
  guest_key: string;
}
type Refusal = { error?: { code: string; message: string } };

async function call<T>(
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
): Promise<{ status: number; json: T }> {
  const response = await request(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.statusCode, json: (await response.body.json()) as T };
}

/** Places `orders` orders one after another; returns how many were placed. */
export async function simulateGuests(options: SimulatorOptions): Promise<number> {
  const random = options.random ?? Math.random;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const api = `${options.baseUrl.replace(/\/$/, '')}/s/${encodeURIComponent(options.slug)}/api`;
  let placed = 0;
  for (let n = 1; n <= options.orders; n += 1) {
    const front = await call<Storefront>('GET', `${api}/store`);
    if (front.status !== 200)
      throw new Error(`the storefront answered ${front.status}: ${JSON.stringify(front.json)}`);
    const { store, menu } = front.json;
    const onSale = menu.products.filter((product) => product.available);
    if (onSale.length === 0 || !(store.order_types.pickup || store.order_types.delivery))
      throw new Error('the restaurant offers nothing to order');
    const items = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
      const product = pick(onSale);
      const options = product.option_group_ids.flatMap((groupId) => {
        const group = menu.option_groups.find((candidate) => candidate.id === groupId);
        const choices = group?.options.filter((option) => option.available) ?? [];
        const count = Math.min(
          choices.length,
          (group?.min_select ?? 0) + (random() < 0.3 ? 1 : 0),
          group?.max_select ?? 0,
        );
        return choices.slice(0, count);
      });
      const quantity = 1 + Math.floor(random() * 2);
      const price = (product.price + options.reduce((sum, option) => sum + option.price_delta, 0)) * quantity;
      return { product_id: product.id, quantity, option_ids: options.map((option) => option.id), price };
    });
    // Delivery only while open and over the minimum order; a closed store gets pickups for later.
    const open = store.status === 'open';
    const subtotal = items.reduce((sum, item) => sum + item.price, 0);
    const deliverable = store.order_types.delivery && open && subtotal >= store.min_order;
    const type = deliverable && (!store.order_types.pickup || random() < 0.5) ? 'delivery' : 'pickup';
    const lead =
      (type === 'pickup' ? store.lead_times.pickup_minutes : store.lead_times.delivery_minutes) +
      (store.busy?.extra_minutes ?? 0);
    // The store's next opening is read on the server's clock: the preorder's time follows from it.
    const later =
      !open && store.preorders && store.next_opening_at
        ? new Date(Date.parse(store.next_opening_at) + (lead + 5) * 60_000).toISOString()
        : null;
    const online = random() < 0.5;
    const body = {
      type,
      items: items.map(({ price: _, ...item }) => item),
      customer: { name: pick(names), phone: '+49 30 5550100' },
      ...(type === 'delivery' && {
        delivery: { address: 'Beispielstraße 12', postal_code: '10115', city: 'Berlin' },
      }),
      ...(later && { requested_for: later }),
      tip: random() < 0.3 ? 100 * (1 + Math.floor(random() * 3)) : 0,
      payment_method: online ? 'online' : 'on_site',
      // Paying online needs an e-mail: one nobody receives (example.com is reserved, RFC 2606).
      ...(online && { guest_email: `guest${n}@example.com` }),
    };
    const answer = await call<Placed & Refusal>('POST', `${api}/orders`, body);
    if (answer.status !== 201) {
      options.report(
        `order ${n}/${options.orders}: refused (${answer.json?.error?.code}: ${answer.json?.error?.message})`,
      );
    } else {
      const { order, guest_key } = answer.json;
      let paid = '';
      if (online) {
        const payment = await call<{ provider?: string }>('POST', `${api}/orders/${guest_key}/payment`);
        const confirmed =
          payment.json.provider === 'test' &&
          (await call('POST', `${api}/orders/${guest_key}/payment/test`, { outcome: 'succeeded' })).status ===
            200;
        paid = confirmed ? ', paid online (test payment)' : ', awaiting online payment';
      }
      placed += 1;
      const money = (order.amounts.total / 100).toFixed(2);
      options.report(
        `order ${n}/${options.orders}: ${order.code} ${type}, ${items.length} item(s), ${money} ${order.currency}${
          online ? paid : ', pay on site'
        }${later ? `, for ${later}` : ''}`,
      );
    }
    if (n < options.orders) await new Promise((resolve) => setTimeout(resolve, options.everyMs));
  }
  return placed;
}
