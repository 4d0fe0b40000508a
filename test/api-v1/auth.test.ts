import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Type from 'typebox';
import { setAppStatus } from '../../src/domain/apps/apps.service.ts';
import { setSubscriptionActive } from '../../src/domain/restaurants/restaurants.service.ts';
import { features, requireFeature } from '../../src/domain/shared/plans.ts';
import type { Scope } from '../../src/domain/shared/scopes.ts';
import { type ApiRoute, apiRoute } from '../../src/http/api-v1/api-route.ts';
import { errorResponses } from '../../src/http/api-v1/error-responses.ts';
import { apiV1Routes } from '../../src/http/api-v1/routes.ts';
import { bearer, buildTestApp, makeTenant, type TestApp, tokenFor } from '../harness.ts';

/*
 * The authentication checks of the spec, run over EVERY /v1 operation in the public list, so
 * each operation added later is covered by being added. Two operations of this test's own show
 * the plan checks, which no public operation of the foundation has yet.
 */
const okSchema = Type.Object({ ok: Type.Boolean() }, { description: 'Done.' });
const planRoutes = [
  apiRoute({
    method: 'GET',
    url: '/test/pro-feature',
    auth: { scopes: ['reservations:read'], feature: 'reservations' },
    schema: {
      operationId: 'testPro',
      summary: 'pro only',
      tags: ['Test'],
      response: { 200: okSchema, ...errorResponses(400, 401, 403, 429, 500) },
    },
    handler: async () => ({ ok: true }),
  }),
  apiRoute({
    method: 'POST',
    url: '/test/order-types',
    auth: { scopes: ['store:write'] },
    schema: {
      operationId: 'testOrderTypes',
      summary: 'dine_in needs pro',
      tags: ['Test'],
      body: Type.Object({ dine_in: Type.Boolean() }, { additionalProperties: false }),
      response: { 200: okSchema, ...errorResponses(400, 401, 403, 409, 413, 422, 429, 500) },
    },
    handler: async (_ctx, request, auth) => {
      if (request.body.dine_in) requireFeature(auth.plan, 'dine_in', 'order_types.dine_in');
      return { ok: true };
    },
  }),
];
const allRoutes: readonly ApiRoute[] = [...apiV1Routes, ...planRoutes];

let t: TestApp;
before(async () => {
  t = await buildTestApp({ extraApiRoutes: planRoutes });
});
after(() => t.close());

/** A valid body for each operation that takes one (the unknown-field check adds a field to it). */
const sampleBodies: Record<string, object> = {
  testOrderTypes: { dine_in: false },
  putClosure: { date: '2026-12-24', closed: true },
  createCategory: { name: 'Pizza' },
  createProduct: { name: 'Margherita', price: 950 },
  createOptionGroup: { name: 'Extras' },
  createOption: { name: 'Extra cheese', price_delta: 150 },
  syncMenu: { mode: 'merge' },
  updateAvailability: { entries: [] },
  createReservation: { starts_at: '2026-11-03T17:00:00Z', party_size: 2, guest_name: 'Ada' },
  updateReservation: { status: 'seated' },
};
/** The query parameters an operation requires (the unknown-parameter check adds one to them). */
const sampleQueries: Record<string, string> = {
  getReservationAvailability: 'date=2026-11-03&party_size=2',
  getSalesReport: 'from=2026-11-01&to=2026-11-30',
  getProductReport: 'from=2026-11-01&to=2026-11-30',
};
const sampleBody = (route: ApiRoute) =>
  route.schema.body === undefined ? undefined : (sampleBodies[route.schema.operationId] ?? {});
/** A well-formed value for each path parameter: a date for `:date`, else an unknown uuid. */
const pathOf = (route: ApiRoute) =>
  route.url.replace(/:([a-z_]+)/g, (_, name: string) => (name === 'date' ? '2026-12-24' : randomUUID()));

function call(
  route: ApiRoute,
  headers: Record<string, string>,
  options: { query?: string; body?: object } = {},
) {
  const query = [sampleQueries[route.schema.operationId], options.query?.replace(/^\?/, '')]
    .filter(Boolean)
    .join('&');
  const url = `/v1${pathOf(route)}${query ? `?${query}` : ''}`;
  const body = options.body ?? sampleBody(route);
  // An address per operation: each stays within the per-address limit of requests without a valid token.
  const index = allRoutes.indexOf(route);
  return t.app.inject({
    method: route.method,
    url,
    remoteAddress: `10.0.${index >> 8}.${index & 255}`,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

function assertUnauthorized(res: Awaited<ReturnType<typeof call>>, what: string) {
  assert.equal(res.statusCode, 401, `${what}: ${res.body}`);
  assert.equal(res.json().error.code, 'unauthorized', what);
  assert.match(String(res.headers['www-authenticate']), /^Bearer realm="servery"/, what);
}

describe('every /v1 operation', () => {
  for (const route of allRoutes) {
    const name = `${route.method} ${route.url}`;

    test(`${name}: a missing, malformed or unknown token → 401 unauthorized with WWW-Authenticate`, async () => {
      assertUnauthorized(await call(route, {}), 'no header');
      for (const header of [
        'Basic dXNlcjpwYXNz',
        'Bearer',
        'Bearer ',
        'bearer svc_at_x',
        'Bearer svc_at_short',
        `Bearer svc_rt_${'a'.repeat(43)}`,
        `Bearer svc_at_${'a'.repeat(43)}`,
      ]) {
        assertUnauthorized(await call(route, { authorization: header }), header);
      }
      const res = await call(route, { authorization: `Bearer svc_at_${'a'.repeat(43)}` });
      assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/);
    });

    test(`${name}: an expired or revoked token, an ended connection, a suspended app → 401`, async () => {
      const tenant = await makeTenant(t.ctx);
      const expiring = await tokenFor(t.ctx, tenant, ['store:read']);
      t.clock.advance(3600 * 1000);
      assertUnauthorized(await call(route, bearer(expiring)), 'expired');
      t.clock.advance(-3600 * 1000);

      const revoked = await tokenFor(t.ctx, tenant, ['store:read']);
      await t.database.db
        .updateTable('access_tokens')
        .set({ revoked_at: t.clock.now() })
        .where('connection_id', '=', tenant.connectionId)
        .execute();
      assertUnauthorized(await call(route, bearer(revoked)), 'revoked');

      const ended = await makeTenant(t.ctx);
      await t.database.db
        .updateTable('connections')
        .set({ ended_at: t.clock.now() })
        .where('id', '=', ended.connectionId)
        .execute();
      assertUnauthorized(await call(route, bearer(ended.token)), 'connection ended');

      const suspended = await makeTenant(t.ctx);
      await setAppStatus(t.ctx, suspended.clientId, 'suspended');
      assertUnauthorized(await call(route, bearer(suspended.token)), 'app suspended');
    });

    test(`${name}: an inactive subscription → ${route.auth.whenInactive ? 'still served' : '403 account_inactive'}`, async () => {
      const tenant = await makeTenant(t.ctx, { plan: 'premium' });
      await setSubscriptionActive(t.ctx, tenant.restaurantId, false);
      const res = await call(route, bearer(tenant.token));
      if (route.auth.whenInactive) {
        assert.ok(res.statusCode < 400, `${res.statusCode} ${res.body}`);
      } else {
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json().error.code, 'account_inactive');
      }
      assert.equal(res.headers['ratelimit-remaining'], '119');
    });

    test(`${name}: a connection past its 120 requests in the window → 429 rate_limited with Retry-After`, async () => {
      const tenant = await makeTenant(t.ctx, { plan: 'premium' });
      const me = { method: 'GET', url: '/v1/me', headers: bearer(tenant.token) } as const;
      await Promise.all(Array.from({ length: 120 }, () => t.app.inject(me)));
      const res = await call(route, bearer(tenant.token));
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(res.json().error.code, 'rate_limited');
      assert.equal(res.headers['retry-after'], res.headers['ratelimit-reset']);
    });

    test(`${name}: an unknown query parameter or body field → 400 invalid_request naming it`, async () => {
      const tenant = await makeTenant(t.ctx, { plan: 'premium' });
      const query = await call(route, bearer(tenant.token), { query: '?unknown_param=1' });
      assert.equal(query.statusCode, 400, query.body);
      assert.equal(query.json().error.code, 'invalid_request');
      assert.equal(query.json().error.param, 'unknown_param');
      if (route.method !== 'GET') {
        const body = await call(route, bearer(tenant.token), {
          body: { ...sampleBody(route), unknown_field: 1 },
        });
        assert.equal(body.statusCode, 400, body.body);
        assert.equal(body.json().error.param, 'unknown_field');
      }
    });

    if (route.auth.scopes.length > 0) {
      test(`${name}: without ${route.auth.scopes.join(' or ')} → 403 insufficient_scope naming it`, async () => {
        const tenant = await makeTenant(t.ctx, { plan: 'premium' });
        const others = (
          [
            'orders:read',
            'menu:read',
            'store:read',
            'store:write',
            'reservations:read',
            'reports:read',
          ] as Scope[]
        ).filter((scope) => !route.auth.scopes.includes(scope));
        const res = await call(route, bearer(await tokenFor(t.ctx, tenant, others)));
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json().error.code, 'insufficient_scope');
        assert.equal(
          res.headers['www-authenticate'],
          `Bearer realm="servery", error="insufficient_scope", scope="${route.auth.scopes.join(' ')}"`,
        );
        for (const scope of route.auth.scopes) {
          const allowed = await call(route, bearer(await tokenFor(t.ctx, tenant, [scope])));
          assert.notEqual(allowed.statusCode, 403, `${scope}: ${allowed.body}`);
        }
      });
    }

    if (route.auth.feature) {
      const { plans } = features[route.auth.feature];
      test(`${name}: a plan other than ${plans.join(', ')} → 403 plan_required`, async () => {
        const starter = await makeTenant(t.ctx, { plan: 'starter' });
        const res = await call(route, bearer(starter.token));
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json().error.code, 'plan_required');
        const pro = await makeTenant(t.ctx, { plan: 'pro' });
        // Past the plan check: served, or refused for what the request names (an unknown id is 404,
        // a time the fresh restaurant does not offer 409), never 403.
        const allowed = await call(route, bearer(pro.token));
        assert.ok(allowed.statusCode < 400 || [404, 409].includes(allowed.statusCode), allowed.body);
      });
    }
  }
});

test('the plan helper answers plan_required with the param that asked for the feature', async () => {
  const starter = await makeTenant(t.ctx, { plan: 'starter' });
  const send = (tenantToken: string, dineIn: boolean) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/test/order-types',
      headers: { ...bearer(tenantToken), 'content-type': 'application/json' },
      payload: JSON.stringify({ dine_in: dineIn }),
    });
  const refused = await send(starter.token, true);
  assert.equal(refused.statusCode, 403);
  assert.deepEqual(
    { ...refused.json().error, message: undefined, request_id: undefined },
    {
      code: 'plan_required',
      param: 'order_types.dine_in',
      message: undefined,
      request_id: undefined,
    },
  );
  assert.equal((await send(starter.token, false)).statusCode, 200);
});
