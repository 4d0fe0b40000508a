import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { bearer, buildTestApp, type TestApp, testBaseUrl } from '../harness.ts';
import {
  Browser,
  csrfOf,
  decide,
  makeAccount,
  makeApp,
  makeRestaurant,
  password,
  redirectOf,
  signIn,
} from '../oauth/consent-helpers.ts';

/*
 * The console's "Try it" over HTTP: the callback address added to the app, the start's redirect to
 * the authorization endpoint (state, PKCE S256), the callback's checks, a confidential app's secret
 * form, tokens that work; another developer's app is 404, a form without its CSRF token is refused.
 * The console has a loopback address of its own here, so its callback may be a redirect URI.
 */
const consoleUrl = 'http://127.0.0.1:3000';
const callback = `${consoleUrl}/console/try-it/callback`;

let t: TestApp;
before(async () => {
  t = await buildTestApp({ appUrl: consoleUrl });
});
after(() => t.close());

/** A developer with a test restaurant, signed in to the console in `browser`. */
async function developer(browser = new Browser(t.app)) {
  const account = await makeAccount(t.ctx, { developer: true });
  const restaurant = await makeRestaurant(t.ctx, [account.id], { livemode: false });
  const page = await browser.get('/console/sign-in');
  const signedIn = await browser.post('/console/sign-in', {
    _csrf: csrfOf(page),
    email: account.email,
    password,
  });
  assert.equal(signedIn.statusCode, 303, signedIn.body);
  return { ...account, restaurant, browser };
}

/** Posts a form with repeated fields (checkboxes) as the browser's page would. */
function postPairs(
  browser: Browser,
  url: string,
  pairs: [string, string][],
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
    },
    payload: new URLSearchParams(pairs).toString(),
  });
}

/** Opens the app's try-it page and presses Start with `scopes`: the redirect to the consent page. */
async function start(browser: Browser, clientId: string, scopes: string[]) {
  const page = await browser.get(`/console/try-it?app=${clientId}`);
  assert.equal(page.statusCode, 200, page.body);
  const pairs: [string, string][] = [
    ['_csrf', csrfOf(page)],
    ['lang', 'en'],
    ['app', clientId],
    ...scopes.map((scope): [string, string] => ['scope', scope]),
  ];
  const res = await postPairs(browser, '/console/try-it/start', pairs);
  for (const set of res.cookies as { name: string; value: string }[])
    browser.cookies.set(set.name, set.value);
  return res;
}

/** The consent page's query of a start's redirect. */
function authorizeQueryOf(res: LightMyRequestResponse): string {
  const { to } = redirectOf(res);
  assert.equal(to, `${testBaseUrl}/oauth/authorize`);
  return String(res.headers.location).split('?')[1] ?? '';
}

/** Start, sign in on the consent page and decide: the browser is sent back to the callback. */
async function throughConsent(
  dev: Awaited<ReturnType<typeof developer>>,
  clientId: string,
  decision: 'connect' | 'cancel',
) {
  const query = authorizeQueryOf(await start(dev.browser, clientId, ['store:read']));
  assert.equal((await signIn(dev.browser, query, dev.email)).statusCode, 303);
  const back = redirectOf(await decide(dev.browser, query, decision, dev.restaurant.id));
  assert.equal(back.to, callback);
  return back.params;
}

const callbackPath = (params: Record<string, string>) =>
  `/console/try-it/callback?${new URLSearchParams(params).toString()}`;
const alertOf = (res: LightMyRequestResponse) =>
  /<div class="alert" role="alert">([\s\S]*?)<\/div>/.exec(res.body)?.[1];
const fieldErrorOf = (res: LightMyRequestResponse, field: string) =>
  new RegExp(`<p class="field-error" id="${field}-error">(.*?)</p>`).exec(res.body)?.[1];
const redirectUrisOf = async (appId: string) =>
  (
    await t.database.db
      .selectFrom('apps')
      .select('redirect_uris')
      .where('id', '=', appId)
      .executeTakeFirstOrThrow()
  ).redirect_uris;

test('the callback address is added to the developer’s own app once; another developer’s app is 404; no CSRF token, no change', async () => {
  const dev = await developer();
  const app = await makeApp(t.ctx, dev.id, { redirectUris: ['https://app.example.test/cb'] });
  const page = await dev.browser.get(`/console/try-it?app=${app.clientId}`);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /Add this redirect URI to the app/);
  assert.ok(page.body.includes(`<code>${callback}</code>`));
  assert.doesNotMatch(page.body, /Start the OAuth flow/);

  const refused = await dev.browser.post('/console/try-it/redirect-uri', { app: app.clientId, lang: 'en' });
  assert.equal(refused.statusCode, 403);
  assert.deepEqual(await redirectUrisOf(app.id), ['https://app.example.test/cb']);

  const add = { _csrf: csrfOf(page), lang: 'en', app: app.clientId };
  const added = await dev.browser.post('/console/try-it/redirect-uri', add);
  assert.equal(added.headers.location, `/console/try-it?app=${app.clientId}&done=redirectAdded`);
  assert.deepEqual(await redirectUrisOf(app.id), ['https://app.example.test/cb', callback]);
  const done = await dev.browser.get(String(added.headers.location));
  assert.match(done.body, /<p class="success" role="status">The redirect URI was added to the app.<\/p>/);
  assert.match(done.body, /Start the OAuth flow/);
  assert.equal((await dev.browser.post('/console/try-it/redirect-uri', add)).statusCode, 303);
  assert.deepEqual(await redirectUrisOf(app.id), ['https://app.example.test/cb', callback], 'added once');

  const other = await makeAccount(t.ctx, { developer: true });
  const theirs = await makeApp(t.ctx, other.id, { redirectUris: ['https://their.example.test/cb'] });
  assert.equal((await dev.browser.get(`/console/try-it?app=${theirs.clientId}`)).statusCode, 404);
  const notMine = await dev.browser.post('/console/try-it/redirect-uri', { ...add, app: theirs.clientId });
  assert.equal(notMine.statusCode, 404);
  assert.deepEqual(await redirectUrisOf(theirs.id), ['https://their.example.test/cb']);
  assert.equal((await start(dev.browser, app.clientId, ['store:read'])).statusCode, 303);
  const theirStart = await dev.browser.post('/console/try-it/start', {
    ...add,
    app: theirs.clientId,
    scope: 'store:read',
  });
  assert.equal(theirStart.statusCode, 404);

  const full = await makeApp(t.ctx, dev.id, {
    redirectUris: Array.from({ length: 10 }, (_, i) => `https://app.example.test/cb${i}`),
  });
  const tooMany = await dev.browser.post('/console/try-it/redirect-uri', { ...add, app: full.clientId });
  assert.equal(tooMany.statusCode, 400);
  assert.match(tooMany.body, /The app already has 10 redirect URIs/);
  assert.equal((await redirectUrisOf(full.id)).length, 10);
});

test('start: the browser goes to the authorization endpoint with state and PKCE S256, kept in an httpOnly cookie of the try-it pages; no scope is an error beside the field', async () => {
  const dev = await developer();
  const app = await makeApp(t.ctx, dev.id, {
    redirectUris: [callback],
    scopes: ['orders:read', 'menu:read', 'store:read'],
  });
  const page = await dev.browser.get(`/console/try-it?app=${app.clientId}`);
  // The consent page is on another host here (the API's): the start form may be sent on to it.
  assert.match(String(page.headers['content-security-policy']), /form-action 'self' http:\/\/servery\.test;/);

  const noScope = await start(dev.browser, app.clientId, []);
  assert.equal(noScope.statusCode, 400);
  assert.equal(fieldErrorOf(noScope, 'scope'), 'Choose at least one of the app’s scopes.');
  assert.equal(noScope.cookies.length, 0);
  const otherScope = await start(dev.browser, app.clientId, ['store:read', 'orders:write']);
  assert.equal(otherScope.statusCode, 400);

  const started = await start(dev.browser, app.clientId, ['store:read', 'orders:read']);
  const params = Object.fromEntries(new URLSearchParams(authorizeQueryOf(started)));
  assert.equal(params.response_type, 'code');
  assert.equal(params.client_id, app.clientId);
  assert.equal(params.redirect_uri, callback);
  assert.equal(params.scope, 'orders:read store:read');
  assert.equal(params.code_challenge_method, 'S256');
  assert.match(params.code_challenge ?? '', /^[A-Za-z0-9_-]{43}$/);
  assert.match(params.state ?? '', /^[A-Za-z0-9_-]{43}$/);
  assert.equal(params.ui_locales, 'en');

  const cookie = (
    started.cookies as { name: string; value: string; path?: string; httpOnly?: boolean }[]
  ).find((set) => set.name === 'servery_try_it');
  assert.ok(cookie);
  assert.equal(cookie.path, '/console/try-it');
  assert.equal(cookie.httpOnly, true);
  const flow = JSON.parse(Buffer.from(cookie.value, 'base64url').toString('utf8'));
  assert.equal(flow.state, params.state);
  assert.equal(createHash('sha256').update(flow.verifier).digest('base64url'), params.code_challenge);
});

test('the callback uses nothing of an answer whose state is not the flow’s, nor one of another issuer; a Cancel on the consent page is shown', async () => {
  const dev = await developer();
  const app = await makeApp(t.ctx, dev.id, { type: 'public', redirectUris: [callback] });

  const answer = await throughConsent(dev, app.clientId, 'connect');
  const forged = await dev.browser.get(callbackPath({ ...answer, state: 'not-the-state' }));
  assert.equal(forged.statusCode, 400);
  assert.match(alertOf(forged) ?? '', /The state that came back is not the one the console sent/);
  const code = await t.database.db
    .selectFrom('authorization_codes')
    .select('redeemed_at')
    .where('app_id', '=', app.id)
    .executeTakeFirstOrThrow();
  assert.equal(code.redeemed_at, null, 'the code was not exchanged');
  // The flow is over: its right answer coming after is not used either.
  const late = await dev.browser.get(callbackPath(answer));
  assert.match(alertOf(late) ?? '', /No flow is under way/);

  const otherIssuer = await throughConsent(dev, app.clientId, 'connect');
  const elsewhere = await dev.browser.get(
    callbackPath({ ...otherIssuer, iss: 'https://issuer.example.test' }),
  );
  assert.equal(elsewhere.statusCode, 400);
  assert.match(alertOf(elsewhere) ?? '', /names another issuer \(iss\)/);

  const denied = await throughConsent(dev, app.clientId, 'cancel');
  assert.equal(denied.error, 'access_denied');
  const shown = await dev.browser.get(callbackPath(denied));
  assert.equal(shown.statusCode, 400);
  assert.match(alertOf(shown) ?? '', /You did not connect the app \(access_denied\)/);
});

test('a confidential app: the code waits for the secret; a wrong one is refused beside the field, the right one gets tokens that work', async () => {
  const dev = await developer();
  const app = await makeApp(t.ctx, dev.id, { redirectUris: [callback], scopes: ['store:read'] });
  const answer = await throughConsent(dev, app.clientId, 'connect');
  const back = await dev.browser.get(callbackPath(answer));
  assert.equal(back.headers.location, '/console/try-it/secret');
  const form = await dev.browser.get('/console/try-it/secret');
  assert.equal(form.statusCode, 200);
  assert.doesNotMatch(form.body, new RegExp(answer.code ?? 'no code'), 'the code stays out of the page');

  const fields = { _csrf: csrfOf(form), lang: 'en' };
  const empty = await dev.browser.post('/console/try-it/secret', { ...fields, client_secret: '' });
  assert.equal(fieldErrorOf(empty, 'client_secret'), 'Enter the app’s client secret.');
  const wrong = await dev.browser.post('/console/try-it/secret', {
    ...fields,
    client_secret: 'svc_cs_wrong',
  });
  assert.equal(wrong.statusCode, 400);
  assert.equal(
    fieldErrorOf(wrong, 'client_secret'),
    'The token endpoint refused this client secret: it is wrong or has expired.',
  );
  assert.equal(
    (await dev.browser.post('/console/try-it/secret', { client_secret: app.clientSecret ?? '' })).statusCode,
    403,
    'no CSRF token',
  );

  const tokens = await dev.browser.post('/console/try-it/secret', {
    ...fields,
    client_secret: app.clientSecret ?? '',
  });
  assert.equal(tokens.statusCode, 200, tokens.body);
  assert.ok(!tokens.body.includes(app.clientSecret ?? ''), 'the secret is not shown');
  const accessToken = /<code id="access-token">(svc_at_[^<]+)<\/code>/.exec(tokens.body)?.[1] ?? '';
  assert.match(/<code id="refresh-token">([^<]+)<\/code>/.exec(tokens.body)?.[1] ?? '', /^svc_rt_/);
  assert.ok(
    tokens.body
      .replaceAll('&quot;', '"')
      .includes(`curl -H "Authorization: Bearer ${accessToken}" ${testBaseUrl}/v1/store`),
    'the curl command',
  );
  assert.match(tokens.body, /shown only now/);
  const store = await t.app.inject({ method: 'GET', url: '/v1/store', headers: bearer(accessToken) });
  assert.equal(store.statusCode, 200, store.body);
  assert.equal(store.json().id, dev.restaurant.id);

  // The flow ended with the tokens: sending the secret again exchanges nothing.
  const again = await dev.browser.post('/console/try-it/secret', {
    ...fields,
    client_secret: app.clientSecret ?? '',
  });
  assert.match(alertOf(again) ?? '', /No flow is under way/);
});

test('a pending app can be tried by its developer; a rejected one cannot', async () => {
  const dev = await developer();
  const pending = await makeApp(t.ctx, dev.id, {
    type: 'public',
    status: 'pending',
    redirectUris: [callback],
  });
  const page = await dev.browser.get(`/console/try-it?app=${pending.clientId}`);
  assert.match(page.body, /is waiting for approval: until then only you can connect it/);
  const answer = await throughConsent(dev, pending.clientId, 'connect');
  const tokens = await dev.browser.get(callbackPath(answer));
  assert.equal(tokens.statusCode, 200, tokens.body);
  assert.match(tokens.body, /<code id="access-token">svc_at_/);

  const rejected = await makeApp(t.ctx, dev.id, { status: 'rejected', redirectUris: [callback] });
  const shown = await dev.browser.get(`/console/try-it?app=${rejected.clientId}`);
  assert.match(shown.body, /was rejected: it cannot be connected/);
  assert.doesNotMatch(shown.body, /Start the OAuth flow/);
  const refused = await start(dev.browser, rejected.clientId, ['store:read']);
  assert.equal(refused.statusCode, 400);
  assert.equal(refused.cookies.length, 0);
});

test('without apps the page says so; a console on a plain-http host explains that its callback cannot be a redirect URI', async () => {
  const dev = await developer();
  const empty = await dev.browser.get('/console/try-it');
  assert.equal(empty.statusCode, 200);
  assert.match(empty.body, /You have no apps yet/);

  const plainHttp = await buildTestApp(); // the console at http://servery.test
  try {
    const browser = new Browser(plainHttp.app);
    const account = await makeAccount(plainHttp.ctx, { developer: true });
    const app = await makeApp(plainHttp.ctx, account.id, { redirectUris: ['https://app.example.test/cb'] });
    const signInPage = await browser.get('/console/sign-in');
    await browser.post('/console/sign-in', { _csrf: csrfOf(signInPage), email: account.email, password });
    const page = await browser.get(`/console/try-it?app=${app.clientId}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /This address cannot be a redirect URI/);
    assert.match(page.body, /You have no test restaurant/);
    assert.doesNotMatch(page.body, /Add this redirect URI|Start the OAuth flow/);
  } finally {
    await plainHttp.close();
  }
});
