import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Type from 'typebox';
import { Timestamp } from '../../src/domain/shared/common.schema.ts';
import { ApiError, type ErrorCode, errorStatus } from '../../src/domain/shared/errors.ts';
import { apiRoute } from '../../src/http/api-v1/api-route.ts';
import { errorResponses } from '../../src/http/api-v1/error-responses.ts';
import { CursorParam, LimitParam, ListOf, pagePosition, toPage } from '../../src/http/shared/pagination.ts';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp } from '../harness.ts';

// Operations that exist only in this test, to exercise the conventions every /v1 operation shares.
const items = Array.from({ length: 60 }, (_, i) => ({ n: i, kind: i % 2 === 0 ? 'even' : 'odd' }));
const Item = Type.Object({ n: Type.Integer(), kind: Type.String() });
const tags = ['Test'];
const conventionRoutes = [
  apiRoute({
    method: 'GET',
    url: '/test/items',
    auth: { scopes: [] },
    schema: {
      operationId: 'testItems',
      summary: 'paged list',
      tags,
      querystring: Type.Object(
        {
          kind: Type.Optional(Type.String()),
          since: Type.Optional(Type.String({ format: 'date-time' })),
          limit: LimitParam,
          cursor: Type.Optional(CursorParam),
        },
        { additionalProperties: false },
      ),
      response: {
        200: { ...ListOf(Item), description: 'A page.' },
        ...errorResponses(400, 401, 403, 429, 500),
      },
    },
    handler: async (_ctx, request) => {
      const query = request.query as typeof request.query & { limit: number };
      const after = pagePosition<number>(query) ?? -1;
      const kinds = query.kind?.split(',');
      const rows = items.filter((item) => item.n > after && (!kinds || kinds.includes(item.kind)));
      return toPage(rows.slice(0, query.limit + 1), query, (last) => last.n);
    },
  }),
  apiRoute({
    method: 'POST',
    url: '/test/echo',
    auth: { scopes: [] },
    schema: {
      operationId: 'testEcho',
      summary: 'echo',
      tags,
      body: Type.Object(
        {
          at: Type.Optional(Timestamp),
          note: Type.Optional(Type.String()),
          products: Type.Optional(
            Type.Array(
              Type.Object({ name: Type.String(), price: Type.Integer() }, { additionalProperties: false }),
            ),
          ),
        },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object(
          { at: Type.Union([Timestamp, Type.Null()]), count: Type.Integer() },
          { description: 'What was sent.' },
        ),
        ...errorResponses(400, 401, 403, 409, 413, 422, 429, 500),
      },
    },
    handler: async (_ctx, request) => ({
      at: request.body.at ? new Date(request.body.at) : null,
      count: request.body.products?.length ?? 0,
    }),
  }),
  apiRoute({
    method: 'GET',
    url: '/test/errors/:code',
    auth: { scopes: [] },
    schema: {
      operationId: 'testError',
      summary: 'throws',
      tags,
      params: Type.Object({ code: Type.String() }),
      response: errorResponses(...new Set(Object.values(errorStatus))),
    },
    handler: async (_ctx, request) => {
      const { code } = request.params;
      if (code === 'crash') throw new Error('connection to 10.0.0.7 refused; password=hunter2');
      throw new ApiError(code as ErrorCode, `test ${code}`);
    },
  }),
];

let t: TestApp;
let tenant: Tenant;
before(async () => {
  t = await buildTestApp({ extraApiRoutes: conventionRoutes });
  tenant = await makeTenant(t.ctx);
});
after(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: bearer(tenant.token) });
const post = (url: string, payload: string | object, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { ...bearer(tenant.token), 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

function assertError(
  res: { statusCode: number; body: string; headers: Record<string, unknown> },
  status: number,
  code: string,
  param?: string,
) {
  assert.equal(res.statusCode, status, `status of ${res.body}`);
  const body = JSON.parse(res.body) as {
    error: { code: string; message: string; request_id: string; param?: string };
  };
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.match(body.error.request_id, /^req_[0-9a-f]{24}$/);
  assert.equal(body.error.request_id, res.headers['x-request-id']);
  assert.equal(body.error.param, param);
}

describe('errors', () => {
  test('every code of the closed list answers with its status, in the one shape', async () => {
    assert.equal(Object.keys(errorStatus).length, 18);
    for (const [code, status] of Object.entries(errorStatus)) {
      const url = `/v1/test/errors/${code}`;
      // A 401 answers a request without a valid token (one with a valid token would carry
      // RateLimit headers, which no 401 of the API has).
      assertError(await (code === 'unauthorized' ? t.app.inject({ url }) : get(url)), status, code);
    }
  });

  test('a fault of ours is a 500 server_error that leaks nothing', async () => {
    const res = await get('/v1/test/errors/crash');
    assertError(res, 500, 'server_error');
    assert.doesNotMatch(res.body, /10\.0\.0\.7|hunter2|Error|at /);
  });

  test('unknown path → 404 not_found; known path, wrong method → 405 method_not_allowed', async () => {
    assertError(await get('/v1/no/such/thing'), 404, 'not_found');
    const res = await t.app.inject({ method: 'PUT', url: '/v1/me', headers: bearer(tenant.token) });
    assertError(res, 405, 'method_not_allowed');
    assert.match(String(res.headers.allow), /GET/);
    assertError(await t.app.inject({ method: 'POST', url: '/v1/connection' }), 405, 'method_not_allowed');
  });
});

describe('headers of every response', () => {
  test('X-Request-Id (req_…) and Service-Api-Version, on success, errors and unknown paths', async () => {
    for (const res of [
      await get('/v1/me'),
      await get('/v1/nope'),
      await t.app.inject({ url: '/v1/me' }),
      await t.app.inject({ url: '/health' }),
    ]) {
      assert.match(String(res.headers['x-request-id']), /^req_[0-9a-f]{24}$/);
      assert.equal(res.headers['service-api-version'], '2026-10-08');
    }
    const a = await get('/v1/me');
    const b = await get('/v1/me');
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });
});

describe('unknown input', () => {
  test('an unknown query parameter → 400 with param, on every kind of operation', async () => {
    assertError(await get('/v1/me?expand=app'), 400, 'invalid_request', 'expand');
    assertError(await get('/v1/test/items?limit=5&colour=red'), 400, 'invalid_request', 'colour');
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/v1/connection?force=1',
      headers: bearer(tenant.token),
    });
    assertError(res, 400, 'invalid_request', 'force');
  });

  test('an unknown body field → 400 with param, nested as products[3].price', async () => {
    assertError(await post('/v1/test/echo', { colour: 'red' }), 400, 'invalid_request', 'colour');
    const products = [0, 1, 2, 3].map((i) => ({ name: `p${i}`, price: 100 }));
    (products[3] as Record<string, unknown>).prize = 1;
    assertError(await post('/v1/test/echo', { products }), 400, 'invalid_request', 'products[3].prize');
  });

  test('a wrong value or missing field names its path; values are never coerced in bodies', async () => {
    const products = [0, 1, 2, 3].map((i) => ({ name: `p${i}`, price: 100 }));
    (products[3] as Record<string, unknown>).price = '100';
    assertError(await post('/v1/test/echo', { products }), 400, 'invalid_request', 'products[3].price');
    assertError(
      await post('/v1/test/echo', { products: [{ name: 'x' }] }),
      400,
      'invalid_request',
      'products[0].price',
    );
  });

  test('a body sent to an operation without one → 400', async () => {
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/v1/connection',
      headers: { ...bearer(tenant.token), 'content-type': 'application/json' },
      payload: '{"reason":"x"}',
    });
    assertError(res, 400, 'invalid_request', 'reason');
  });

  test('invalid JSON, a non-object body and a wrong content type → 400 invalid_request', async () => {
    assertError(await post('/v1/test/echo', '{"note": '), 400, 'invalid_request');
    assertError(await post('/v1/test/echo', '[1,2]'), 400, 'invalid_request');
    assertError(
      await post('/v1/test/echo', 'note=x', { 'content-type': 'application/x-www-form-urlencoded' }),
      400,
      'invalid_request',
    );
    assertError(
      await post('/v1/test/echo', '{"note":"x"}', { 'content-type': 'text/plain' }),
      400,
      'invalid_request',
    );
  });
});

describe('timestamps', () => {
  test('responses are ISO 8601 UTC with Z and milliseconds', async () => {
    const res = await post('/v1/test/echo', { at: '2026-11-02T12:30:00+02:00' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().at, '2026-11-02T10:30:00.000Z');
  });

  test('request timestamps without Z or an offset → 400 with param', async () => {
    assertError(await post('/v1/test/echo', { at: '2026-11-02T12:30:00' }), 400, 'invalid_request', 'at');
    assertError(await post('/v1/test/echo', { at: '2026-11-02' }), 400, 'invalid_request', 'at');
    assertError(await get('/v1/test/items?since=2026-11-02T12:30:00'), 400, 'invalid_request', 'since');
  });

  test('in a query string an offset may be written %2B or as an unencoded +', async () => {
    for (const since of [
      '2026-11-02T12:30:00%2B02:00',
      '2026-11-02T12:30:00+02:00',
      '2026-11-02T12:30:00.123+0530',
      '2026-11-02T12:30:00Z',
    ]) {
      const res = await get(`/v1/test/items?since=${since}`);
      assert.equal(res.statusCode, 200, `${since}: ${res.body}`);
    }
  });
});

describe('lists', () => {
  test('the envelope, limit 25 by default, and cursors through to the last page', async () => {
    const first = await get('/v1/test/items');
    assert.equal(first.statusCode, 200);
    const page = first.json();
    assert.deepEqual(Object.keys(page), ['object', 'data', 'has_more', 'next_cursor']);
    assert.equal(page.object, 'list');
    assert.equal(page.data.length, 25);
    assert.equal(page.has_more, true);
    const seen = [...page.data];
    let cursor = page.next_cursor;
    while (cursor) {
      const next = (await get(`/v1/test/items?cursor=${cursor}`)).json();
      seen.push(...next.data);
      cursor = next.next_cursor;
      if (!next.has_more) assert.equal(next.next_cursor, null);
    }
    assert.deepEqual(
      seen.map((item) => item.n),
      items.map((item) => item.n),
    );
  });

  test('limit is 1 to 100', async () => {
    assert.equal((await get('/v1/test/items?limit=1')).json().data.length, 1);
    assert.equal((await get('/v1/test/items?limit=100')).json().data.length, 60);
    assertError(await get('/v1/test/items?limit=0'), 400, 'invalid_request', 'limit');
    assertError(await get('/v1/test/items?limit=101'), 400, 'invalid_request', 'limit');
    assertError(await get('/v1/test/items?limit=ten'), 400, 'invalid_request', 'limit');
  });

  test('a cursor is bound to its filters and opaque', async () => {
    const page = (await get('/v1/test/items?kind=even&limit=5')).json();
    assert.deepEqual(
      page.data.map((item: { n: number }) => item.n),
      [0, 2, 4, 6, 8],
    );
    const next = await get(`/v1/test/items?kind=even&limit=7&cursor=${page.next_cursor}`);
    assert.equal(next.statusCode, 200);
    assert.deepEqual(
      next.json().data.map((item: { n: number }) => item.n),
      [10, 12, 14, 16, 18, 20, 22],
    );
    assertError(
      await get(`/v1/test/items?kind=odd&limit=5&cursor=${page.next_cursor}`),
      400,
      'invalid_request',
      'cursor',
    );
    assertError(
      await get(`/v1/test/items?limit=5&cursor=${page.next_cursor}`),
      400,
      'invalid_request',
      'cursor',
    );
    assertError(await get('/v1/test/items?cursor=not-a-cursor'), 400, 'invalid_request', 'cursor');
  });

  test('a repeated parameter is refused: lists are comma-separated', async () => {
    assertError(await get('/v1/test/items?kind=even&kind=odd'), 400, 'invalid_request', 'kind');
  });
});

describe('body size', () => {
  test('bodies over 64 KB → 413 payload_too_large, counted in bytes', async () => {
    const envelope = '{"note":""}'.length;
    const fits = 'a'.repeat(64 * 1024 - envelope);
    assert.equal((await post('/v1/test/echo', { note: fits })).statusCode, 200);
    assertError(await post('/v1/test/echo', { note: `${fits}a` }), 413, 'payload_too_large');
    // 'ü' is two bytes in UTF-8: half as many characters already fill the 64 KB.
    const umlauts = 'ü'.repeat((64 * 1024 - envelope) / 2);
    assert.equal((await post('/v1/test/echo', { note: umlauts })).statusCode, 200);
    assertError(await post('/v1/test/echo', { note: `${umlauts}ü` }), 413, 'payload_too_large');
  });
});
