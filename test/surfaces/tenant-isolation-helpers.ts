import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import dc from 'node:diagnostics_channel';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { OutboundHttpClient } from '../../src/adapters/outbound-http.ts';
import { createApp, setAppStatus } from '../../src/domain/apps/apps.service.ts';
import { issueAccessToken } from '../../src/domain/connections/access-tokens.ts';
import { consentToApp } from '../../src/domain/connections/connections.service.ts';
import { bookAsGuest } from '../../src/domain/reservations/guest-booking.ts';
import { inviteToTeam } from '../../src/domain/restaurants/invitations.ts';
import { actInRestaurant } from '../../src/domain/restaurants/restaurant-gate.ts';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import { scopes as allScopes } from '../../src/domain/shared/scopes.ts';
import { writeTransaction } from '../../src/domain/shared/write-collisions.ts';
import { createArea } from '../../src/domain/store/areas.service.ts';
import { createTable } from '../../src/domain/store/tables.service.ts';
import { setAppWebhook } from '../../src/domain/webhooks/app-webhook.service.ts';
import { createRestaurantWebhook } from '../../src/domain/webhooks/restaurant-webhooks.service.ts';
import { buildTestApp, json, newAccount, signInTo, type TestApp } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { guest } from '../orders/order-helpers.ts';
import { runJob } from '../webhooks/delivery-helpers.ts';

/* What the tenant isolation sweep sets up: the app with the list of its routes, and two tenants. */

export interface Route {
  method: string;
  url: string;
  /** The route's path parameters, in the order of the path. */
  params: string[];
  /** The JSON Schemas of its body and its query, where it has them. */
  bodySchema: unknown;
  querySchema: unknown;
}

/**
 * The test app, with every route it registers as Fastify announces them: the `onRoute` hook is
 * added from Fastify's `fastify.initialization` channel, so before any plugin registers a route.
 * HEAD routes are left out (Fastify adds one to each GET route, with the GET's handler).
 */
export async function appWithRoutes(options: Parameters<typeof buildTestApp>[0]): Promise<{
  t: TestApp;
  routes: Route[];
}> {
  const routes: Route[] = [];
  const collect = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat()) {
        if (method === 'HEAD') continue;
        const params = [...route.url.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
        routes.push({
          method,
          url: route.url,
          params,
          bodySchema: route.schema?.body,
          querySchema: route.schema?.querystring,
        });
      }
    });
  };
  dc.subscribe('fastify.initialization', collect);
  try {
    return { t: await buildTestApp(options), routes };
  } finally {
    dc.unsubscribe('fastify.initialization', collect);
  }
}

/** A tenant's people and objects: every id a route's path may name. */
export interface IsolationTenant {
  /** Every name of its objects (restaurant, menu, area, table, guests) starts with it. */
  name: string;
  restaurantId: string;
  slug: string;
  /** The developer's own test restaurant (livemode false), which the console addresses. */
  testRestaurantId: string;
  appId: string;
  clientId: string;
  connectionId: string;
  /** The app's access token with every scope. */
  token: string;
  ownerId: string;
  ownerEmail: string;
  developerEmail: string;
  /** An invitation to its team, open. */
  invitationId: string;
  categoryId: string;
  productId: string;
  optionGroupId: string;
  optionId: string;
  areaId: string;
  tableId: string;
  tableKey: string;
  closureDate: string;
  reservationId: string;
  /** The key of the guest's booking page for the reservation. */
  bookingKey: string;
  orderId: string;
  orderKey: string;
  eventId: string;
  restaurantWebhookId: string;
  restaurantDeliveryId: string;
  appWebhookId: string;
  appDeliveryId: string;
}

const restaurantFields = { timezone: 'Europe/Berlin', currency: 'EUR', country: 'DE', plan: 'pro' } as const;
/** A public address (live restaurants' webhooks must be): the sends never leave (noNetwork). */
const hookUrl = 'https://93.184.216.34/hook';
/** The outside world for the webhook job: every send fails, and its delivery is recorded. */
const noNetwork = {
  fetch: async () => {
    throw new Error('no network in this test');
  },
} as unknown as OutboundHttpClient;

/**
 * A live pro restaurant with its own owner, and an app of its own developer connected to it with
 * every scope; one of each object: menu, area and table, closure, reservation, an order placed by
 * a guest, the restaurant's and the app's webhook each with a delivery, and the connection's
 * first event. Everything is made as its owner would, mostly through the public API.
 */
export async function isolationTenant(t: TestApp, name: string): Promise<IsolationTenant> {
  // Accounts hash their passwords slowly, by design: both at once.
  const [owner, developer] = await Promise.all([newAccount(t, false), newAccount(t, true)]);
  const restaurant = await createRestaurant(t.ctx, {
    ...restaurantFields,
    name,
    livemode: true,
    ownerIds: [owner.id],
  });
  const testRestaurant = await createRestaurant(t.ctx, {
    ...restaurantFields,
    name: `${name} (test)`,
    livemode: false,
    ownerIds: [developer.id],
  });
  const { app } = await createApp(t.ctx, {
    developerId: developer.id,
    name: `${name} app`,
    type: 'confidential',
    redirectUris: ['https://app.example.test/callback'],
    scopes: allScopes,
  });
  await setAppStatus(t.ctx, app.clientId, 'approved');
  const { connectionId } = await consentToApp(t.ctx, {
    tenantId: restaurant.id,
    appId: app.id,
    scopes: allScopes,
  });
  const { token } = await issueAccessToken(t.ctx, {
    tenantId: restaurant.id,
    connectionId,
    scopes: allScopes,
  });

  const ctx = await actInRestaurant(t.ctx, restaurant.id, []);
  const area = await createArea(ctx, { name: `${name} Terrace` });
  const table = await createTable(ctx, { label: `${name} T1`, seats: 4 });
  const { webhook: restaurantWebhook } = await createRestaurantWebhook(ctx, {
    url: hookUrl,
    events: ['order.*'],
    rules: { allowInsecure: false },
  });
  await setAppWebhook(t.ctx, {
    clientId: app.clientId,
    developerId: developer.id,
    url: hookUrl,
    events: ['order.*'],
    rules: { allowInsecure: false },
  });

  // Open 08:00–23:00 every day: orders now (the test clock's 11:00 in Berlin) and reservations
  // tomorrow (they need a weekly schedule).
  const hours = [0, 1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, open: '08:00', close: '23:00' }));
  await ok(t, token, 'PUT', '/store/hours', { opening_hours: hours }, 200);
  await ok(t, token, 'PATCH', '/store', { order_types: { pickup: true } }, 200);
  const closure = await ok(t, token, 'POST', '/store/closures', { date: '2030-01-01', closed: true });
  // A shared option group, linked to the product (a product may link only shared ones).
  const category = await ok(t, token, 'POST', '/menu/categories', { name: `${name} Pizza` });
  const group = await ok(t, token, 'POST', '/menu/option-groups', { name: `${name} Extras` });
  const option = await ok(t, token, 'POST', `/menu/option-groups/${group.id}/options`, {
    name: `${name} Cheese`,
    price_delta: 150,
  });
  const product = await ok(t, token, 'POST', '/menu/products', {
    name: `${name} Margherita`,
    price: 950,
    category_id: category.id,
    option_group_ids: [group.id],
  });
  // Booked by a guest at the storefront, so it has the guest's booking key as well as its id.
  const bookingKey = `sbk_${randomBytes(32).toString('base64url')}`;
  const reservation = await writeTransaction(t.database.db, (trx) =>
    bookAsGuest(
      { ...t.ctx, db: trx, tenantId: restaurant.id, actor: { kind: 'guest' } },
      {
        starts_at: '2026-11-03T17:00:00Z',
        party_size: 2,
        guest_name: `${name} Ada`,
        guest_email: 'ada@example.test',
      },
      bookingKey,
    ),
  );
  const placed = await guest(t, restaurant.slug, 'POST', '/orders', {
    type: 'pickup',
    items: [{ product_id: product.id, quantity: 1, option_ids: [option.id] }],
    customer: { name: `${name} Alex`, phone: '+49 30 5550100' },
    payment_method: 'on_site',
  });
  assert.equal(placed.statusCode, 201, placed.body);
  const { order, guest_key: orderKey } = json(placed);

  // The app's webhook as a row: the console names it by its app, so its view has no id.
  const appWebhook = await t.database.db
    .selectFrom('webhooks')
    .select('id')
    .where('app_id', '=', app.id)
    .executeTakeFirstOrThrow();
  await runJob(t.database.db, t.clock, { http: noNetwork, insecureHttp: noNetwork });
  const deliveryOf = async (webhookId: string) => {
    const delivery = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', webhookId)
      .executeTakeFirst();
    assert.ok(delivery, `a delivery of webhook ${webhookId}`);
    return delivery.id;
  };
  await writeTransaction(t.database.db, (trx) =>
    inviteToTeam({ ...ctx, db: trx }, { email: `invited-${owner.email}`, role: 'staff' }, (key) => key),
  );
  const invitation = await t.database.db
    .selectFrom('invitations')
    .select('id')
    .where('tenant_id', '=', restaurant.id)
    .executeTakeFirstOrThrow();
  return {
    name,
    restaurantId: restaurant.id,
    slug: restaurant.slug,
    testRestaurantId: testRestaurant.id,
    appId: app.id,
    clientId: app.clientId,
    connectionId,
    token,
    ownerId: owner.id,
    ownerEmail: owner.email,
    developerEmail: developer.email,
    invitationId: invitation.id,
    categoryId: category.id,
    productId: product.id,
    optionGroupId: group.id,
    optionId: option.id,
    areaId: area.id,
    tableId: table.id,
    tableKey: table.qr_key,
    closureDate: closure.date,
    reservationId: reservation.id,
    bookingKey,
    orderId: order.id,
    orderKey,
    eventId: await firstEventOf(t, token),
    restaurantWebhookId: restaurantWebhook.id,
    restaurantDeliveryId: await deliveryOf(restaurantWebhook.id),
    appWebhookId: appWebhook.id,
    appDeliveryId: await deliveryOf(appWebhook.id),
  };
}

/**
 * The first event the tenant's connection sees. The whole feed is read, so the envelopes (frozen
 * on first read) are there before the sweep, which compares rows.
 */
async function firstEventOf(t: TestApp, token: string): Promise<string> {
  const feed = await ok(t, token, 'GET', '/events?limit=100', undefined, 200);
  assert.equal(feed.has_more, false);
  const [event] = feed.data;
  assert.ok(event, 'the connection has an event');
  return event.id;
}

/** A signed-in session's cookies with the CSRF token of the surface's forms (from its home page). */
export async function pageSession(
  t: TestApp,
  surface: 'console' | 'dashboard',
  email: string,
): Promise<{ cookie: string; csrf: string }> {
  const session = await signInTo(t.app, surface, email);
  const home = await t.app.inject({ method: 'GET', url: `/${surface}`, headers: { cookie: session } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(home.body)?.[1];
  assert.ok(csrf, `a CSRF token on /${surface}: ${home.statusCode}`);
  const cookie = [session, ...home.cookies.map((c) => `${c.name}=${c.value}`)].join('; ');
  return { cookie, csrf };
}
