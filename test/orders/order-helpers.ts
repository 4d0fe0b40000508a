import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { setGuestOrderLimit } from '../../src/domain/store/guest-limits.ts';
import { developerSession, json, makeTenant, type Tenant, type TestApp } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';

/* What the orders' tests share: a restaurant that takes orders, its menu, and guests ordering. */

export interface OrderingTenant extends Tenant {
  slug: string;
  /** Product ids by name: pizza 1200 (food), lemonade 350 (drink), with a size group on the lemonade. */
  products: { pizza: string; lemonade: string; soldOut: string };
  /** The lemonade's size options (choose exactly one) and the pizza's extras (up to two). */
  options: { small: string; large: string; cheese: string; olives: string };
}

/** A live restaurant (pro plan by default) open around the clock, taking pickup and delivery, with a small menu. */
export async function orderingTenant(
  t: TestApp,
  options: Parameters<typeof makeTenant>[1] = {},
): Promise<OrderingTenant> {
  const tenant = await makeTenant(t.ctx, options);
  const { slug } = await t.ctx.db
    .selectFrom('restaurants')
    .select('slug')
    .where('id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
  await ok(t, tenant.token, 'PUT', '/store/hours', { always_open: true }, 200);
  await ok(t, tenant.token, 'PATCH', '/store', { order_types: { pickup: true, delivery: true } }, 200);
  const drinks = await ok(t, tenant.token, 'POST', '/menu/categories', {
    name: 'Drinks',
    tax_class: 'drink',
  });
  const pizza = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Pizza', price: 1200 });
  const lemonade = await ok(t, tenant.token, 'POST', '/menu/products', {
    name: 'Lemonade',
    price: 350,
    category_id: drinks.id,
  });
  const soldOut = await ok(t, tenant.token, 'POST', '/menu/products', {
    name: 'Calzone',
    price: 1100,
    available: false,
  });
  const size = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
    name: 'Size',
    min_select: 1,
    max_select: 1,
    product_id: lemonade.id,
  });
  const small = await ok(t, tenant.token, 'POST', `/menu/option-groups/${size.id}/options`, {
    name: 'Small',
    price_delta: 0,
  });
  const large = await ok(t, tenant.token, 'POST', `/menu/option-groups/${size.id}/options`, {
    name: 'Large',
    price_delta: 100,
  });
  const extras = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
    name: 'Extras',
    min_select: 0,
    max_select: 2,
    product_id: pizza.id,
  });
  const cheese = await ok(t, tenant.token, 'POST', `/menu/option-groups/${extras.id}/options`, {
    name: 'Cheese',
    price_delta: 150,
  });
  const olives = await ok(t, tenant.token, 'POST', `/menu/option-groups/${extras.id}/options`, {
    name: 'Olives',
    price_delta: 100,
  });
  return {
    ...tenant,
    slug,
    products: { pizza: pizza.id, lemonade: lemonade.id, soldOut: soldOut.id },
    options: { small: small.id, large: large.id, cheese: cheese.id, olives: olives.id },
  };
}

/**
 * Each guest request comes from an address of its own, as different guests' do: the limits per
 * address (test/storefront/guest-limits.test.ts) stay out of the way of the tests of other rules.
 */
let guestsSoFar = 0;
function guestAddress(): string {
  guestsSoFar += 1;
  return `10.${(guestsSoFar >> 16) & 255}.${(guestsSoFar >> 8) & 255}.${guestsSoFar & 255}`;
}

/**
 * The restaurant's limit of orders paid on site a minute, set as its owner sets it in the dashboard
 * (docs/storefront.md, Limits): tests that place orders faster than guests would raise it.
 */
export function setGuestLimit(t: TestApp, tenant: Tenant, perMinute: number): Promise<void> {
  return setGuestOrderLimit({ ...t.ctx, tenantId: tenant.restaurantId }, perMinute);
}

/** A guest's request to the storefront's JSON API. */
export function guest(
  t: TestApp,
  slug: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method,
    url: `/s/${slug}/api${path}`,
    remoteAddress: guestAddress(),
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
}

/**
 * A pickup order of two pizzas with cheese and a large lemonade, paid on site unless told; paid
 * online, with the guest's e-mail that needs (unless told).
 */
export function pickupOrder(tenant: OrderingTenant, more: Record<string, unknown> = {}) {
  return {
    type: 'pickup',
    items: [
      { product_id: tenant.products.pizza, quantity: 2, option_ids: [tenant.options.cheese] },
      { product_id: tenant.products.lemonade, quantity: 1, option_ids: [tenant.options.large] },
    ],
    customer: { name: 'Alex Guest', phone: '+49 30 5550100' },
    payment_method: 'on_site',
    ...(more.payment_method === 'online' && { guest_email: 'alex@example.test' }),
    ...more,
  };
}

/** Places an order that must succeed; the answer (`order`, `guest_key`). */
export async function place(
  t: TestApp,
  tenant: OrderingTenant,
  body: Record<string, unknown> = pickupOrder(tenant),
): Promise<ReturnType<typeof json>> {
  const res = await guest(t, tenant.slug, 'POST', '/orders', body);
  assert.equal(res.statusCode, 201, res.body);
  return json(res);
}

/** An online order, paid through the test provider: the answer of the payment's confirmation. */
export async function placePaid(
  t: TestApp,
  tenant: OrderingTenant,
): Promise<{ id: string; guest_key: string }> {
  const placed = await place(t, tenant, pickupOrder(tenant, { payment_method: 'online' }));
  const started = await guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment`);
  assert.equal(started.statusCode, 200, started.body);
  const paid = await guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment/test`, {
    outcome: 'succeeded',
  });
  assert.equal(paid.statusCode, 200, paid.body);
  return { id: placed.order.id, guest_key: placed.guest_key };
}

/**
 * The cookies of a developer who opened their test restaurant's storefront from the console: the
 * console session and the storefront preview cookie it sets (`name=value; name=value`).
 */
export async function storefrontPreview(t: TestApp, tenant: Tenant): Promise<string> {
  const console = await developerSession(t, tenant, 'console');
  const opened = await t.app.inject({
    method: 'GET',
    url: `/console/test-restaurants/${tenant.restaurantId}/storefront`,
    headers: { cookie: console },
  });
  assert.equal(opened.statusCode, 303, opened.body);
  const preview = opened.cookies.find((cookie) => cookie.name === 'servery_storefront_preview');
  assert.ok(preview, 'the preview cookie is set');
  assert.equal(preview.path, '/s');
  return `${console}; ${preview.name}=${preview.value}`;
}

/**
 * The restaurant's phone, address and map location (Torstraße 1, 10115 Berlin at 52.53, 13.4),
 * set by its owner through the dashboard's store API.
 */
export async function placeRestaurant(t: TestApp, tenant: Tenant): Promise<void> {
  const owner = await developerSession(t, tenant, 'dashboard');
  const res = await t.app.inject({
    method: 'PATCH',
    url: `/dashboard/api/restaurants/${tenant.restaurantId}/store`,
    headers: { cookie: owner, 'content-type': 'application/json' },
    payload: {
      contact: { phone: '+49 30 555-0100' },
      address_line: 'Torstraße 1, 10115 Berlin',
      location: { lat: 52.53, lon: 13.4 },
    },
  });
  assert.equal(res.statusCode, 200, res.body);
}
