import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { buildTestApp, type TestApp, testBaseUrl } from '../harness.ts';
import { Browser, decide, makeAccount, makeApp, makeRestaurant, signIn } from './consent-helpers.ts';

/*
 * The whole flow driven by an independent client library (oauth4webapi): discovery, PKCE, the
 * consent page, the callback's checks (state, iss), the code grant, refresh, revocation, and
 * what must fail. Its requests go to the service through app.inject (its customFetch hook), so
 * the issuer is the service's configured base URL; http is allowed for that local test server.
 */
let t: TestApp;
let as: oauth.AuthorizationServer;
let owner: { id: string; email: string };
let restaurantId: string;
let confidential: { client: oauth.Client; auth: oauth.ClientAuth };
let publicApp: { client: oauth.Client; auth: oauth.ClientAuth };
const redirectUri = 'https://app.example.test/callback';
const loopback = 'http://127.0.0.1:8765/callback';

const viaService: oauth.HttpRequestOptions<'GET' | 'POST', unknown> = {
  [oauth.allowInsecureRequests]: true,
  [oauth.customFetch]: async (url, options) => {
    const target = new URL(url);
    const res = await t.app.inject({
      method: options.method as 'GET' | 'POST',
      url: `${target.pathname}${target.search}`,
      headers: options.headers,
      ...(options.body === undefined || options.body === null ? {} : { payload: String(options.body) }),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      for (const one of ([] as unknown[]).concat(value)) headers.append(name, String(one));
    }
    const body = res.statusCode === 204 ? null : new Uint8Array(res.rawPayload);
    return new Response(body, { status: res.statusCode, headers });
  },
};

before(async () => {
  t = await buildTestApp();
  const issuer = new URL(testBaseUrl);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...viaService }),
  );
  owner = await makeAccount(t.ctx);
  restaurantId = (await makeRestaurant(t.ctx, [owner.id])).id;
  const developer = await makeAccount(t.ctx, { developer: true });
  const scopes = ['orders:read', 'menu:read', 'store:read'] as const;
  const app = await makeApp(t.ctx, developer.id, { redirectUris: [redirectUri], scopes });
  confidential = {
    client: { client_id: app.clientId },
    auth: oauth.ClientSecretBasic(app.clientSecret as string),
  };
  const pub = await makeApp(t.ctx, developer.id, {
    type: 'public',
    redirectUris: ['http://127.0.0.1/callback'],
    scopes,
  });
  publicApp = { client: { client_id: pub.clientId }, auth: oauth.None() };
});
after(() => t.close());

/** The browser part: the authorization URL from the metadata, signed in and Connect pressed; the callback URL. */
async function authorize(
  client: oauth.Client,
  options: {
    state: string;
    challenge: string;
    redirect?: string;
    scope?: string;
    decision?: 'connect' | 'cancel';
  },
): Promise<URL> {
  const url = new URL(as.authorization_endpoint as string);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', options.redirect ?? redirectUri);
  url.searchParams.set('state', options.state);
  url.searchParams.set('code_challenge', options.challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  if (options.scope) url.searchParams.set('scope', options.scope);
  assert.equal(url.origin, testBaseUrl);
  const query = url.search.slice(1);
  const browser = new Browser(t.app);
  const signedIn = await signIn(browser, query, owner.email);
  assert.equal(signedIn.statusCode, 303);
  const res = await decide(browser, query, options.decision ?? 'connect', restaurantId);
  assert.equal(res.statusCode, 303, res.body);
  return new URL(String(res.headers.location));
}

async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

/** A code grant up to its tokens: authorize, check the callback, exchange. */
async function connect(app = confidential, redirect = redirectUri): Promise<oauth.TokenEndpointResponse> {
  const { verifier, challenge } = await pkcePair();
  const state = oauth.generateRandomState();
  const callback = await authorize(app.client, { state, challenge, redirect });
  const params = oauth.validateAuthResponse(as, app.client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    app.client,
    app.auth,
    params,
    redirect,
    verifier,
    viaService,
  );
  return oauth.processAuthorizationCodeResponse(as, app.client, response);
}

async function meStatus(accessToken: string): Promise<number> {
  const res = await t.app.inject({ url: '/v1/me', headers: { authorization: `Bearer ${accessToken}` } });
  return res.statusCode;
}

/** The OAuth error a token or revocation response carries (oauth4webapi throws ResponseBodyError). */
async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return error.error;
    throw error;
  }
  assert.fail('expected the server to refuse');
}

test('metadata: the issuer is the base URL, the authorization endpoint the consent page', () => {
  assert.equal(as.issuer, testBaseUrl);
  assert.equal(as.authorization_endpoint, `${testBaseUrl}/oauth/authorize`);
  assert.equal(as.authorization_response_iss_parameter_supported, true);
  assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
});

test('code grant, refresh and revocation as an independent client sees them', async () => {
  const tokens = await connect();
  assert.equal(tokens.token_type, 'bearer');
  assert.equal(tokens.expires_in, 3600);
  assert.equal(tokens.scope, 'orders:read menu:read store:read');
  assert.match(tokens.access_token, /^svc_at_/);
  assert.match(tokens.refresh_token ?? '', /^svc_rt_/);
  assert.equal(await meStatus(tokens.access_token), 200);

  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    confidential.client,
    await oauth.refreshTokenGrantRequest(
      as,
      confidential.client,
      confidential.auth,
      tokens.refresh_token as string,
      {
        ...viaService,
        additionalParameters: { scope: 'orders:read' },
      },
    ),
  );
  assert.equal(refreshed.scope, 'orders:read');
  assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
  assert.equal(await meStatus(refreshed.access_token), 200);

  await oauth.processRevocationResponse(
    await oauth.revocationRequest(
      as,
      confidential.client,
      confidential.auth,
      refreshed.refresh_token as string,
      viaService,
    ),
  );
  assert.equal(await meStatus(refreshed.access_token), 401);
  const again = oauth.refreshTokenGrantRequest(
    as,
    confidential.client,
    confidential.auth,
    refreshed.refresh_token as string,
    viaService,
  );
  assert.equal(
    await refusal(again.then((r) => oauth.processRefreshTokenResponse(as, confidential.client, r))),
    'invalid_grant',
  );
});

test('a public client: PKCE alone, a loopback redirect on any port', async () => {
  const tokens = await connect(publicApp, loopback);
  assert.equal(await meStatus(tokens.access_token), 200);
});

test('the callback: a missing or wrong iss, or another state, is refused by the client', async () => {
  const { challenge } = await pkcePair();
  const state = oauth.generateRandomState();
  const callback = await authorize(confidential.client, { state, challenge });
  assert.equal(callback.searchParams.get('iss'), testBaseUrl);

  const withoutIss = new URL(callback);
  withoutIss.searchParams.delete('iss');
  assert.throws(
    () => oauth.validateAuthResponse(as, confidential.client, withoutIss, state),
    /"iss" \(issuer\) missing/,
  );
  const otherIss = new URL(callback);
  otherIss.searchParams.set('iss', 'https://evil.example.test');
  assert.throws(
    () => oauth.validateAuthResponse(as, confidential.client, otherIss, state),
    /unexpected "iss"/,
  );
  assert.throws(
    () => oauth.validateAuthResponse(as, confidential.client, callback, 'another state'),
    /state/,
  );
});

test('Cancel reaches the client as access_denied', async () => {
  const { challenge } = await pkcePair();
  const state = oauth.generateRandomState();
  const callback = await authorize(confidential.client, { state, challenge, decision: 'cancel' });
  assert.throws(
    () => oauth.validateAuthResponse(as, confidential.client, callback, state),
    (error: unknown) => error instanceof oauth.AuthorizationResponseError && error.error === 'access_denied',
  );
});

/** A code from the consent page, not exchanged yet. */
async function code(): Promise<{ params: URLSearchParams; verifier: string }> {
  const { verifier, challenge } = await pkcePair();
  const state = oauth.generateRandomState();
  const callback = await authorize(confidential.client, { state, challenge });
  return { params: oauth.validateAuthResponse(as, confidential.client, callback, state), verifier };
}

function exchange(
  params: URLSearchParams,
  redirect: string,
  verifier: string,
): Promise<oauth.TokenEndpointResponse> {
  return oauth
    .authorizationCodeGrantRequest(
      as,
      confidential.client,
      confidential.auth,
      params,
      redirect,
      verifier,
      viaService,
    )
    .then((response) => oauth.processAuthorizationCodeResponse(as, confidential.client, response));
}

test('a wrong verifier or another redirect_uri: invalid_grant', async () => {
  const first = await code();
  assert.equal(
    await refusal(exchange(first.params, redirectUri, oauth.generateRandomCodeVerifier())),
    'invalid_grant',
  );
  const second = await code();
  assert.equal(
    await refusal(exchange(second.params, 'https://app.example.test/other', second.verifier)),
    'invalid_grant',
  );
});

test('a code used twice: refused, and the tokens of its first use revoked', async () => {
  const { params, verifier } = await code();
  const tokens = await exchange(params, redirectUri, verifier);
  assert.equal(await meStatus(tokens.access_token), 200);
  assert.equal(await refusal(exchange(params, redirectUri, verifier)), 'invalid_grant');
  assert.equal(await meStatus(tokens.access_token), 401);
});

test('a refresh token used again after the 60-second grace: the whole family revoked', async () => {
  const tokens = await connect();
  const refresh = (token: string) =>
    oauth
      .refreshTokenGrantRequest(as, confidential.client, confidential.auth, token, viaService)
      .then((response) => oauth.processRefreshTokenResponse(as, confidential.client, response));
  const next = await refresh(tokens.refresh_token as string);
  t.clock.advance(61_000);
  assert.equal(await refusal(refresh(tokens.refresh_token as string)), 'invalid_grant');
  assert.equal(await refusal(refresh(next.refresh_token as string)), 'invalid_grant');
  assert.equal(await meStatus(next.access_token), 401);
});
