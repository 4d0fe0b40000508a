import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp, testBaseUrl } from '../harness.ts';

/*
 * The app host's earlier address forms (spec change history 2026-10-05), on one server answering
 * two host names: the API host (testBaseUrl) and the app host (APP_URL).
 */
const apiHost = new URL(testBaseUrl).host;
const appHost = 'app.servery.test:8443';
const metadataPath = '/.well-known/oauth-authorization-server';

/** The headers of an answer but those that differ from request to request. */
/** The headers but those that move between two requests (the seconds to a new window too, on a slow machine). */
function steadyHeaders(res: LightMyRequestResponse): Record<string, unknown> {
  const {
    date: _date,
    'x-request-id': _id,
    'ratelimit-remaining': _remaining,
    'ratelimit-reset': _reset,
    ...rest
  } = res.headers;
  return rest;
}

function assertApiError(res: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().error.code, code);
  assert.equal(res.json().error.request_id, res.headers['x-request-id']);
  assert.equal(res.headers['service-api-version'], '2026-10-08');
}

describe('with a separate app host', () => {
  let t: TestApp;
  let tenant: Tenant;
  before(async () => {
    t = await buildTestApp({ appUrl: `https://${appHost}` });
    tenant = await makeTenant(t.ctx);
  });
  after(() => t.close());

  test('{app}/api/v1/me answers the connection exactly as {base_url}/v1/me', async () => {
    const old = await t.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: { host: appHost, ...bearer(tenant.token) },
    });
    const current = await t.app.inject({
      method: 'GET',
      url: '/v1/me',
      headers: { host: apiHost, ...bearer(tenant.token) },
    });
    assert.equal(old.statusCode, 200, old.body);
    assert.equal(old.body, current.body);
    assert.deepEqual(steadyHeaders(old), steadyHeaders(current));
    assert.match(String(old.headers['ratelimit-reset']), /^\d+$/);
    assert.match(String(old.headers['x-request-id']), /^req_[0-9a-f]{24}$/);
    assert.equal(old.headers['service-api-version'], '2026-10-08');
  });

  test('errors there are the API’s: 401, 404 and 405 with the error body', async () => {
    const unauthenticated = await t.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: { host: appHost },
    });
    assertApiError(unauthenticated, 401, 'unauthorized');
    assert.equal(unauthenticated.headers['www-authenticate'], 'Bearer realm="servery"');
    const unknown = await t.app.inject({ method: 'GET', url: '/api/v1/nothing', headers: { host: appHost } });
    assertApiError(unknown, 404, 'not_found');
    const wrongMethod = await t.app.inject({ method: 'PUT', url: '/api/v1/me', headers: { host: appHost } });
    assertApiError(wrongMethod, 405, 'method_not_allowed');
  });

  test('an Idempotency-Key used at the earlier address and then at /v1 is one effect, replayed', async () => {
    const request = {
      method: 'POST' as const,
      payload: { note: 'Moving' },
      headers: { ...bearer(tenant.token), 'idempotency-key': 'earlier-address-pause' },
    };
    const first = await t.app.inject({
      ...request,
      url: '/api/v1/store/pause',
      headers: { ...request.headers, host: appHost },
    });
    const again = await t.app.inject({
      ...request,
      url: '/v1/store/pause',
      headers: { ...request.headers, host: apiHost },
    });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().status, 'paused');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    const paused = await t.database.db
      .selectFrom('events')
      .select('id')
      .where('tenant_id', '=', tenant.restaurantId)
      .where('type', '=', 'store.paused')
      .execute();
    assert.equal(paused.length, 1);
  });

  test('the OpenAPI document at the earlier address names the API host as its server', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/openapi.json',
      headers: { host: appHost },
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      res.json().servers.map((server: { url: string }) => server.url),
      [`${testBaseUrl}/v1`],
    );
  });

  test('{app}’s metadata address redirects permanently to the API host’s', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await t.app.inject({ method, url: metadataPath, headers: { host: appHost } });
      assert.equal(res.statusCode, 308);
      assert.equal(res.headers.location, `${testBaseUrl}${metadataPath}`);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.match(String(res.headers['x-request-id']), /^req_[0-9a-f]{24}$/);
      assert.equal(res.headers['service-api-version'], '2026-10-08');
    }
    const metadata = await t.app.inject({ method: 'GET', url: metadataPath, headers: { host: apiHost } });
    assert.equal(metadata.statusCode, 200);
    assert.equal(metadata.json().issuer, testBaseUrl);
  });

  test('the API host, and any other, does not answer /api/v1/...', async () => {
    for (const host of [apiHost, 'app.servery.test', 'elsewhere.test']) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v1/me',
        headers: { host, ...bearer(tenant.token) },
      });
      assertApiError(res, 404, 'not_found');
    }
  });
});

describe('with one host (APP_URL = BASE_URL)', () => {
  let t: TestApp;
  let tenant: Tenant;
  before(async () => {
    t = await buildTestApp();
    tenant = await makeTenant(t.ctx);
  });
  after(() => t.close());

  test('/api/v1/... is unknown and the metadata answers in place', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: { host: apiHost, ...bearer(tenant.token) },
    });
    assertApiError(res, 404, 'not_found');
    const metadata = await t.app.inject({ method: 'GET', url: metadataPath, headers: { host: apiHost } });
    assert.equal(metadata.statusCode, 200);
  });
});
