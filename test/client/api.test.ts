import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  createServeryClient,
  dataOf,
  type Order,
  ServeryApiError,
  type ServeryClient,
} from '@servery/client';
import { buildTestApp, makeTenant, type TestApp } from '../harness.ts';
import { type OrderingTenant, orderingTenant, place } from '../orders/order-helpers.ts';

/*
 * The public API as an app sees it through @servery/client: the service listens on a real socket
 * and every request goes over HTTP through the typed client.
 */

let t: TestApp;
let baseUrl: string;
let tenant: OrderingTenant;
let servery: ServeryClient;
before(async () => {
  t = await buildTestApp();
  baseUrl = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/v1`;
  tenant = await orderingTenant(t);
  servery = createServeryClient({ baseUrl, token: tenant.token });
});
after(() => t.close());

/** Expects the call to fail with this API error; returns it. */
async function refused(call: Promise<unknown>, status: number, code: string): Promise<ServeryApiError> {
  const error = await call.then(
    () => assert.fail('the call succeeded'),
    (error: unknown) => error,
  );
  assert.ok(error instanceof ServeryApiError, String(error));
  assert.equal(error.status, status, error.message);
  assert.equal(error.code, code);
  assert.match(error.requestId ?? '', /^req_/);
  return error;
}

describe('reading the restaurant', () => {
  test('GET /me and GET /store answer the connection’s restaurant, typed', async () => {
    const me = await dataOf(servery.GET('/me'));
    assert.equal(me.object, 'connection');
    assert.equal(me.tenant.id, tenant.restaurantId);
    assert.equal(me.id, tenant.connectionId);
    const store = await dataOf(servery.GET('/store'));
    assert.equal(store.object, 'store');
    assert.equal(store.id, tenant.restaurantId);
    assert.equal(store.slug, tenant.slug);
    assert.equal(store.always_open, true);
  });

  test('the token may be a function, asked before every request (for refreshed tokens)', async () => {
    let asked = 0;
    const refreshing = createServeryClient({
      baseUrl,
      token: async () => {
        asked += 1;
        return tenant.token;
      },
    });
    await dataOf(refreshing.GET('/me'));
    await dataOf(refreshing.GET('/me'));
    assert.equal(asked, 2);
  });
});

describe('orders', () => {
  test('lists orders page by page with next_cursor: each placed order once', async () => {
    const placed = new Set<string>();
    for (let i = 0; i < 5; i++) placed.add((await place(t, tenant)).order.id);
    const seen: Order[] = [];
    let cursor: string | undefined;
    for (let pages = 1; ; pages++) {
      const page = await dataOf(servery.GET('/orders', { params: { query: { limit: 2, cursor } } }));
      assert.ok(page.data.length <= 2);
      seen.push(...page.data);
      assert.equal(page.has_more, page.next_cursor !== null);
      if (!page.next_cursor) break;
      assert.ok(pages < 10, 'the pages end');
      cursor = page.next_cursor;
    }
    const ids = seen.map((order) => order.id);
    assert.equal(new Set(ids).size, ids.length, 'no order twice');
    for (const id of placed) assert.ok(ids.includes(id));
  });

  test('accepts an order with an Idempotency-Key; the retry with that key is answered again, not repeated', async () => {
    const { order } = await place(t, tenant);
    assert.equal(order.status, 'pending');
    const key = randomUUID();
    const accept = (prepMinutes: number) =>
      servery.POST('/orders/{id}/accept', {
        params: { path: { id: order.id }, header: { 'Idempotency-Key': key } },
        body: { prep_minutes: prepMinutes },
      });
    const first = await accept(20);
    assert.equal(first.data?.status, 'confirmed');
    assert.equal(first.response.headers.get('idempotent-replayed'), null);
    const retry = await accept(20);
    assert.equal(retry.response.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(retry.data, first.data);

    // The same key for another request is refused, and changes nothing.
    await refused(accept(30), 422, 'idempotency_key_reused');
    const now = await dataOf(servery.GET('/orders/{id}', { params: { path: { id: order.id } } }));
    assert.equal(now.estimated_ready_at, first.data?.estimated_ready_at);
  });

  test('a move the order cannot make is ServeryApiError invalid_transition, and changes nothing', async () => {
    const { order } = await place(t, tenant);
    await dataOf(
      servery.POST('/orders/{id}/cancel', {
        params: { path: { id: order.id } },
        body: { reason: 'No dough' },
      }),
    );
    await refused(
      servery.POST('/orders/{id}/accept', { params: { path: { id: order.id } }, body: {} }),
      409,
      'invalid_transition',
    );
    const now = await dataOf(servery.GET('/orders/{id}', { params: { path: { id: order.id } } }));
    assert.equal(now.status, 'cancelled');
  });
});

describe('errors', () => {
  test('a bad parameter is ServeryApiError invalid_request with param, status and request id', async () => {
    const error = await refused(
      servery.GET('/orders', { params: { query: { limit: 500 } } }),
      400,
      'invalid_request',
    );
    assert.equal(error.param, 'limit');
    assert.ok(error.message.length > 0);
    assert.equal(error.retryAfter, null);
  });

  test('another restaurant’s order is not_found; a bad token unauthorized', async () => {
    const other = await orderingTenant(t);
    const { order } = await place(t, other);
    const error = await refused(
      servery.GET('/orders/{id}', { params: { path: { id: order.id } } }),
      404,
      'not_found',
    );
    assert.equal(error.param, null);
    const stranger = createServeryClient({ baseUrl, token: 'svc_at_not-a-token' });
    await refused(stranger.GET('/me'), 401, 'unauthorized');
  });

  test('an error answer that is not the API’s (a proxy’s 502) is ServeryApiError without code', async () => {
    const behindProxy = createServeryClient({
      baseUrl,
      token: tenant.token,
      fetch: async () => new Response('<h1>Bad gateway</h1>', { status: 502, statusText: 'Bad Gateway' }),
    });
    const error = await behindProxy.GET('/me').catch((error: unknown) => error);
    assert.ok(error instanceof ServeryApiError);
    assert.equal(error.status, 502);
    assert.equal(error.code, null);
    assert.equal(error.requestId, null);
    assert.equal(error.message, 'HTTP 502 Bad Gateway');
  });

  test('a missing scope is insufficient_scope', async () => {
    const menuOnly = await makeTenant(t.ctx, { scopes: ['menu:read'] });
    const client = createServeryClient({ baseUrl, token: menuOnly.token });
    await refused(client.GET('/orders'), 403, 'insufficient_scope');
  });
});
