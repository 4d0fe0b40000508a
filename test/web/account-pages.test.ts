import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { hasTotp } from '../../src/domain/accounts/totp.ts';
import { withSecondFactor } from '../accounts/second-factor-helpers.ts';
import { buildTestApp, call, newAccount, password, signInTo, type TestApp } from '../harness.ts';
import { Browser, csrfOf } from '../oauth/consent-helpers.ts';

/*
 * The account page of the console and the dashboard over HTTP: setting up the second factor
 * (QR code and secret, confirmed with a code), signing in again with it, turning it off with a
 * code; wrong codes beside the field and counted with the JSON API's, 429 at the limit; CSRF.
 */
let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const codeOf = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: t.clock.now().getTime() });
/** The next time step: a code once accepted is used up (RFC 6238, 5.2). */
const nextStep = () => t.clock.advance(30_000);
const fieldErrorOf = (res: LightMyRequestResponse) =>
  /<p class="field-error" id="code-error">(.*?)<\/p>/.exec(res.body)?.[1];
const accountOf = async (email: string) =>
  t.ctx.db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirstOrThrow();

async function signedIn(surface: 'console' | 'dashboard', email: string): Promise<Browser> {
  const browser = new Browser(t.app);
  const form = await browser.get(`/${surface}/sign-in`);
  const res = await browser.post(`/${surface}/sign-in`, { _csrf: csrfOf(form), email, password });
  assert.equal(res.statusCode, 303, res.body);
  assert.equal(res.headers.location, `/${surface}`);
  return browser;
}

for (const surface of ['console', 'dashboard'] as const) {
  test(`${surface}: set up the second factor, sign in again with it, turn it off`, async () => {
    const person = await newAccount(t, surface === 'console');
    const home = `/${surface}/account`;
    const browser = await signedIn(surface, person.email);

    const page = await browser.get(home);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /The second factor is off\./);
    assert.match(page.body, new RegExp(`<a href="${home}" aria-current="page">Account</a>`));

    const started = await browser.post(`${home}/second-factor/setup`, { _csrf: csrfOf(page) });
    assert.equal(started.statusCode, 303);
    assert.equal(started.headers.location, `${home}/second-factor/setup`);
    const setup = await browser.get(`${home}/second-factor/setup`);
    assert.equal(setup.statusCode, 200);
    assert.match(
      setup.body,
      /<div class="totp-qr" role="img" aria-label="[^"]+"><svg xmlns="http:\/\/www.w3.org\/2000\/svg"/,
    );
    const secret = (
      /<code class="secret" id="secret">([A-Z2-7 ]+)<\/code>/.exec(setup.body)?.[1] ?? ''
    ).replaceAll(' ', '');
    const pending = await t.ctx.db
      .selectFrom('accounts')
      .select('totp_pending_secret')
      .where('id', '=', person.id)
      .executeTakeFirstOrThrow();
    assert.equal(secret, pending.totp_pending_secret);

    const wrong = await browser.post(`${home}/second-factor/confirm`, {
      _csrf: csrfOf(setup),
      code: '000000',
    });
    assert.equal(wrong.statusCode, 400);
    assert.equal(
      fieldErrorOf(wrong),
      'That code is not right. Enter the code your authenticator app shows now.',
    );
    assert.match(wrong.body, /<svg/, 'the setup page again, with its QR code');
    assert.equal(await hasTotp(t.ctx, person.id), false);

    const confirmed = await browser.post(`${home}/second-factor/confirm`, {
      _csrf: csrfOf(wrong),
      code: codeOf(secret),
    });
    assert.equal(confirmed.statusCode, 303);
    assert.equal(confirmed.headers.location, `${home}?done=on`);
    const on = await browser.get(confirmed.headers.location as string);
    assert.match(on.body, /<p class="success" role="status">The second factor is on\./);
    assert.equal(await hasTotp(t.ctx, person.id), true);
    // Nothing to confirm any more: the setup page goes back to the account.
    assert.equal((await browser.get(`${home}/second-factor/setup`)).headers.location, home);

    // Signing in again asks for the second factor; a code of the secret from the page gets in.
    const again = new Browser(t.app);
    const form = await again.get(`/${surface}/sign-in`);
    const signIn = await again.post(`/${surface}/sign-in`, {
      _csrf: csrfOf(form),
      email: person.email,
      password,
    });
    assert.equal(signIn.headers.location, `/${surface}/second-factor`);
    assert.equal((await again.get(home)).headers.location, `/${surface}/second-factor`);
    nextStep();
    const factor = await again.get(`/${surface}/second-factor`);
    const entered = await again.post(`/${surface}/second-factor`, {
      _csrf: csrfOf(factor),
      code: codeOf(secret),
    });
    assert.equal(entered.statusCode, 303);
    assert.equal(entered.headers.location, `/${surface}`);
    const signedInAgain = await again.get(home);
    assert.equal(signedInAgain.statusCode, 200);

    const refused = await again.post(`${home}/second-factor/disable`, {
      _csrf: csrfOf(signedInAgain),
      code: '12',
    });
    assert.equal(refused.statusCode, 400);
    assert.equal(
      fieldErrorOf(refused),
      'That code is not right. Enter the code your authenticator app shows now.',
    );
    assert.match(refused.body, /<a href="#code">That code is not right/);
    assert.equal(await hasTotp(t.ctx, person.id), true);
    nextStep();
    const off = await again.post(`${home}/second-factor/disable`, {
      _csrf: csrfOf(refused),
      code: codeOf(secret),
    });
    assert.equal(off.statusCode, 303);
    assert.equal(off.headers.location, `${home}?done=off`);
    assert.equal(await hasTotp(t.ctx, person.id), false);
    assert.match((await again.get(`${home}?done=off`)).body, /role="status">The second factor is off\./);
  });
}

test('wrong codes count with the JSON API’s; at the limit 429 beside the field, and a right code changes nothing', async () => {
  const person = await newAccount(t, false);
  const { secret } = await withSecondFactor(t.ctx, person.id);
  const browser = await signedInWithFactor(person.email, secret);
  const apiCookie = `servery_dashboard_session=${browser.cookies.get('servery_dashboard_session')}`;
  for (let wrong = 0; wrong < 5; wrong += 1) {
    const res = await call(t.app, 'DELETE', '/dashboard/api/account/second-factor', apiCookie, {
      code: '000000',
    });
    assert.equal(res.statusCode, 400, res.body);
  }
  let page = await browser.get('/dashboard/account');
  for (let wrong = 0; wrong < 5; wrong += 1) {
    page = await browser.post('/dashboard/account/second-factor/disable', {
      _csrf: csrfOf(page),
      code: '000000',
    });
    assert.equal(page.statusCode, 400);
  }
  nextStep();
  const limited = await browser.post('/dashboard/account/second-factor/disable', {
    _csrf: csrfOf(page),
    code: codeOf(secret),
  });
  assert.equal(limited.statusCode, 429);
  assert.ok(Number(limited.headers['retry-after']) > 0);
  assert.match(fieldErrorOf(limited) ?? '', /^Too many wrong codes\. Try again in \d+ minutes\.$/);
  assert.equal(await hasTotp(t.ctx, person.id), true);
  const api = await call(t.app, 'DELETE', '/dashboard/api/account/second-factor', apiCookie, {
    code: codeOf(secret),
  });
  assert.equal(api.statusCode, 429);
});

test('forms without the CSRF token are refused and change nothing; signed out, the page asks to sign in', async () => {
  const person = await newAccount(t, false);
  const browser = await signedIn('dashboard', person.email);
  await browser.get('/dashboard/account');
  const forged = await browser.post('/dashboard/account/second-factor/setup', {});
  assert.equal(forged.statusCode, 403);
  const { id } = await accountOf(person.email);
  const row = await t.ctx.db
    .selectFrom('accounts')
    .select('totp_pending_secret')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  assert.equal(row.totp_pending_secret, null);
  assert.equal(
    (await browser.get('/dashboard/account/second-factor/setup')).headers.location,
    '/dashboard/account',
  );

  const stranger = await t.app.inject({ method: 'GET', url: '/console/account' });
  assert.equal(stranger.statusCode, 303);
  assert.equal(stranger.headers.location, '/console/sign-in');
  // A dashboard session is no console session (cookies of their own paths).
  const cookie = await signInTo(t.app, 'dashboard', person.email);
  const other = await t.app.inject({ method: 'GET', url: '/console/account', headers: { cookie } });
  assert.equal(other.statusCode, 303);
});

test('German: the account page and the setup page in the person’s language', async () => {
  const person = await newAccount(t, false);
  const browser = await signedIn('dashboard', person.email);
  const page = await browser.get('/dashboard/account?lang=de');
  assert.match(page.body, /<html lang="de">/);
  assert.match(page.body, /Der zweite Faktor ist ausgeschaltet\./);
  await browser.post('/dashboard/account/second-factor/setup', { _csrf: csrfOf(page), lang: 'de' });
  const setup = await browser.get('/dashboard/account/second-factor/setup?lang=de');
  assert.match(setup.body, /<h1>Zweiten Faktor einrichten<\/h1>/);
});

/** A browser signed in to the dashboard with password and second factor. */
async function signedInWithFactor(email: string, secret: string): Promise<Browser> {
  const browser = new Browser(t.app);
  const form = await browser.get('/dashboard/sign-in');
  await browser.post('/dashboard/sign-in', { _csrf: csrfOf(form), email, password });
  nextStep();
  const factor = await browser.get('/dashboard/second-factor');
  const res = await browser.post('/dashboard/second-factor', { _csrf: csrfOf(factor), code: codeOf(secret) });
  assert.equal(res.headers.location, '/dashboard');
  return browser;
}
