import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { withSecondFactor } from '../accounts/second-factor-helpers.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import {
  authorizeQuery,
  Browser,
  csrfOf,
  makeAccount,
  makeApp,
  makeRestaurant,
  redirectOf,
  signIn,
} from './consent-helpers.ts';
import { pkce } from './oauth-helpers.ts';

/*
 * A form's CSRF token is valid only with the session it was issued for: a token and CSRF cookie
 * taken from browser A are refused with browser B's session cookie.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const redirectUri = 'https://app.example.test/callback';

/** Two accounts owning one restaurant, an approved app of a developer, and its authorization request. */
async function world() {
  const a = await makeAccount(t.ctx);
  const b = await makeAccount(t.ctx);
  const restaurant = await makeRestaurant(t.ctx, [a.id, b.id]);
  const developer = await makeAccount(t.ctx, { developer: true });
  const app = await makeApp(t.ctx, developer.id, { redirectUris: [redirectUri] });
  const query = authorizeQuery({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    state: 'st-1',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
  });
  return { a, b, restaurant, app, query };
}

/** A browser with the session cookie of one browser and the CSRF cookie of another. */
function mixed(sessionOf: Browser, csrfOf: Browser): Browser {
  const browser = new Browser(t.app);
  browser.cookies.set('servery_session', sessionOf.cookies.get('servery_session') as string);
  browser.cookies.set('servery_csrf', csrfOf.cookies.get('servery_csrf') as string);
  return browser;
}

function assertRefused(res: LightMyRequestResponse) {
  assert.equal(res.statusCode, 403, res.body);
  assert.match(res.body, /This form has expired/);
}

const consentsAndCodes = async (appId: string) => ({
  connections: (
    await t.database.db.selectFrom('connections').select('id').where('app_id', '=', appId).execute()
  ).length,
  codes: (
    await t.database.db
      .selectFrom('authorization_codes')
      .select('app_id')
      .where('app_id', '=', appId)
      .execute()
  ).length,
});

const codeAt = (secret: string, at: Date) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at.getTime() });

test('consent: A’s token and CSRF cookie with B’s session are refused; with A’s session they work', async () => {
  const w = await world();
  const browserA = new Browser(t.app);
  const browserB = new Browser(t.app);
  await signIn(browserA, w.query, w.a.email);
  await signIn(browserB, w.query, w.b.email);
  const form = {
    _csrf: csrfOf(await browserA.get(`/oauth/authorize?${w.query}`)),
    decision: 'connect',
    restaurant: w.restaurant.id,
  };

  assertRefused(await mixed(browserB, browserA).post(`/oauth/authorize/consent?${w.query}`, form));
  assert.deepEqual(await consentsAndCodes(w.app.id), { connections: 0, codes: 0 });

  const own = await browserA.post(`/oauth/authorize/consent?${w.query}`, form);
  assert.match(redirectOf(own).params.code ?? '', /^svc_ac_/);
  assert.deepEqual(await consentsAndCodes(w.app.id), { connections: 1, codes: 1 });
});

test('second factor: A’s token and CSRF cookie with B’s pending session are refused', async () => {
  const w = await world();
  const secretA = (await withSecondFactor(t.ctx, w.a.id)).secret;
  const secretB = (await withSecondFactor(t.ctx, w.b.id)).secret;
  const browserA = new Browser(t.app);
  const browserB = new Browser(t.app);
  await signIn(browserA, w.query, w.a.email);
  await signIn(browserB, w.query, w.b.email);
  const token = csrfOf(await browserA.get(`/oauth/authorize?${w.query}`));

  const forged = await mixed(browserB, browserA).post(`/oauth/authorize/second-factor?${w.query}`, {
    _csrf: token,
    code: codeAt(secretB, t.clock.now()),
  });
  assertRefused(forged);
  // B's session still waits for its code.
  assert.match((await browserB.get(`/oauth/authorize?${w.query}`)).body, /Enter your code/);

  const own = await browserA.post(`/oauth/authorize/second-factor?${w.query}`, {
    _csrf: token,
    code: codeAt(secretA, t.clock.now()),
  });
  assert.equal(own.statusCode, 303, own.body);
  assert.match((await browserA.get(`/oauth/authorize?${w.query}`)).body, /name="restaurant"/);
});

test('sign-out: A’s token and CSRF cookie with B’s session are refused; B stays signed in', async () => {
  const w = await world();
  const browserA = new Browser(t.app);
  const browserB = new Browser(t.app);
  await signIn(browserA, w.query, w.a.email);
  await signIn(browserB, w.query, w.b.email);
  const form = { _csrf: csrfOf(await browserA.get(`/oauth/authorize?${w.query}`)) };

  const forged = mixed(browserB, browserA);
  assertRefused(await forged.post(`/oauth/authorize/sign-out?${w.query}`, form));
  assert.ok(forged.cookies.has('servery_session'));
  assert.match((await browserB.get(`/oauth/authorize?${w.query}`)).body, /name="restaurant"/);

  const own = await browserA.post(`/oauth/authorize/sign-out?${w.query}`, form);
  assert.equal(own.statusCode, 303, own.body);
  assert.match((await browserA.get(`/oauth/authorize?${w.query}`)).body, /Sign in to connect/);
});

test('a token issued before sign-in is refused by the consent form; one issued after works', async () => {
  const w = await world();
  const browser = new Browser(t.app);
  const signInPage = await browser.get(`/oauth/authorize?${w.query}`);
  const before = csrfOf(signInPage);
  const signedIn = await browser.post(`/oauth/authorize/sign-in?${w.query}`, {
    _csrf: before,
    email: w.a.email,
    password: 'correct horse battery staple',
  });
  assert.equal(signedIn.statusCode, 303, signedIn.body);
  const form = { decision: 'connect', restaurant: w.restaurant.id };

  assertRefused(await browser.post(`/oauth/authorize/consent?${w.query}`, { ...form, _csrf: before }));
  assert.deepEqual(await consentsAndCodes(w.app.id), { connections: 0, codes: 0 });

  const after = csrfOf(await browser.get(`/oauth/authorize?${w.query}`));
  const connected = await browser.post(`/oauth/authorize/consent?${w.query}`, { ...form, _csrf: after });
  assert.match(redirectOf(connected).params.code ?? '', /^svc_ac_/);
});
