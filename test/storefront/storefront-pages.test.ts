import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { DateTime } from 'luxon';
import { buildApp } from '../../src/app.ts';
import { setAccentColor } from '../../src/domain/store/storefront-look.ts';
import { createTable } from '../../src/domain/store/tables.service.ts';
import { feedAll } from '../events/events-helpers.ts';
import {
  buildTestApp,
  developerSession,
  json,
  openTestDatabase,
  type TestApp,
  TestClock,
  testBaseUrl,
} from '../harness.ts';
import { assertError, ok } from '../menu/menu-helpers.ts';
import {
  guest as guestRequest,
  type OrderingTenant,
  orderingTenant,
  pickupOrder,
  placeRestaurant,
  storefrontPreview,
} from '../orders/order-helpers.ts';

/*
 * The storefront's pages over HTTP: the menu, a product's options, the cart priced from the menu,
 * checkout through placeOrder (errors beside their fields, nothing created), pauses and orders
 * for later (the page offers what placement takes), the test payment, the
 * order's page, table QR links, test restaurants, the restaurant's own host, posts from elsewhere.
 */

/** A guest's browser: keeps the cookies the pages set, sends forms as a browser does. */
class Guest {
  readonly cookies = new Map<string, string>();
  readonly t: TestApp;
  readonly headers: Record<string, string>;
  constructor(t: TestApp, headers: Record<string, string> = {}) {
    this.t = t;
    this.headers = headers;
  }

  async send(method: 'GET' | 'POST', url: string, form?: Record<string, string | string[]>) {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form ?? {}))
      for (const item of [value].flat()) body.append(name, item);
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await this.t.app.inject({
      method,
      url,
      headers: {
        ...this.headers,
        ...(cookie && { cookie }),
        ...(form && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form && { payload: body.toString() }),
    });
    for (const set of res.cookies as { name: string; value: string }[]) this.cookies.set(set.name, set.value);
    return res;
  }
  get = (url: string) => this.send('GET', url);
  post = (url: string, form: Record<string, string | string[]>) => this.send('POST', url, form);
}

/** The element's text (tags dropped, spaces collapsed) of every match of `pattern` in the page. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');

function seeOther(res: LightMyRequestResponse, location: RegExp | string): string {
  assert.equal(res.statusCode, 303, res.body);
  const to = String(res.headers.location);
  if (typeof location === 'string') assert.equal(to, location);
  else assert.match(to, location);
  return to;
}

const ordersSeen = async (t: TestApp, tenant: OrderingTenant) =>
  (await ok(t, tenant.token, 'GET', '/orders?limit=100')).data;

describe('the storefront pages', () => {
  let t: TestApp;
  let tenant: OrderingTenant;
  let base: string;
  before(async () => {
    t = await buildTestApp();
    tenant = await orderingTenant(t);
    base = `/s/${tenant.slug}`;
    await ok(t, tenant.token, 'PATCH', `/menu/products/${tenant.products.pizza}`, {
      allergens: ['gluten', 'milk'],
      diets: ['vegetarian'],
    });
  });
  after(() => t.close());

  it('shows the menu by category with prices, labels, sold-out items greyed and links to each product', async () => {
    const res = await new Guest(t).get(base);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
    assert.equal(res.headers['cache-control'], 'no-store');
    const page = text(res.body);
    assert.match(res.body, /<html lang="en">/);
    assert.match(page, /Open now/);
    assert.match(page, /Pickup \(ready in about \d+ min\)/);
    assert.match(page, /Delivery \(in about \d+ min\)/);
    assert.doesNotMatch(page, /At your table/, 'dine-in only by a table’s QR link');
    assert.match(page, /Drinks Lemonade €3\.50/);
    assert.match(
      page,
      /Pizza €12\.00 Allergens: Gluten \(cereals\), Milk \(incl\. lactose\) Diets: Vegetarian/,
    );
    assert.match(
      res.body,
      /<li class="menu-item sold-out">\s*<div class="item-head">\s*<h3><a href="[^"]+">Calzone<\/a><\/h3>\s*<span class="price">€11\.00<\/span>\s*<span class="badge">Sold out<\/span>/,
    );
    assert.match(res.body, new RegExp(`href="${base}/p/${tenant.products.pizza}"`));
    assert.doesNotMatch(page, /Test restaurant/);
  });

  it('shows pause with its note, busy mode’s extra minutes, and the restaurant’s language', async () => {
    const other = await orderingTenant(t);
    await ok(t, other.token, 'POST', '/store/pause', { note: 'Back after the lunch rush' }, 200);
    await ok(t, other.token, 'PATCH', '/store', {
      busy: { extra_minutes: 15, until: new Date(t.clock.now().getTime() + 3600_000).toISOString() },
    });
    const page = text((await new Guest(t).get(`/s/${other.slug}`)).body);
    assert.match(page, /Not taking orders right now\. Back after the lunch rush/);
    assert.match(page, /orders take about 15 minutes longer/);
    await t.ctx.db
      .updateTable('restaurants')
      .set({ language: 'de' })
      .where('id', '=', other.restaurantId)
      .execute();
    const german = (await new Guest(t).get(`/s/${other.slug}`)).body;
    assert.match(german, /<html lang="de">/);
    assert.match(text(german), /Nimmt gerade keine Bestellungen an\..*12,00 €/);
  });

  it('a checkout past the guest limit: a page in the restaurant’s language saying when to try again (429, Retry-After), the cart kept, nothing placed', async () => {
    const busy = await orderingTenant(t);
    const at = `/s/${busy.slug}`;
    await t.database.db
      .updateTable('restaurants')
      .set({ language: 'de' })
      .where('id', '=', busy.restaurantId)
      .execute();
    // Ten orders paid on site from the address the pages' requests come from.
    for (let n = 0; n < 10; n++) {
      const placed = await t.app.inject({
        method: 'POST',
        url: `${at}/api/orders`,
        remoteAddress: '127.0.0.1',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(pickupOrder(busy)),
      });
      assert.equal(placed.statusCode, 201, placed.body);
    }
    const guest = new Guest(t);
    seeOther(await guest.post(`${at}/p/${busy.products.pizza}`, { quantity: '1' }), `${at}?added=1`);
    const refused = await guest.post(`${at}/checkout`, {
      type: 'pickup',
      payment_method: 'on_site',
      seen_subtotal: '1200',
    });
    assert.equal(refused.statusCode, 429);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 600, String(refused.headers['retry-after']));
    assert.match(refused.body, /<html lang="de">/);
    assert.match(
      text(refused.body),
      new RegExp(
        `Ihr Warenkorb bleibt erhalten: Bitte versuchen Sie es in ${Math.ceil(retryAfter / 60)} Minuten? erneut\\.`,
      ),
    );
    assert.match(refused.body, new RegExp(`<a href="${at}/cart">Zurück zum Warenkorb</a>`));
    assert.equal((await ordersSeen(t, busy)).length, 10, 'nothing placed');
    assert.match((await guest.get(`${at}/cart`)).body, /Pizza/, 'the cart is kept');
  });

  it('a pause without end takes no orders, neither now nor for later, and the page says so; a pause until a time takes orders for after it', async () => {
    const paused = await orderingTenant(t);
    const at = `/s/${paused.slug}`;
    await ok(t, paused.token, 'PATCH', '/store', { preorders: true }, 200);
    await ok(t, paused.token, 'POST', '/store/pause', { note: 'Kitchen repairs' }, 200);
    const guest = new Guest(t);
    const menu = text((await guest.get(at)).body);
    assert.match(
      menu,
      /Not taking orders right now\. Kitchen repairs Orders for later are paused too, until the restaurant takes orders again\./,
    );
    assert.doesNotMatch(menu, /order now for later/);
    seeOther(await guest.post(`${at}/p/${paused.products.pizza}`, { quantity: '1' }), `${at}?added=1`);
    const cart = (await guest.get(`${at}/cart`)).body;
    assert.match(cart, /name="payment_method"/);
    assert.doesNotMatch(cart, /name="when"|name="requested_for"/, 'no time to choose');
    const form = { type: 'pickup', payment_method: 'on_site', seen_subtotal: '1200' };
    for (const sent of [form, { ...form, when: 'later', requested_for: '2026-11-03T12:00' }]) {
      const refused = await guest.post(`${at}/checkout`, sent);
      assert.equal(refused.statusCode, 400);
      assert.match(
        text(refused.body),
        /The restaurant is not taking orders at the moment, not for later either\./,
      );
      assert.doesNotMatch(text(refused.body), /Choose a later time|Choose a time/);
    }
    // The guest API refuses both the same way.
    const tomorrow = new Date(t.clock.now().getTime() + 24 * 3600_000).toISOString();
    for (const more of [{}, { requested_for: tomorrow }]) {
      const res = await guestRequest(t, paused.slug, 'POST', '/orders', pickupOrder(paused, more));
      assertError(res, 409, 'slot_unavailable', 'requested_for');
      assert.match(json(res).error.message, /neither now nor for later/);
    }
    assert.equal((await ordersSeen(t, paused)).length, 0);

    // Paused for an hour: orders for after it are taken, and the page offers them.
    const until = new Date(t.clock.now().getTime() + 3600_000);
    await ok(t, paused.token, 'POST', '/store/pause', { until: until.toISOString() }, 200);
    const timed = text((await guest.get(at)).body);
    assert.match(timed, /Not taking orders until .+\. You can order now for later\./);
    assert.doesNotMatch(timed, /paused too/);
    assert.match((await guest.get(`${at}/cart`)).body, /name="when"/);
    const during = new Date(until.getTime() - 10 * 60_000).toISOString();
    assertError(
      await guestRequest(t, paused.slug, 'POST', '/orders', pickupOrder(paused, { requested_for: during })),
      409,
      'slot_unavailable',
      'requested_for',
    );
    const afterwards = DateTime.fromJSDate(until, { zone: 'Europe/Berlin' }).plus({ minutes: 30 });
    seeOther(
      await guest.post(`${at}/checkout`, {
        ...form,
        when: 'later',
        requested_for: afterwards.toFormat("yyyy-LL-dd'T'HH:mm"),
      }),
      new RegExp(`^${at}/o/sgk_`),
    );
    const [order] = await ordersSeen(t, paused);
    assert.equal(order.requested_for, afterwards.toUTC().toISO());
  });

  it('offers radio buttons for a choice of one and checkboxes for several, and checks the choices', async () => {
    const guest = new Guest(t);
    const lemonade = (await guest.get(`${base}/p/${tenant.products.lemonade}`)).body;
    assert.match(
      lemonade,
      new RegExp(`type="radio" id="group_[^"]+" name="group_[^"]+" value="${tenant.options.small}"`),
    );
    assert.match(text(lemonade), /Size Choose 1\./);
    assert.match(text(lemonade), /Large \(\+€1\.00\)/);
    const pizza = (await guest.get(`${base}/p/${tenant.products.pizza}`)).body;
    assert.match(
      pizza,
      new RegExp(`type="checkbox" id="[^"]+" name="group_[^"]+" value="${tenant.options.olives}"`),
    );
    assert.match(text(pizza), /Extras Optional: choose up to 2\./);

    const groupName = /name="(group_[^"]+)"/.exec(lemonade)?.[1] as string;
    const refused = await guest.post(`${base}/p/${tenant.products.lemonade}`, { quantity: '1' });
    assert.equal(refused.statusCode, 400);
    assert.match(
      refused.body,
      new RegExp(`<p class="field-error" id="${groupName}-error">Size: choose between 1 and 1\\.</p>`),
    );
    assert.match(refused.body, new RegExp(`<a href="#${groupName}">`));
    assert.equal(guest.cookies.get('servery_cart'), undefined, 'nothing added');
    const soldOut = await guest.post(`${base}/p/${tenant.products.soldOut}`, { quantity: '1' });
    assert.equal(soldOut.statusCode, 400);
    assert.match(text(soldOut.body), /Sold out\. You cannot order it now\./);
    assert.doesNotMatch(soldOut.body, /Add to cart/);

    seeOther(
      await guest.post(`${base}/p/${tenant.products.lemonade}`, {
        quantity: '2',
        [groupName]: tenant.options.large,
      }),
      `${base}?added=1`,
    );
    const cookie = Buffer.from(guest.cookies.get('servery_cart') as string, 'base64url').toString();
    const { k, ...cart } = JSON.parse(cookie);
    assert.deepEqual(cart, { t: null, l: [[tenant.products.lemonade, 2, [tenant.options.large]]] });
    assert.match(k, /^sgk_[A-Za-z0-9_-]{43}$/, 'the key its order will have');
  });

  it('prices the cart from the menu now, changes quantities and removes lines', async () => {
    const guest = new Guest(t);
    const pizzaPage = (await guest.get(`${base}/p/${tenant.products.pizza}`)).body;
    const extras = /name="(group_[^"]+)"/.exec(pizzaPage)?.[1] as string;
    await guest.post(`${base}/p/${tenant.products.pizza}`, {
      quantity: '1',
      [extras]: [tenant.options.cheese, tenant.options.olives],
    });
    assert.match(text((await guest.get(`${base}/cart`)).body), /Pizza €14\.50 Cheese, Olives €14\.50 each/);
    await ok(t, tenant.token, 'PATCH', `/menu/products/${tenant.products.pizza}`, { price: 1300 });
    try {
      assert.match(text((await guest.get(`${base}/cart`)).body), /Pizza €15\.50 .*Subtotal: €15\.50/);
      seeOther(await guest.post(`${base}/cart/lines/0`, { quantity: '3' }), `${base}/cart`);
      assert.match(text((await guest.get(`${base}/cart`)).body), /Subtotal: €46\.50/);
      seeOther(await guest.post(`${base}/cart/lines/0`, { quantity: '3', remove: '1' }), `${base}/cart`);
      assert.match(text((await guest.get(`${base}/cart`)).body), /Your cart is empty\./);
    } finally {
      await ok(t, tenant.token, 'PATCH', `/menu/products/${tenant.products.pizza}`, { price: 1200 });
    }
  });

  /** The name of the pizza's extras on its page. */
  const extrasOf = async (guest: Guest) =>
    /name="(group_[^"]+)"/.exec((await guest.get(`${base}/p/${tenant.products.pizza}`)).body)?.[1] as string;

  /** A guest with a pizza with cheese in the cart. */
  async function guestWithPizza(headers: Record<string, string> = {}): Promise<Guest> {
    const guest = new Guest(t, headers);
    const extras = await extrasOf(guest);
    seeOther(
      await guest.post(`${base}/p/${tenant.products.pizza}`, {
        quantity: '2',
        [extras]: tenant.options.cheese,
      }),
      /added=1/,
    );
    return guest;
  }

  it('shows each checkout error beside its field with a summary, and creates nothing', async () => {
    const guest = await guestWithPizza();
    const before = (await ordersSeen(t, tenant)).length;
    const delivery = await guest.post(`${base}/checkout`, {
      type: 'delivery',
      payment_method: 'on_site',
      customer_name: 'Alex',
      seen_subtotal: '2700',
    });
    assert.equal(delivery.statusCode, 400);
    assert.match(delivery.body, /<div class="error-summary" role="alert"/);
    assert.match(
      delivery.body,
      /<a href="#delivery_address">Enter the street and number for the delivery\.<\/a>/,
    );
    assert.match(
      delivery.body,
      /<p class="field-error" id="delivery_address-error">Enter the street and number/,
    );
    assert.match(
      delivery.body,
      /id="delivery_address" name="delivery_address" type="text" autocomplete="street-address" maxlength="200" value="" aria-describedby="delivery_address-error" aria-invalid="true"/,
    );
    assert.match(delivery.body, /id="customer_name"[^>]* value="Alex"/, 'what the guest typed stays');
    // Every problem of one submit at once, in the form's order: the address's blank parts, the tip.
    const all = await guest.post(`${base}/checkout`, {
      type: 'delivery',
      payment_method: 'on_site',
      delivery_postal_code: '10115',
      tip: 'a lot',
    });
    assert.equal(all.statusCode, 400);
    const summary = /<div class="error-summary"[\s\S]*?<\/div>/.exec(all.body)?.[0] ?? '';
    assert.deepEqual(
      [...summary.matchAll(/<a href="#([a-z_]+)">/g)].map((link) => link[1]),
      ['delivery_address', 'delivery_city', 'tip'],
    );
    const city = await guest.post(`${base}/checkout`, {
      type: 'delivery',
      payment_method: 'on_site',
      delivery_address: 'Hauptstraße 1',
      delivery_postal_code: '10115',
    });
    assert.match(city.body, /<p class="field-error" id="delivery_city-error">Enter the city/);
    const tip = await guest.post(`${base}/checkout`, {
      type: 'pickup',
      payment_method: 'on_site',
      tip: 'a lot',
    });
    assert.match(tip.body, /<p class="field-error" id="tip-error">Enter the tip as an amount/);
    const changed = await guest.post(`${base}/checkout`, {
      type: 'pickup',
      payment_method: 'on_site',
      seen_subtotal: '100',
    });
    assert.match(changed.body, /<a href="#lines">The prices have changed\./);
    const noType = await guest.post(`${base}/checkout`, { payment_method: 'on_site' });
    assert.match(noType.body, /<p class="field-error" id="type-error">Choose how you get your order/);
    const noDineIn = await guest.post(`${base}/checkout`, { type: 'dine_in', payment_method: 'on_site' });
    assert.match(noDineIn.body, /<p class="field-error" id="type-error">/);
    const later = await guest.post(`${base}/checkout`, {
      type: 'pickup',
      payment_method: 'on_site',
      when: 'later',
      requested_for: '2030-01-01T12:00',
    });
    assert.match(later.body, /This restaurant takes no orders for later\./);
    assert.equal((await ordersSeen(t, tenant)).length, before);
    assert.match(text((await guest.get(`${base}/cart`)).body), /Pizza €27\.00/, 'the cart is kept');
  });

  it('places a pickup order paid on site: the order’s page shows its code and the app sees it', async () => {
    const guest = await guestWithPizza();
    const to = seeOther(
      await guest.post(`${base}/checkout`, {
        type: 'pickup',
        payment_method: 'on_site',
        customer_name: 'Alex Guest',
        customer_phone: '+49 30 5550100',
        note: 'No onions',
        tip: '1.50',
        seen_subtotal: '2700',
      }),
      new RegExp(`^${base}/o/sgk_`),
    );
    const page = await guest.get(to);
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'; connect-src 'self'/);
    const code = /<p class="order-code">.*?<strong>([A-Z0-9]+)<\/strong>/.exec(page.body)?.[1];
    assert.ok(code);
    const words = text(page.body);
    assert.match(words, /Status Received: waiting for the restaurant/);
    assert.match(words, /Payment Pay at the restaurant/);
    assert.match(words, /2 × Pizza Cheese €27\.00 Subtotal €27\.00 Tip €1\.50 Total €28\.50/);
    assert.match(page.body, new RegExp(`data-order-api="${base}/api/orders/sgk_`));
    const [order] = (await ordersSeen(t, tenant)).filter((o: { code: string }) => o.code === code);
    assert.equal(order.type, 'pickup');
    assert.equal(order.note, 'No onions');
    assert.equal(order.amounts.total, 2850);
    assert.deepEqual(order.customer, { name: 'Alex Guest', phone: '+49 30 5550100' });
    assert.match(text((await guest.get(`${base}/cart`)).body), /Your cart is empty\./);

    await ok(t, tenant.token, 'POST', `/orders/${order.id}/accept`, { prep_minutes: 20 }, 200);
    assert.match(
      text((await guest.get(to)).body),
      /Status Accepted by the restaurant .* Ready at about \w{3} \d+, \d{4}, \d+:\d\d [AP]M/,
    );
  });

  it('places one order for a checkout sent twice, one after the other or both at once', async () => {
    const form = { type: 'pickup', payment_method: 'on_site', customer_name: 'Sam Twice' };
    const events = async () =>
      (await feedAll(t, tenant.token, '&types=order.created')).filter(
        (event) => (event.data.object as { customer: { name: string } }).customer.name === 'Sam Twice',
      );
    const placedBy = async () =>
      (await ordersSeen(t, tenant)).filter(
        (o: { customer: { name: string } }) => o.customer.name === 'Sam Twice',
      );

    // The browser sends the form again before it has the answer to the first: the same cookie.
    const guest = await guestWithPizza();
    const cookies = new Map(guest.cookies);
    const first = seeOther(await guest.post(`${base}/checkout`, form), new RegExp(`^${base}/o/sgk_`));
    const again = new Guest(t);
    for (const [name, value] of cookies) again.cookies.set(name, value);
    assert.equal(seeOther(await again.post(`${base}/checkout`, form), new RegExp(`^${base}/o/sgk_`)), first);
    assert.equal((await placedBy()).length, 1);
    assert.equal((await events()).length, 1);

    // Both at once.
    const twice = await guestWithPizza();
    const [one, other] = await Promise.all([
      twice.post(`${base}/checkout`, form),
      twice.post(`${base}/checkout`, form),
    ]);
    assert.equal(
      seeOther(one, new RegExp(`^${base}/o/sgk_`)),
      seeOther(other, new RegExp(`^${base}/o/sgk_`)),
    );
    assert.equal((await placedBy()).length, 2);
    assert.equal((await events()).length, 2);

    // After an order the cart has a new key: the next checkout is a new order.
    seeOther(
      await guest.post(`${base}/p/${tenant.products.pizza}`, {
        quantity: '1',
        [await extrasOf(guest)]: tenant.options.cheese,
      }),
      /added=1/,
    );
    assert.notEqual(seeOther(await guest.post(`${base}/checkout`, form), /\/o\/sgk_/), first);
    assert.equal((await placedBy()).length, 3);
  });

  it('places an order at another restaurant with a checkout key used here: each restaurant keeps its own', async () => {
    const form = { type: 'pickup', payment_method: 'on_site', customer_name: 'Kim Two Places' };
    const named = async (at: OrderingTenant) =>
      (await ordersSeen(t, at)).filter(
        (o: { customer: { name: string } }) => o.customer.name === 'Kim Two Places',
      );
    const here = seeOther(
      await (await guestWithPizza()).post(`${base}/checkout`, form),
      new RegExp(`^${base}/o/sgk_`),
    );
    const key = here.slice(`${base}/o/`.length);

    // A cart at another restaurant carrying the same checkout key (the cookie is the guest's).
    const other = await orderingTenant(t);
    const otherBase = `/s/${other.slug}`;
    const elsewhere = new Guest(t);
    const cart = { t: null, l: [[other.products.lemonade, 1, [other.options.small]]], k: key };
    elsewhere.cookies.set('servery_cart', Buffer.from(JSON.stringify(cart)).toString('base64url'));
    seeOther(await elsewhere.post(`${otherBase}/checkout`, form), `${otherBase}/o/${key}`);

    const [mine, theirs] = [await named(tenant), await named(other)];
    assert.equal(mine.length, 1);
    assert.equal(theirs.length, 1);
    assert.deepEqual(
      theirs[0].items.map((item: { name: string }) => item.name),
      ['Lemonade'],
    );
    assert.notEqual(mine[0].id, theirs[0].id);
    assert.match(text((await elsewhere.get(`${otherBase}/o/${key}`)).body), /Lemonade/);
    assert.doesNotMatch(text((await elsewhere.get(`${base}/o/${key}`)).body), /Lemonade/);
  });

  it('pays online with the test provider: failing keeps it waiting, confirming makes it paid and listed', async () => {
    const guest = await guestWithPizza();
    const pay = seeOther(
      await guest.post(`${base}/checkout`, {
        type: 'delivery',
        payment_method: 'online',
        guest_email: 'ada@example.test',
        delivery_address: 'Hauptstraße 1',
        delivery_postal_code: '10115',
        delivery_city: 'Berlin',
      }),
      /\/pay$/,
    );
    const page = await guest.get(pay);
    assert.match(text(page.body), /Test payment — no money moves/);
    assert.doesNotMatch(page.body, /stripe/i);
    const orderPage = pay.replace(/\/pay$/, '');
    const code = /Order ([A-Z0-9]+):/.exec(text(page.body))?.[1];
    const mine = async () => (await ordersSeen(t, tenant)).filter((o: { code: string }) => o.code === code);
    assert.deepEqual(await mine(), [], 'not the app’s before it is paid');
    seeOther(await guest.post(pay, { outcome: 'failed' }), `${pay}?failed=1`);
    assert.match(text((await guest.get(`${pay}?failed=1`)).body), /The payment failed\./);
    assert.match(text((await guest.get(orderPage)).body), /Payment Waiting for your payment .* Pay now/);
    seeOther(await guest.post(pay, { outcome: 'succeeded' }), orderPage);
    assert.match(text((await guest.get(orderPage)).body), /Payment Paid/);
    seeOther(await guest.get(pay), orderPage);
    const [order] = await mine();
    assert.equal(order.payment.status, 'paid');
    assert.equal(order.type, 'delivery');
    assert.equal(order.delivery.city, 'Berlin');
  });

  it('remembers the table of a QR link and places a dine-in order at it', async () => {
    await ok(t, tenant.token, 'PATCH', '/store', { order_types: { dine_in: true } });
    const table = await createTable({ ...t.ctx, tenantId: tenant.restaurantId }, { label: 'T7' });
    const guest = new Guest(t);
    assert.equal((await guest.get(`${base}/t/not-a-table`)).statusCode, 404);
    seeOther(await guest.get(`${base}/t/${table.qr_key}`), base);
    assert.match(text((await guest.get(base)).body), /At your table/);
    const lemonade = (await guest.get(`${base}/p/${tenant.products.lemonade}`)).body;
    const size = /name="(group_[^"]+)"/.exec(lemonade)?.[1] as string;
    await guest.post(`${base}/p/${tenant.products.lemonade}`, {
      quantity: '1',
      [size]: tenant.options.small,
    });
    const cart = (await guest.get(`${base}/cart`)).body;
    assert.match(cart, /value="dine_in" checked> At table T7/);
    const to = seeOther(
      await guest.post(`${base}/checkout`, { type: 'dine_in', payment_method: 'on_site' }),
      /\/o\/sgk_/,
    );
    assert.match(text((await guest.get(to)).body), /Order type At table T7/);
    const orders = await ordersSeen(t, tenant);
    assert.equal(orders.find((o: { type: string }) => o.type === 'dine_in')?.table.label, 'T7');
  });

  it('refuses posts from other sites', async () => {
    const guest = new Guest(t, { origin: 'https://evil.example' });
    const res = await guest.post(`${base}/p/${tenant.products.pizza}`, { quantity: '1' });
    assert.equal(res.statusCode, 403);
    assert.equal(guest.cookies.get('servery_cart'), undefined);
    // The host alone is not the origin: another scheme or port of the same host is another site.
    for (const origin of ['https://servery.test', 'http://servery.test:8080']) {
      const other = new Guest(t, { origin, host: 'servery.test' });
      assert.equal(
        (await other.post(`${base}/p/${tenant.products.pizza}`, { quantity: '1' })).statusCode,
        403,
        origin,
      );
    }
    const same = new Guest(t, { origin: testBaseUrl, host: 'servery.test' });
    assert.equal((await same.post(`${base}/p/${tenant.products.pizza}`, { quantity: '1' })).statusCode, 303);
  });

  it('keeps a test restaurant’s pages to its members signed in to the console, with a banner', async () => {
    const test = await orderingTenant(t, { livemode: false });
    for (const path of ['', '/cart', `/p/${test.products.pizza}`])
      assert.equal((await new Guest(t).get(`/s/${test.slug}${path}`)).statusCode, 404, path);
    const dashboard = await developerSession(t, test, 'dashboard');
    assert.equal((await new Guest(t, { cookie: dashboard }).get(`/s/${test.slug}`)).statusCode, 404);
    // The console's own cookie does not open it (a browser sends it to /console only); the
    // preview cookie the console sets when the developer opens the storefront from it does.
    const console = await developerSession(t, test, 'console');
    assert.equal((await new Guest(t, { cookie: console }).get(`/s/${test.slug}`)).statusCode, 404);
    const member = new Guest(t, { cookie: await storefrontPreview(t, test) });
    const page = await member.get(`/s/${test.slug}`);
    assert.equal(page.statusCode, 200);
    assert.match(text(page.body), /Test restaurant — orders here are tests/);
    const notFound = await new Guest(t).get('/s/no-such-restaurant');
    assert.equal(notFound.statusCode, 404);
    assert.match(text(notFound.body), /Page not found/);
  });

  it('adds a product without required choices straight from the menu; the categories and the cart stay in reach', async () => {
    const guest = new Guest(t);
    const menu = await guest.get(base);
    // A bar of the categories, each a link to its section.
    assert.match(
      menu.body,
      /<nav class="category-bar" aria-label="Categories">\s*<ul>\s*<li><a href="#section-[^"]+">Drinks<\/a><\/li><li><a href="#section-other">More<\/a><\/li>/,
    );
    // "Add" only where nothing must be chosen (the lemonade needs a size) and the product is on sale.
    const adds = [
      ...menu.body.matchAll(/<form class="quick-add" method="post" action="[^"]+\/p\/([^"]+)">/g),
    ].map((match) => match[1]);
    assert.deepEqual(adds, [tenant.products.pizza]);
    assert.match(text(menu.body), /Add Pizza to the cart/, 'the button names its product for screen readers');
    assert.doesNotMatch(menu.body, /class="cart-bar"/, 'no cart bar with an empty cart');

    seeOther(await guest.post(`${base}/p/${tenant.products.pizza}`, { quantity: '1' }), `${base}?added=1`);
    seeOther(await guest.post(`${base}/p/${tenant.products.pizza}`, { quantity: '1' }), `${base}?added=1`);
    const after = await guest.get(`${base}?added=1`);
    assert.match(text(after.body), /Added to your cart\./);
    assert.match(
      after.body,
      new RegExp(
        `<a class="cart-bar" href="${base}/cart"><span>Cart: 2 items</span> <strong>€24\\.00</strong></a>`,
      ),
    );
    assert.match(text((await guest.get(`${base}/cart`)).body), /Pizza .*Total: €24\.00/);
  });

  it('filters the menu by allergens and diets with a plain form; what the menu does not use is ignored', async () => {
    const guest = new Guest(t);
    const menu = await guest.get(base);
    // The choices are the labels on the menu: the pizza's gluten and milk, its vegetarian diet.
    assert.match(menu.body, /<details class="menu-filter">/, 'closed until used');
    const boxes = (name: string, html: string) =>
      [...html.matchAll(new RegExp(`name="${name}" value="([^"]+)"( checked)?`, 'g'))].map(
        (match) => `${match[1]}${match[2] ? ' (checked)' : ''}`,
      );
    assert.deepEqual(boxes('without', menu.body), ['gluten', 'milk']);
    assert.deepEqual(boxes('diet', menu.body), ['vegetarian']);
    assert.match(text(menu.body), /Hide dishes with Gluten \(cereals\) Milk \(incl\. lactose\)/);

    const noGluten = await guest.get(`${base}?without=gluten&without=peanuts`);
    assert.equal(noGluten.statusCode, 200);
    assert.match(noGluten.body, /<details class="menu-filter" open>/);
    assert.deepEqual(boxes('without', noGluten.body), ['gluten (checked)', 'milk']);
    const shown = text(noGluten.body);
    assert.doesNotMatch(shown, /Pizza €12\.00/, 'the pizza declares gluten');
    assert.match(shown, /Lemonade €3\.50/);
    assert.match(shown, /Calzone €11\.00/, 'declares nothing');
    assert.match(shown, /1 dish is hidden by your filter\. Show all/);

    const vegetarian = text((await guest.get(`${base}?diet=vegetarian`)).body);
    assert.match(vegetarian, /Pizza €12\.00/);
    assert.doesNotMatch(vegetarian, /Lemonade|Calzone/);
    assert.match(vegetarian, /2 dishes are hidden by your filter\./);
    const none = text((await guest.get(`${base}?diet=vegetarian&without=milk`)).body);
    assert.match(none, /No dish matches your filter\./);
  });

  it('sends the pages and their stylesheets compressed to browsers that ask, the API’s JSON as it is', async () => {
    const plain = await new Guest(t).get(base);
    assert.equal(plain.headers['content-encoding'], undefined, 'not asked: as it is');
    for (const encoding of ['br', 'gzip'] as const) {
      const packed = await new Guest(t, { 'accept-encoding': encoding }).get(base);
      assert.equal(packed.headers['content-encoding'], encoding);
      const unpacked = (encoding === 'br' ? brotliDecompressSync : gunzipSync)(packed.rawPayload).toString();
      assert.equal(
        unpacked.replace(/servery_cart=[^"]*/g, ''),
        plain.body.replace(/servery_cart=[^"]*/g, ''),
      );
      assert.ok(
        packed.rawPayload.length < plain.rawPayload.length / 3,
        `${encoding}: ${packed.rawPayload.length} bytes`,
      );
    }
    const css = /href="(\/assets\/[^"]+\.css)"/.exec(plain.body)?.[1] as string;
    const sheet = await new Guest(t, { 'accept-encoding': 'gzip' }).get(css);
    assert.equal(sheet.headers['content-encoding'], 'gzip');
    assert.match(gunzipSync(sheet.rawPayload).toString(), /@import url\("site\.css"\)/);
    const api = await t.app.inject({
      method: 'GET',
      url: '/v1/menu',
      headers: { authorization: `Bearer ${tenant.token}`, 'accept-encoding': 'gzip' },
    });
    assert.equal(api.statusCode, 200);
    assert.equal(api.headers['content-encoding'], undefined);
  });

  it('is headed by the restaurant, and says where it is and when it opens in the week ahead', async () => {
    const place = await orderingTenant(t);
    const { name } = await ok(t, place.token, 'GET', '/store');
    await placeRestaurant(t, place);
    // Closed on Mondays; lunch and dinner otherwise; the day after tomorrow closed for a reason.
    const opening_hours = [1, 2, 3, 4, 5, 6].flatMap((weekday) => [
      { weekday, open: '11:30', close: '14:30' },
      { weekday, open: '18:00', close: '23:00' },
    ]);
    await ok(t, place.token, 'PUT', '/store/hours', { always_open: false, opening_hours });
    const today = DateTime.fromJSDate(t.clock.now(), { zone: 'Europe/Berlin' }).startOf('day');
    const outing = today.plus({ days: 2 });
    await ok(t, place.token, 'POST', '/store/closures', {
      date: outing.toISODate(),
      closed: true,
      note: 'Staff outing',
    });

    const res = await new Guest(t).get(`/s/${place.slug}`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, new RegExp(`<title>${name}</title>`), 'the title is the restaurant’s alone');
    const header = /<header class="site-header">([\s\S]*?)<\/header>/.exec(res.body)?.[1] ?? '';
    assert.match(header, new RegExp(`<a class="brand" href="/s/${place.slug}">${name}</a>`));
    assert.doesNotMatch(header, /Servery/);
    assert.match(text(/<footer[\s\S]*<\/footer>/.exec(res.body)?.[0] ?? ''), /Online ordering by Servery/);

    const page = text(res.body);
    assert.match(page, /Address: Torstraße 1, 10115 Berlin · Map \(opens in a new tab\)/);
    assert.match(
      res.body,
      /href="https:\/\/www\.openstreetmap\.org\/\?mlat=52\.53&amp;mlon=13\.4#map=17\/52\.53\/13\.4"/,
    );
    assert.match(res.body, /<a href="tel:\+49305550100">\+49 30 555-0100<\/a>/);
    const days = [
      ...res.body.matchAll(
        /<tr( class="today")?>\s*<th scope="row">([\s\S]*?)<\/th>\s*<td>([\s\S]*?)<\/td>/g,
      ),
    ].map((row) => ({
      today: row[1] !== undefined,
      day: text(row[2] ?? '').trim(),
      hours: text(row[3] ?? '').trim(),
    }));
    const expected = Array.from({ length: 7 }, (_, offset) => {
      const day = today.plus({ days: offset }).setLocale('en');
      const hours =
        offset === 2
          ? 'closed special hours: Staff outing'
          : day.weekday === 1
            ? 'closed'
            : '11:30 AM – 2:30 PM, 6:00 PM – 11:00 PM';
      return {
        today: offset === 0,
        day: `${day.toFormat('cccc')} ${day.toLocaleString({ day: 'numeric', month: 'short' })}`,
        hours,
      };
    });
    assert.deepEqual(days, expected);
    assert.match(page, new RegExp(`Opening hours: today, ${expected[0]?.hours.replace(/ special.*/, '')}`));

    // The owner's accent colour: a stylesheet of its own after the storefront's, cached for good.
    assert.doesNotMatch(res.body, /\/accent\//, 'Servery’s green without one');
    await setAccentColor({ ...t.ctx, tenantId: place.restaurantId }, '#7a1f5c');
    const accented = await new Guest(t).get(`/s/${place.slug}/cart`);
    const sheet = `/s/${place.slug}/accent/7a1f5c.css`;
    assert.match(
      accented.body,
      new RegExp(`href="[^"]*/storefront\\.css">\\s*<link rel="stylesheet" href="${sheet}">`),
    );
    const css = await new Guest(t).get(sheet);
    assert.equal(css.statusCode, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    assert.equal(css.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(css.body, /--brand: #7a1f5c;[\s\S]*\.site-header \{\s*background: #7a1f5c;/);
    assert.equal((await new Guest(t).get(`/s/${place.slug}/accent/red.css`)).statusCode, 404);
  });

  it('serves a storefront on <slug>.{storefront_domain}, links and all, and not on the service’s own host', async () => {
    const guest = new Guest(t, { host: `${tenant.slug}.servery.test` });
    const menu = await guest.get('/');
    assert.equal(menu.statusCode, 200);
    assert.match(menu.body, new RegExp(`href="/p/${tenant.products.pizza}"`));
    const css = /href="(\/assets\/[^"]+)"/.exec(menu.body)?.[1] as string;
    assert.equal((await guest.get(css)).statusCode, 200);
    const product = await guest.get(`/p/${tenant.products.pizza}`);
    assert.match(product.body, new RegExp(`action="/p/${tenant.products.pizza}"`));
    seeOther(await guest.post(`/p/${tenant.products.pizza}`, { quantity: '1' }), '/?added=1');
    assert.match(text((await guest.get('/cart')).body), /Pizza €12\.00/);
    assert.equal((await guest.get('/api/store')).json().object, 'storefront');
    const own = await new Guest(t, { host: 'servery.test' }).get('/cart');
    assert.equal(own.statusCode, 404);
    // Not a slug: the service's own pages answer there (`/` is the site's front page), no storefront.
    assert.equal((await new Guest(t, { host: `not_a-slug.servery.test` }).get('/cart')).statusCode, 404);
  });
});

describe('the Stripe payment page', () => {
  it('loads Stripe.js with the payment’s client secret and allows Stripe in its CSP', async () => {
    const database = await openTestDatabase();
    const clock = new TestClock();
    const stripe = {
      name: 'stripe' as const,
      publishableKey: 'pk_test_servery',
      start: async () => ({ reference: 'pi_123', clientSecret: 'pi_123_secret_456' }),
    };
    const app = await buildApp({
      config: { baseUrl: testBaseUrl },
      db: database.db,
      clock,
      payments: stripe,
    });
    const t = {
      app,
      database,
      clock,
      ctx: { db: database.db, clock, tenantId: null, actor: { kind: 'system' } },
    } as unknown as TestApp;
    try {
      const tenant = await orderingTenant(t);
      const guest = new Guest(t);
      const page = (await guest.get(`/s/${tenant.slug}/p/${tenant.products.pizza}`)).body;
      const extras = /name="(group_[^"]+)"/.exec(page)?.[1] as string;
      await guest.post(`/s/${tenant.slug}/p/${tenant.products.pizza}`, { quantity: '1', [extras]: [] });
      const pay = seeOther(
        await guest.post(`/s/${tenant.slug}/checkout`, {
          type: 'pickup',
          payment_method: 'online',
          guest_email: 'ada@example.test',
        }),
        /\/pay$/,
      );
      const res = await guest.get(pay);
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /<script src="https:\/\/js\.stripe\.com\/v3\/"><\/script>/);
      assert.match(res.body, /data-publishable-key="pk_test_servery" data-client-secret="pi_123_secret_456"/);
      assert.match(res.body, new RegExp(`data-return-url="http://localhost:80${pay.replace(/\/pay$/, '')}"`));
      assert.doesNotMatch(res.body, /Test payment/);
      assert.match(
        String(res.headers['content-security-policy']),
        /script-src 'self' https:\/\/js\.stripe\.com/,
      );
      assert.match(String(res.headers['content-security-policy']), /frame-src https:\/\/js\.stripe\.com/);
      assert.equal((await guest.post(pay, { outcome: 'succeeded' })).statusCode, 303);
      const order = (await guest.get(pay.replace(/\/pay$/, ''))).body;
      assert.match(text(order), /Waiting for your payment/, 'only Stripe confirms a Stripe payment');
    } finally {
      await app.close();
      await database.close();
    }
  });
});
