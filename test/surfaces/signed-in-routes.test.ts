import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { createApp } from '../../src/domain/apps/apps.service.ts';
import { createCategory } from '../../src/domain/menu/categories.service.ts';
import { createOptionGroup } from '../../src/domain/menu/option-groups.service.ts';
import { createOption } from '../../src/domain/menu/options.service.ts';
import { createProduct } from '../../src/domain/menu/products.service.ts';
import { actInRestaurant } from '../../src/domain/restaurants/restaurant-gate.ts';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import type { Ctx } from '../../src/domain/shared/context.ts';
import { createArea } from '../../src/domain/store/areas.service.ts';
import { createTable } from '../../src/domain/store/tables.service.ts';
import { createRestaurantWebhook } from '../../src/domain/webhooks/restaurant-webhooks.service.ts';
import { consoleRoutes } from '../../src/http/console/console.plugin.ts';
import { dashboardRoutes } from '../../src/http/dashboard/dashboard.plugin.ts';
import type { SignedInRoute } from '../../src/http/shared/signed-in-route.ts';
import { buildTestApp, call, json, makeTenant, newAccount, signInTo, type TestApp } from '../harness.ts';
import { arbitraryOf, type JsonSchema } from '../json-schema-arbitrary.ts';

/*
 * The shared test of the signed-in surfaces: it walks each surface's route list, so a new route is
 * covered by being listed. For every route: no session → 401; for the dashboard's restaurant
 * routes another restaurant's ids → 404 and a role without the right (staff) → 404, both changing
 * nothing; for the console's app routes another developer's app → 404; a body with an unknown
 * field → 400 naming it.
 */
let t: TestApp;
const unknownField = 'no_such_field';

before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/** The route's path with its parameters filled in from `ids` (unnamed ones: a fresh UUID). */
function pathOf(route: SignedInRoute, ids: Record<string, string>): string {
  return route.url.replace(/:(\w+)/g, (_, name: string) => ids[name] ?? randomUUID());
}

/** A body the route's schema accepts (none for bodiless routes). */
function validBody(route: SignedInRoute, seed: number): unknown {
  const schema = route.schema.body as JsonSchema | undefined;
  if (!schema) return route.method === 'GET' ? undefined : {};
  return fc.sample(arbitraryOf(schema, { now: t.clock.now() }), { numRuns: 1, seed })[0];
}

const label = (route: SignedInRoute) => `${route.method} ${route.url}`;
const signedInOnly = (routes: readonly SignedInRoute[]) => routes.filter((r) => r.auth.session === 'account');

async function eventCount(restaurantId: string): Promise<number> {
  const row = await t.ctx.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tenant_id', '=', restaurantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function restaurantOf(ownerId: string): Promise<string> {
  const restaurant = await createRestaurant(t.ctx, {
    name: `Surface test ${randomUUID().slice(0, 8)}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    country: 'DE',
    plan: 'premium',
    livemode: false,
    ownerIds: [ownerId],
  });
  return restaurant.id;
}

/** A restaurant's objects that the dashboard's routes address, by path parameter. */
async function objectsOf(restaurantId: string): Promise<Record<string, string>> {
  const ctx: Ctx = await actInRestaurant(t.ctx, restaurantId, []);
  const area = await createArea(ctx, { name: 'Terrace' });
  const table = await createTable(ctx, { label: 'T1', seats: 4 });
  const { webhook } = await createRestaurantWebhook(ctx, {
    url: 'http://127.0.0.1:9/hook',
    events: ['order.*'],
    rules: { allowInsecure: true },
  });
  const category = await createCategory(ctx, { name: 'Pizza' });
  const product = await createProduct(ctx, { name: 'Margherita', price: 950, category_id: category.id });
  const group = await createOptionGroup(ctx, { name: 'Extras' });
  const option = await createOption(ctx, group.id, { name: 'Cheese', price_delta: 150 });
  return {
    restaurant_id: restaurantId,
    area_id: area.id,
    table_id: table.id,
    webhook_id: webhook.id,
    date: '2030-01-01',
    category_id: category.id,
    product_id: product.id,
    option_group_id: group.id,
    option_id: option.id,
  };
}

for (const [surface, routes] of [
  ['console', consoleRoutes],
  ['dashboard', dashboardRoutes],
] as const) {
  describe(`${surface}: every route`, () => {
    test('without a session: 401, before the request is read', async () => {
      for (const route of signedInOnly(routes)) {
        const response = await call(t.app, route.method, pathOf(route, {}), null, validBody(route, 1));
        assert.equal(response.statusCode, 401, `${label(route)}: ${response.body}`);
        assert.equal(json(response).error.code, 'unauthorized', label(route));
      }
    });
  });
}

describe('dashboard: the restaurant gate', () => {
  const restaurantRoutes = dashboardRoutes.filter((route) => 'restaurantRoles' in route.auth);
  let owner: { id: string; email: string };
  let cookie: string;
  let own: Record<string, string>;
  let theirs: Record<string, string>;
  before(async () => {
    owner = await newAccount(t, false);
    cookie = await signInTo(t.app, 'dashboard', owner.email);
    own = await objectsOf(await restaurantOf(owner.id));
    theirs = await objectsOf((await makeTenant(t.ctx, { livemode: false })).restaurantId);
  });

  test('the list holds the restaurant routes (store, tables, areas, webhooks, deliveries, menu)', () => {
    for (const part of ['/store', '/tables', '/areas', '/webhooks', '/deliveries', '/menu'])
      assert.ok(
        restaurantRoutes.some((route) => route.url.includes(part)),
        part,
      );
  });

  test('another restaurant’s ids: 404 not_found, nothing changes there', async () => {
    const before = await eventCount(theirs.restaurant_id as string);
    for (const [index, route] of restaurantRoutes.entries()) {
      const response = await call(
        t.app,
        route.method,
        pathOf(route, theirs),
        cookie,
        validBody(route, index),
      );
      assert.equal(response.statusCode, 404, `${label(route)}: ${response.body}`);
      assert.equal(json(response).error.code, 'not_found', label(route));
    }
    assert.equal(await eventCount(theirs.restaurant_id as string), before);
  });

  test('a role without the right (staff on owners’ routes): 404 not_found, nothing changes', async () => {
    const staff = await newAccount(t, false);
    await t.ctx.db
      .insertInto('restaurant_members')
      .values({ tenant_id: own.restaurant_id as string, account_id: staff.id, role: 'staff' })
      .execute();
    const staffCookie = await signInTo(t.app, 'dashboard', staff.email);
    const before = await eventCount(own.restaurant_id as string);
    const refused = restaurantRoutes.filter(
      (route) => 'restaurantRoles' in route.auth && !route.auth.restaurantRoles.includes('staff'),
    );
    assert.ok(refused.length > 0);
    for (const [index, route] of refused.entries()) {
      const response = await call(
        t.app,
        route.method,
        pathOf(route, own),
        staffCookie,
        validBody(route, index),
      );
      assert.equal(response.statusCode, 404, `${label(route)}: ${response.body}`);
    }
    assert.equal(await eventCount(own.restaurant_id as string), before);
  });

  test('an unknown field in the body: 400 naming it', async () => {
    for (const [index, route] of dashboardRoutes.entries()) {
      if (route.schema.body === undefined) continue;
      const body = { ...(validBody(route, index) as object), [unknownField]: true };
      const response = await call(t.app, route.method, pathOf(route, own), cookie, body);
      assert.equal(response.statusCode, 400, `${label(route)}: ${response.body}`);
      assert.equal(json(response).error.param, unknownField, label(route));
    }
  });
});

describe('console: the app’s developer only', () => {
  const appRoutes = consoleRoutes.filter((route) => route.url.includes(':client_id'));
  let cookie: string;
  let ownClientId: string;
  before(async () => {
    const developer = await newAccount(t, true);
    cookie = await signInTo(t.app, 'console', developer.email);
    const { app } = await createApp(t.ctx, {
      developerId: developer.id,
      name: 'Own app',
      type: 'confidential',
      redirectUris: ['https://app.example.test/callback'],
      scopes: ['orders:read'],
    });
    ownClientId = app.clientId;
  });

  test('another developer’s app: 404 not_found', async () => {
    const theirs = await makeTenant(t.ctx);
    assert.ok(appRoutes.length > 0);
    for (const [index, route] of appRoutes.entries()) {
      const ids = { client_id: theirs.clientId };
      const response = await call(t.app, route.method, pathOf(route, ids), cookie, validBody(route, index));
      assert.equal(response.statusCode, 404, `${label(route)}: ${response.body}`);
      assert.equal(json(response).error.code, 'not_found', label(route));
    }
  });

  test('an unknown field in the body: 400 naming it', async () => {
    for (const [index, route] of consoleRoutes.entries()) {
      if (route.schema.body === undefined) continue;
      const body = { ...(validBody(route, index) as object), [unknownField]: true };
      const response = await call(
        t.app,
        route.method,
        pathOf(route, { client_id: ownClientId }),
        cookie,
        body,
      );
      assert.equal(response.statusCode, 400, `${label(route)}: ${response.body}`);
      assert.equal(json(response).error.param, unknownField, label(route));
    }
  });
});
