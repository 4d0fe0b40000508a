import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { menuImages } from '../../src/adapters/hosted-images.ts';
import { bearer, type TestApp, testBaseUrl } from '../harness.ts';
import { arbitraryOf, type JsonSchema } from '../json-schema-arbitrary.ts';
import {
  appWithRoutes,
  type IsolationTenant,
  isolationTenant,
  pageSession,
  type Route,
} from './tenant-isolation-helpers.ts';

/*
 * The tenant isolation sweep (issue 17): every route of every surface that names something in its
 * path, collected from the app as Fastify registers it, is called acting as restaurant A (A's app
 * token, A's owner in the dashboard, A's developer in the console, a guest at A's storefront) with
 * restaurant B's ids: all of them B's, then A's restaurant (or app) with B's objects inside it, and
 * so on inwards. Each answer must be the surface's not found (404 `not_found` on the JSON APIs, the
 * 404 page on pages), and B's rows must be as they were. A parameter the sweep has no id for fails
 * the sweep, so a new route is covered by being registered. Then B's ids go where requests name
 * objects in their body or query, on A's own objects: each answer must be the one an id of nothing
 * gets, and neither restaurant's rows may change.
 */

let t: TestApp;
let routes: Route[];
let imagesDir: string;
let a: IsolationTenant;
let b: IsolationTenant;
/** A's owner in the dashboard and A's developer in the console: session cookies and forms' CSRF token. */
let sessions: Record<'dashboard' | 'console', { cookie: string; csrf: string }>;

/** Routes whose parameters name nothing of a restaurant's, so another tenant's id means nothing there. */
const withoutTenantIds: Record<string, string> = {
  'GET /images/:key': 'a hosted image’s address is the hash of its bytes, public like the menus that show it',
  'POST /s/:slug/cart/lines/:index': 'a line of the guest’s own cart, which lives in the guest’s cookie',
  'GET /dashboard/invitations/:token':
    'an invitation’s link names its restaurant by a secret token: whoever holds it may join, so no other restaurant’s id fits there',
  'POST /dashboard/invitations/:token':
    'an invitation’s link names its restaurant by a secret token: whoever holds it may join, so no other restaurant’s id fits there',
  'GET /s/:slug/accent/:file': 'a stylesheet named by its colour, the same for every restaurant: no object',
};

/**
 * A tenant's ids, keyed by the end of a route's path up to the parameter (the longest key that
 * ends it wins), as generic names (`:id`, `:key`) mean different objects on different paths.
 * The storefront's `:slug` is the address the guest acts at: always A's, so B's objects are asked
 * for at A's storefront (B's own address with B's order key is B's guest, not another tenant).
 */
function idsOf(x: IsolationTenant): Record<string, string> {
  return {
    ':restaurant_id': x.restaurantId,
    ':restaurantId': x.restaurantId,
    'console/api/restaurants/:restaurant_id': x.testRestaurantId,
    'test-restaurants/:id': x.testRestaurantId,
    ':slug': a.slug,
    ':client_id': x.clientId,
    ':clientId': x.clientId,
    ':connection_id': x.connectionId,
    ':connectionId': x.connectionId,
    ':category_id': x.categoryId,
    'categories/:id': x.categoryId,
    ':product_id': x.productId,
    ':productId': x.productId,
    'products/:id': x.productId,
    ':option_group_id': x.optionGroupId,
    'option-groups/:id': x.optionGroupId,
    ':option_id': x.optionId,
    'options/:id': x.optionId,
    ':area_id': x.areaId,
    ':areaId': x.areaId,
    ':table_id': x.tableId,
    ':tableId': x.tableId,
    't/:key': x.tableKey,
    ':date': x.closureDate,
    ':reservation_id': x.reservationId,
    ':reservationId': x.reservationId,
    'reservations/:id': x.reservationId,
    'book/:key': x.bookingKey,
    ':order_id': x.orderId,
    ':orderId': x.orderId,
    'orders/:id': x.orderId,
    'orders/:key': x.orderKey,
    'o/:key': x.orderKey,
    'events/:id': x.eventId,
    ':webhook_id': x.restaurantWebhookId,
    ':webhookId': x.restaurantWebhookId,
    ':delivery_id': x.restaurantDeliveryId,
    ':deliveryId': x.restaurantDeliveryId,
    'webhook/deliveries/:delivery_id': x.appDeliveryId,
    'webhook/deliveries/:deliveryId': x.appDeliveryId,
    ':accountId': x.ownerId,
    ':invitationId': x.invitationId,
  };
}

/** The id of `ids` for the route's parameter, or undefined when the sweep has none. */
function idFor(ids: Record<string, string>, route: Route, param: string): string | undefined {
  const segments = route.url.split('/');
  const upTo = segments.slice(0, segments.indexOf(`:${param}`) + 1).join('/');
  const key = Object.keys(ids)
    .filter((candidate) => upTo.endsWith(`/${candidate}`))
    .sort((x, y) => y.length - x.length)[0];
  return key === undefined ? undefined : ids[key];
}

/**
 * The paths to try: the first `k` parameters A's, the rest B's, for each `k` short of all A's
 * (B's restaurant; A's restaurant with B's webhook; A's restaurant and webhook with B's delivery).
 */
function pathsOf(route: Route): string[] {
  const own = idsOf(a);
  const theirs = idsOf(b);
  const fill = (k: number) => {
    let index = 0;
    return route.url.replace(/:(\w+)/g, (_, param: string) =>
      String(idFor(index++ < k ? own : theirs, route, param)),
    );
  };
  const allOwn = fill(route.params.length);
  const paths = route.params.map((_, k) => fill(k)).filter((path) => path !== allOwn);
  return [...new Set(paths)];
}

type Surface =
  | 'v1'
  | 'dashboard api'
  | 'dashboard page'
  | 'console api'
  | 'console page'
  | 'storefront api'
  | 'storefront page';

function surfaceOf(route: Route): Surface | undefined {
  const { url } = route;
  if (url.startsWith('/v1/')) return 'v1';
  if (url.startsWith('/dashboard/api/')) return 'dashboard api';
  if (url.startsWith('/dashboard/')) return 'dashboard page';
  if (url.startsWith('/console/api/')) return 'console api';
  if (url.startsWith('/console/')) return 'console page';
  if (url.startsWith('/s/:slug/api/')) return 'storefront api';
  if (url.startsWith('/s/:slug')) return 'storefront page';
  return undefined;
}

const label = (route: Route) => `${route.method} ${route.url}`;
const swept = () => routes.filter((route) => route.params.length > 0 && !(label(route) in withoutTenantIds));

/*
 * Bodies that reach the lookup where the generated one (or a form with no fields) is refused
 * before it: a 400 would hide whether the id was found.
 */
const bodies: Record<string, Record<string, unknown>> = {
  // The address is checked before the webhook is looked up; the schema allows any string.
  'PATCH /dashboard/api/restaurants/:restaurant_id/webhooks/:webhook_id': { events: ['order.*'] },
  // The form's status is read first.
  'POST /dashboard/restaurants/:restaurantId/orders/:orderId/advance': { status: 'ready' },
  // The role is read first.
  'POST /dashboard/restaurants/:restaurantId/team/members/:accountId/role': { role: 'staff' },
};

/** A body the route's schema accepts (none for GET and DELETE without one). */
function jsonBody(route: Route, seed: number): unknown {
  const listed = bodies[label(route)];
  if (listed) return listed;
  if (route.bodySchema)
    return fc.sample(arbitraryOf(route.bodySchema as JsonSchema, { now: t.clock.now() }), {
      numRuns: 1,
      seed,
    })[0];
  return route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
}

/**
 * The request as A makes it on the route's surface, to `url`; `body` (JSON, or a form's fields)
 * in place of the route's default one.
 */
function send(
  route: Route,
  url: string,
  seed: number,
  body?: Record<string, unknown>,
): Promise<LightMyRequestResponse> {
  const surface = surfaceOf(route);
  const method = route.method as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  const json = (headers: Record<string, string>) => {
    const payload = body ?? jsonBody(route, seed);
    return t.app.inject({
      method,
      url,
      headers: { ...headers, ...(payload !== undefined && { 'content-type': 'application/json' }) },
      ...(payload !== undefined && { payload: JSON.stringify(payload) }),
    });
  };
  const page = (session: { cookie: string; csrf: string } | null) => {
    const form = new URLSearchParams({ ...(session && { _csrf: session.csrf }), lang: 'en' });
    for (const [name, value] of Object.entries(body ?? bodies[label(route)] ?? {}))
      for (const one of [value].flat()) form.append(name, String(one));
    return t.app.inject({
      method,
      url,
      headers: {
        ...(session && { cookie: session.cookie }),
        ...(method !== 'GET' && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(method !== 'GET' && { payload: form.toString() }),
    });
  };
  switch (surface) {
    case 'v1':
      return json(bearer(a.token));
    case 'dashboard api':
      return json({ cookie: sessions.dashboard.cookie });
    case 'console api':
      return json({ cookie: sessions.console.cookie });
    case 'storefront api':
      return json({});
    case 'dashboard page':
      return page(sessions.dashboard);
    case 'console page':
      return page(sessions.console);
    case 'storefront page':
      return page(null);
    default:
      throw new Error(`${label(route)}: a route of no known surface`);
  }
}

/** What is wrong with the answer, if it is not the surface's not found. */
function notFoundProblem(route: Route, response: LightMyRequestResponse): string | undefined {
  const surface = surfaceOf(route);
  if (response.statusCode !== 404) return `${response.statusCode} ${response.body.slice(0, 300)}`;
  if (response.body.includes(b.name)) return `404 naming B’s objects: ${response.body.slice(0, 300)}`;
  const type = String(response.headers['content-type']);
  if (surface === 'v1' || surface?.endsWith(' api')) {
    if (!type.startsWith('application/json') || response.json().error?.code !== 'not_found')
      return `404 without not_found: ${response.body.slice(0, 300)}`;
  } else if (!type.startsWith('text/html')) return `404 without the page: ${type}`;
  return undefined;
}

/** B's id inside a request on A's own objects: in its body (JSON, or a form's fields) or its query. */
interface IdCase {
  /** The route, as `METHOD /path/:param`. */
  route: string;
  /** The request's path, with A's ids. */
  url: string;
  /** The field that carries B's id (`[]`: in each item of a list). */
  field: string;
  body?: Record<string, unknown>;
}

/*
 * Every place a request names an object in its body or query, with B's object there, on A's own
 * restaurant. The JSON APIs' places are also found in their schemas (fields `…_id`, `…_ids`, or of
 * UUIDs), so a new one fails the sweep until it is here; pages' forms and queries, and the events'
 * `after`, are kept here by hand.
 */
function idCases(): IdCase[] {
  const dashboardApi = `/dashboard/api/restaurants/${a.restaurantId}`;
  const dashboard = `/dashboard/restaurants/${a.restaurantId}`;
  const product = { name: 'New', price: 100 };
  const form = { name: 'New', price: '1,00' };
  return [
    ...(['POST /v1/menu/products', 'PATCH /v1/menu/products/:id'] as const).flatMap((route) => {
      const url = route.startsWith('POST') ? '/v1/menu/products' : `/v1/menu/products/${a.productId}`;
      return [
        { route, url, field: 'category_id', body: { ...product, category_id: b.categoryId } },
        { route, url, field: 'option_group_ids', body: { ...product, option_group_ids: [b.optionGroupId] } },
      ];
    }),
    {
      route: 'POST /v1/menu/option-groups',
      url: '/v1/menu/option-groups',
      field: 'product_id',
      body: { name: 'New', product_id: b.productId },
    },
    {
      route: 'PATCH /v1/menu/option-groups/:id',
      url: `/v1/menu/option-groups/${a.optionGroupId}`,
      field: 'product_id',
      body: { product_id: b.productId },
    },
    {
      route: 'PATCH /v1/menu/options/:id',
      url: `/v1/menu/options/${a.optionId}`,
      field: 'group_id',
      body: { group_id: b.optionGroupId },
    },
    ...(
      [
        ['product', b.productId],
        ['option', b.optionId],
      ] as const
    ).map(([type, id]) => ({
      route: 'POST /v1/menu/availability',
      url: '/v1/menu/availability',
      field: 'entries[].id',
      body: { entries: [{ type, id, available: false }] },
    })),
    {
      route: 'POST /v1/reservations',
      url: '/v1/reservations',
      field: 'table_ids',
      body: { starts_at: '2026-11-03T18:00:00Z', party_size: 2, guest_name: 'New', table_ids: [b.tableId] },
    },
    {
      route: 'PATCH /v1/reservations/:id',
      url: `/v1/reservations/${a.reservationId}`,
      field: 'table_ids',
      body: { table_ids: [b.tableId] },
    },
    {
      route: 'POST /dashboard/api/restaurants/:restaurant_id/tables',
      url: `${dashboardApi}/tables`,
      field: 'area_id',
      body: { label: 'New', area_id: b.areaId },
    },
    {
      route: 'PATCH /dashboard/api/restaurants/:restaurant_id/tables/:table_id',
      url: `${dashboardApi}/tables/${a.tableId}`,
      field: 'area_id',
      body: { area_id: b.areaId },
    },
    ...(
      [
        'POST /dashboard/api/restaurants/:restaurant_id/menu/products',
        'PATCH /dashboard/api/restaurants/:restaurant_id/menu/products/:product_id',
      ] as const
    ).flatMap((route) => {
      const url = `${dashboardApi}/menu/products${route.startsWith('POST') ? '' : `/${a.productId}`}`;
      return [
        { route, url, field: 'category_id', body: { ...product, category_id: b.categoryId } },
        { route, url, field: 'option_group_ids', body: { ...product, option_group_ids: [b.optionGroupId] } },
      ];
    }),
    {
      route: 'POST /dashboard/api/restaurants/:restaurant_id/menu/option-groups',
      url: `${dashboardApi}/menu/option-groups`,
      field: 'product_id',
      body: { name: 'New', product_id: b.productId },
    },
    {
      route: 'PATCH /dashboard/api/restaurants/:restaurant_id/menu/option-groups/:option_group_id',
      url: `${dashboardApi}/menu/option-groups/${a.optionGroupId}`,
      field: 'product_id',
      body: { product_id: b.productId },
    },
    {
      route: 'PATCH /dashboard/api/restaurants/:restaurant_id/menu/options/:option_id',
      url: `${dashboardApi}/menu/options/${a.optionId}`,
      field: 'group_id',
      body: { group_id: b.optionGroupId },
    },
    {
      route: 'PATCH /dashboard/api/restaurants/:restaurant_id/reservation-settings',
      url: `${dashboardApi}/reservation-settings`,
      field: 'combinations',
      body: { combinations: [[a.tableId, b.tableId]] },
    },
    ...(
      [
        ['items[].product_id', { product_id: b.productId, quantity: 1 }],
        ['items[].option_ids', { product_id: a.productId, quantity: 1, option_ids: [b.optionId] }],
      ] as const
    ).map(([field, item]) => ({
      route: 'POST /s/:slug/api/orders',
      url: `/s/${a.slug}/api/orders`,
      field,
      body: {
        type: 'pickup',
        items: [item],
        customer: { name: 'New', phone: '+49 30 5550100' },
        payment_method: 'on_site',
      },
    })),
    // The dashboard's forms.
    ...(
      [
        'POST /dashboard/restaurants/:restaurantId/menu/products',
        'POST /dashboard/restaurants/:restaurantId/menu/products/:id',
      ] as const
    ).flatMap((route) => {
      const url = `${dashboard}/menu/products${route.endsWith(':id') ? `/${a.productId}` : ''}`;
      return [
        { route, url, field: 'category_id', body: { ...form, category_id: b.categoryId } },
        { route, url, field: 'option_group_ids', body: { ...form, option_group_ids: [b.optionGroupId] } },
      ];
    }),
    ...(
      [
        'POST /dashboard/restaurants/:restaurantId/menu/option-groups',
        'POST /dashboard/restaurants/:restaurantId/menu/option-groups/:id',
      ] as const
    ).map((route) => ({
      route,
      url: `${dashboard}/menu/option-groups${route.endsWith(':id') ? `/${a.optionGroupId}` : ''}`,
      field: 'product_id',
      body: { name: 'New', min_select: '0', max_select: '1', product_id: b.productId },
    })),
    {
      route: 'POST /dashboard/restaurants/:restaurantId/menu/options',
      url: `${dashboard}/menu/options`,
      field: 'group_id',
      body: { name: 'New', price_delta: '0', group_id: b.optionGroupId },
    },
    ...(
      [
        'POST /dashboard/restaurants/:restaurantId/tables',
        'POST /dashboard/restaurants/:restaurantId/tables/:tableId',
      ] as const
    ).map((route) => ({
      route,
      url: `${dashboard}/tables${route.endsWith(':tableId') ? `/${a.tableId}` : ''}`,
      field: 'area_id',
      body: { label: 'New', seats: '2', area_id: b.areaId, bookable_online: 'true' },
    })),
    {
      route: 'POST /dashboard/restaurants/:restaurantId/reservations',
      url: `${dashboard}/reservations`,
      field: 'table_ids',
      // A's own table is free then (A's reservation ends at 18:30).
      body: { starts_at: '2026-11-03T19:00:00Z', party_size: '2', guest_name: 'New', table_ids: b.tableId },
    },
    {
      route: 'POST /dashboard/restaurants/:restaurantId/reservations/:reservationId',
      url: `${dashboard}/reservations/${a.reservationId}`,
      field: 'table_ids',
      body: {
        starts_at: '2026-11-03T17:00:00Z',
        party_size: '2',
        guest_name: `${a.name} Ada`,
        table_ids: b.tableId,
      },
    },
    // Queries that name an object for a page to show or preset.
    ...(
      [
        ['menu/products/new', 'category_id', b.categoryId],
        ['menu/option-groups/new', 'product_id', b.productId],
        ['menu/options/new', 'group_id', b.optionGroupId],
        ['tables/new', 'area_id', b.areaId],
        ['tables/qr-codes', 'table', b.tableId],
      ] as const
    ).map(([page, field, id]) => ({
      route: `GET /dashboard/restaurants/:restaurantId/${page}`,
      url: `${dashboard}/${page}?${field}=${id}`,
      field,
    })),
    { route: 'GET /console/try-it', url: `/console/try-it?app=${b.clientId}`, field: 'app' },
    // The JSON APIs' queries: a list filtered by B's object, the event feed after B's event.
    {
      route: 'GET /v1/menu/products',
      url: `/v1/menu/products?category_id=${b.categoryId}`,
      field: 'category_id',
    },
    { route: 'GET /v1/events', url: `/v1/events?after=${b.eventId}`, field: 'after' },
  ];
}

/**
 * The body or query fields of the JSON APIs that name an object: named `…_id` or `…_ids` (an app's own
 * external ids are not ours), or holding UUIDs (lists of them included).
 */
function idFieldsOf(schema: unknown, at = ''): string[] {
  type Node = { properties?: Record<string, Node>; items?: Node; format?: string };
  const holdsIds = (node: Node | undefined): boolean =>
    node?.format === 'uuid' || (node?.items !== undefined && holdsIds(node.items));
  const node = schema as Node | undefined;
  if (!node || typeof node !== 'object') return [];
  const fields = Object.entries(node.properties ?? {}).flatMap(([name, property]) => {
    const path = at ? `${at}.${name}` : name;
    const named = /_ids?$/.test(name) && !name.includes('external');
    return [...(named || holdsIds(property) ? [path] : []), ...idFieldsOf(property, path)];
  });
  return node.items ? [...fields, ...idFieldsOf(node.items, `${at}[]`)] : fields;
}

/**
 * The request with an id that names nothing in place of each of B's ids (the same shape: a UUID
 * for a UUID, the same prefix and length otherwise).
 */
function withNothing(idCase: IdCase): IdCase {
  // Ids only: not dates, nor the storefront's address (A's).
  const ids = Object.entries(idsOf(b))
    .filter(([key, id]) => key !== ':slug' && id.length >= 20)
    .map(([, id]) => id);
  let text = JSON.stringify(idCase);
  for (const id of ids) {
    const nothing = isUuid(id)
      ? randomUUID()
      : `${id.replace(/[^_]*$/, '')}${randomBytes(32).toString('hex')}`.slice(0, id.length);
    text = text.replaceAll(id, nothing);
  }
  return JSON.parse(text);
}

/** The request with A's own object in place of each of B's. */
function withOwn(idCase: IdCase): IdCase {
  const own = idsOf(a);
  let text = JSON.stringify(idCase);
  for (const [key, id] of Object.entries(idsOf(b)))
    if (key !== ':slug' && id.length >= 20) text = text.replaceAll(id, own[key] as string);
  return JSON.parse(text);
}

const isUuid = (value: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);

/**
 * What is wrong with the answer to B's id in a body or query, if anything: it must be the answer
 * to an id that names nothing (status; on the JSON APIs the error's code and param, or the whole
 * answer), a refusal for writes, and name nothing of B's.
 */
function refusalProblem(
  route: Route,
  field: string,
  answer: LightMyRequestResponse,
  nothing: LightMyRequestResponse,
): string | undefined {
  const shown = (response: LightMyRequestResponse) => `${response.statusCode} ${response.body.slice(0, 300)}`;
  if (answer.body.includes(b.name)) return `naming B’s objects: ${shown(answer)}`;
  if (route.method !== 'GET' && answer.statusCode < 400) return `written: ${shown(answer)}`;
  const surface = surfaceOf(route);
  const json = surface === 'v1' || surface?.endsWith(' api');
  // A JSON answer that is not an error must be the same answer (a list filtered by B's object is
  // empty; the feed after B's event starts where an unknown `after` does).
  const seen = (response: LightMyRequestResponse) => {
    if (!json) return { status: response.statusCode };
    const body = response.json();
    if (response.statusCode < 400) return { status: response.statusCode, body };
    return { status: response.statusCode, code: body.error?.code, param: body.error?.param };
  };
  if (JSON.stringify(seen(answer)) !== JSON.stringify(seen(nothing)))
    return `${shown(answer)}, but to an id of nothing: ${shown(nothing)}`;
  // A JSON refusal says it was the id: not found, or the field as its param.
  const error = json && answer.statusCode >= 400 ? answer.json().error : undefined;
  if (
    error &&
    error.code !== 'not_found' &&
    !String(error.param).startsWith(field.split(/[.[]/)[0] as string)
  )
    return `not about ${field}: ${shown(answer)}`;
  return undefined;
}

/**
 * Every row of the tenant's: rows of its restaurants (the live one and the developer's test one),
 * its app, and their webhooks, in every table that names one of them.
 */
async function rowsOf(x: IsolationTenant): Promise<string> {
  const owned: Record<string, string[]> = {
    tenant_id: [x.restaurantId, x.testRestaurantId],
    app_id: [x.appId],
    webhook_id: [x.restaurantWebhookId, x.appWebhookId],
  };
  const { db } = t.database;
  const columns = await sql<{ table_name: string; column_name: string }>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_name IN ('tenant_id', 'app_id', 'webhook_id')
    ORDER BY table_name, column_name`.execute(db);
  const selections = [
    ...columns.rows.map((c) => ({
      table: c.table_name,
      column: c.column_name,
      ids: owned[c.column_name] ?? [],
    })),
    { table: 'restaurants', column: 'id', ids: owned.tenant_id ?? [] },
    { table: 'apps', column: 'id', ids: [x.appId] },
  ];
  const snapshot: Record<string, string[]> = {};
  for (const { table, column, ids } of selections) {
    const rows = await sql<Record<string, unknown>>`
      SELECT * FROM ${sql.table(table)} WHERE ${sql.ref(column)} IN (${sql.join(ids)})`.execute(db);
    snapshot[`${table}.${column}`] = rows.rows
      .map((row) => JSON.stringify(row, (_, value) => (typeof value === 'bigint' ? String(value) : value)))
      .sort();
  }
  return JSON.stringify(snapshot, null, 1);
}

before(async () => {
  imagesDir = mkdtempSync(path.join(tmpdir(), 'servery-isolation-images-'));
  ({ t, routes } = await appWithRoutes({
    images: menuImages({ imagesDir, baseUrl: testBaseUrl }),
  }));
  a = await isolationTenant(t, 'Restaurant A');
  b = await isolationTenant(t, 'Restaurant B');
  const [dashboard, console] = await Promise.all([
    pageSession(t, 'dashboard', a.ownerEmail),
    pageSession(t, 'console', a.developerEmail),
  ]);
  sessions = { dashboard, console };
});
after(async () => {
  await t.close();
  rmSync(imagesDir, { recursive: true, force: true });
});

test('every path parameter of every route has an id of B’s, or the route is listed with its reason', () => {
  const unknown = swept().flatMap((route) =>
    route.params
      .filter((param) => idFor(idsOf(b), route, param) === undefined)
      .map((param) => `${label(route)}: no id for :${param}`),
  );
  assert.deepEqual(unknown, []);
  const surfaceless = swept()
    .filter((route) => surfaceOf(route) === undefined)
    .map(label);
  assert.deepEqual(surfaceless, []);
});

test('the sweep reaches every surface', () => {
  const surfaces = new Set(
    swept()
      .filter((route) => pathsOf(route).length > 0)
      .map(surfaceOf),
  );
  for (const surface of [
    'v1',
    'dashboard api',
    'dashboard page',
    'console api',
    'console page',
    'storefront api',
    'storefront page',
  ])
    assert.ok(surfaces.has(surface as Surface), surface);
});

test('acting as A, B’s ids are not found on every route, and B’s rows stay as they were', async () => {
  const before = await rowsOf(b);
  // The comparison holds B's rows of every kind the routes touch.
  const kept = JSON.parse(before) as Record<string, string[]>;
  for (const rows of [
    'orders',
    'reservations',
    'menu_options',
    'store_tables',
    'event_envelopes',
    'webhook_deliveries',
  ])
    assert.ok(kept[`${rows}.tenant_id`]?.length, rows);
  assert.ok(kept['webhooks.app_id']?.length, 'the app’s webhook');
  const problems: string[] = [];
  let calls = 0;
  for (const [index, route] of swept().entries()) {
    for (const url of pathsOf(route)) {
      calls += 1;
      const problem = notFoundProblem(route, await send(route, url, index));
      if (problem) problems.push(`${route.method} ${url} (${route.url}): ${problem}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(calls > 200, `${calls} calls`);
  assert.equal(await rowsOf(b), before);
});

test('B’s ids in bodies and queries on A’s own objects: answered as ids of nothing, and nothing changes', async () => {
  const cases = idCases();
  const routeOf = (name: string) => routes.find((route) => label(route) === name);
  const listed = new Set(cases.map((idCase) => `${idCase.route} ${idCase.field}`));
  const unlisted = routes
    .filter((route) => surfaceOf(route) !== undefined)
    .flatMap((route) =>
      [...idFieldsOf(route.bodySchema), ...idFieldsOf(route.querySchema)].map(
        (field) => `${label(route)} ${field}`,
      ),
    )
    .filter((place) => !listed.has(place));
  assert.deepEqual(unlisted, [], 'body or query fields that name an object, with no case here');

  const before = [await rowsOf(a), await rowsOf(b)];
  const problems: string[] = [];
  for (const [index, idCase] of cases.entries()) {
    const route = routeOf(idCase.route);
    if (!route) {
      problems.push(`${idCase.route}: no such route`);
      continue;
    }
    const nothing = withNothing(idCase);
    const problem = refusalProblem(
      route,
      idCase.field,
      await send(route, idCase.url, index, idCase.body),
      await send(route, nothing.url, index, nothing.body),
    );
    if (problem) problems.push(`${idCase.route} ${idCase.field}: ${problem}`);
  }
  assert.deepEqual(problems, []);
  assert.deepEqual([await rowsOf(a), await rowsOf(b)], before);

  // A page's refusal does not say which field it was about; with A's own object in B's place, each
  // of those requests is accepted: so it was B's id that was refused.
  const refusedOwn: string[] = [];
  for (const [index, idCase] of cases.entries()) {
    if (!surfaceOf(routeOf(idCase.route) as Route)?.endsWith(' page')) continue;
    const own = withOwn(idCase);
    const answer = await send(routeOf(idCase.route) as Route, own.url, index, own.body);
    if (answer.statusCode >= 400)
      refusedOwn.push(`${idCase.route} ${idCase.field}: ${answer.statusCode} ${answer.body.slice(0, 300)}`);
  }
  assert.deepEqual(refusedOwn, []);
});
