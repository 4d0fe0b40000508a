import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildTestApp, type TestApp, testBaseUrl } from '../harness.ts';
import { corsHeaders } from './oauth-helpers.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

test('the metadata document lists every field of the spec, with the API’s base URL as issuer', async () => {
  const res = await t.app.inject({ url: '/.well-known/oauth-authorization-server' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const methods = ['client_secret_basic', 'client_secret_post', 'none'];
  assert.deepEqual(res.json(), {
    issuer: testBaseUrl,
    authorization_endpoint: `${testBaseUrl}/oauth/authorize`,
    token_endpoint: `${testBaseUrl}/oauth/token`,
    revocation_endpoint: `${testBaseUrl}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: methods,
    revocation_endpoint_auth_methods_supported: methods,
    scopes_supported: [
      'orders:read',
      'orders:write',
      'menu:read',
      'menu:write',
      'store:read',
      'store:write',
      'reservations:read',
      'reservations:write',
      'reports:read',
    ],
    authorization_response_iss_parameter_supported: true,
    ui_locales_supported: ['de', 'en', 'fr', 'es', 'it'],
    service_documentation: `${testBaseUrl}/v1/openapi.json`,
  });
  const docs = await t.app.inject({ url: '/v1/openapi.json' });
  assert.equal(docs.statusCode, 200);
});

test('browsers may read the metadata (Access-Control-Allow-Origin: *), and only the metadata', async () => {
  const res = await t.app.inject({
    url: '/.well-known/oauth-authorization-server',
    headers: { origin: 'https://app.example' },
  });
  assert.equal(res.headers['access-control-allow-origin'], '*');
  const token = await t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { origin: 'https://app.example', 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=refresh_token',
  });
  assert.deepEqual(corsHeaders(token), []);
});
