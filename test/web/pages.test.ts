import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { withSecondFactor } from '../accounts/second-factor-helpers.ts';
import { buildTestApp, newAccount, password, type TestApp } from '../harness.ts';
import { Browser, csrfOf, makeApp, makeRestaurant } from '../oauth/consent-helpers.ts';

/*
 * The console's and dashboard's pages over HTTP: sign-in, second factor and sign-out through their
 * forms, what the homes list, who may see what, and the headers of every page and asset.
 */
let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(async () => {
  await t?.close();
});

const codeNow = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: t.clock.now().getTime() });

/** Signs in through a surface's pages: GET the form (for its CSRF token), then post it. */
async function signIn(
  browser: Browser,
  surface: 'console' | 'dashboard',
  email: string,
  secret = password,
): Promise<LightMyRequestResponse> {
  const form = await browser.get(`/${surface}/sign-in`);
  assert.equal(form.statusCode, 200, form.body);
  return browser.post(`/${surface}/sign-in`, { _csrf: csrfOf(form), email, password: secret });
}

function assertPageHeaders(res: LightMyRequestResponse): void {
  assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.headers['x-frame-options'], 'DENY');
  const csp = String(res.headers['content-security-policy']);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /style-src 'self'(;|$)/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.ok(!csp.includes('unsafe-inline'), csp);
  assert.ok(!csp.includes('script-src'), csp);
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
}

async function addStaff(restaurantId: string, accountId: string): Promise<void> {
  await t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: restaurantId, account_id: accountId, role: 'staff' })
    .execute();
}

describe('the console', () => {
  test('a developer signs in, sees their apps and test restaurant, and signs out', async () => {
    const developer = await newAccount(t, true);
    const app = await makeApp(t.ctx, developer.id, {
      name: 'Till <Pro>',
      redirectUris: ['https://till.test/cb'],
    });
    const testKitchen = await makeRestaurant(t.ctx, [developer.id], { livemode: false });
    const browser = new Browser(t.app);

    const start = await browser.get('/console');
    assert.equal(start.statusCode, 303);
    assert.equal(start.headers.location, '/console/sign-in');

    const signedIn = await signIn(browser, 'console', developer.email);
    assert.equal(signedIn.statusCode, 303, signedIn.body);
    assert.equal(signedIn.headers.location, '/console');

    const home = await browser.get('/console');
    assert.equal(home.statusCode, 200, home.body);
    assertPageHeaders(home);
    assert.match(home.body, /<html lang="en">/);
    assert.ok(home.body.includes('Till &lt;Pro&gt;'));
    assert.ok(home.body.includes(app.clientId));
    assert.ok(home.body.includes(testKitchen.name));
    assert.ok(home.body.includes(testKitchen.id));
    assert.match(home.body, new RegExp(`Signed in as ${developer.email.replaceAll('.', '\\.')}`));
    assert.match(home.body, /<a href="\/console" aria-current="page">Home<\/a>/);

    // The same session works for the console's JSON API (one cookie, path /console).
    const api = await browser.get('/console/api/account/second-factor');
    assert.equal(api.statusCode, 200, api.body);

    const signedOut = await browser.post('/console/sign-out', { _csrf: csrfOf(home) });
    assert.equal(signedOut.statusCode, 303, signedOut.body);
    assert.equal(signedOut.headers.location, '/console/sign-in');
    assert.equal((await browser.get('/console')).headers.location, '/console/sign-in');
  });

  test('a wrong password: the message beside the field and in the summary, no session', async () => {
    const developer = await newAccount(t, true);
    const browser = new Browser(t.app);
    const res = await signIn(browser, 'console', developer.email, 'not the password');
    assert.equal(res.statusCode, 400);
    assertPageHeaders(res);
    assert.match(res.body, /role="alert"/);
    assert.match(res.body, /<a href="#email">The e-mail address or the password is not right\.<\/a>/);
    assert.match(res.body, /id="email-error"[^>]*>The e-mail address or the password is not right\./);
    assert.match(res.body, /aria-describedby="email-error"/);
    assert.match(res.body, /aria-invalid="true"/);
    assert.ok(res.body.includes(`value="${developer.email}"`));
    assert.equal(browser.cookies.get('servery_console_session'), undefined);
  });

  test('empty fields: each one says what is missing', async () => {
    const browser = new Browser(t.app);
    const form = await browser.get('/console/sign-in');
    const res = await browser.post('/console/sign-in', { _csrf: csrfOf(form), email: '', password: '' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /id="email-error"[^>]*>Enter your e-mail address\./);
    assert.match(res.body, /id="password-error"[^>]*>Enter your password\./);
  });

  test('an account that is not a developer is refused like a wrong password', async () => {
    const owner = await newAccount(t, false);
    const browser = new Browser(t.app);
    const res = await signIn(browser, 'console', owner.email);
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /The e-mail address or the password is not right/);
    assert.equal(browser.cookies.get('servery_console_session'), undefined);
    assert.equal((await browser.get('/console')).headers.location, '/console/sign-in');
  });

  test('a form without its CSRF token, or with another browser’s, is refused with a 403 page', async () => {
    const developer = await newAccount(t, true);
    const browser = new Browser(t.app);
    await browser.get('/console/sign-in');
    const noToken = await browser.post('/console/sign-in', { email: developer.email, password });
    assert.equal(noToken.statusCode, 403);
    assertPageHeaders(noToken);
    assert.match(noToken.body, /This form has expired or was not sent from this page/);
    assert.equal(browser.cookies.get('servery_console_session'), undefined);

    const other = new Browser(t.app);
    const otherForm = await other.get('/console/sign-in');
    const foreign = await browser.post('/console/sign-in', {
      _csrf: csrfOf(otherForm),
      email: developer.email,
      password,
    });
    assert.equal(foreign.statusCode, 403);

    // Signed in, sign-out without a token changes nothing.
    assert.equal((await signIn(browser, 'console', developer.email)).statusCode, 303);
    assert.equal((await browser.post('/console/sign-out', {})).statusCode, 403);
    assert.equal((await browser.get('/console')).statusCode, 200);
  });

  test('a form posted from another site (Origin: another scheme, host or port) is refused with a 403 page, token or not', async () => {
    const developer = await newAccount(t, true);
    for (const surface of ['console', 'dashboard'] as const) {
      const browser = new Browser(t.app);
      const form = await browser.get(`/${surface}/sign-in`);
      const fields = { _csrf: csrfOf(form), email: developer.email, password };
      for (const origin of ['https://evil.example', 'https://localhost', 'http://localhost:8080', 'null']) {
        const foreign = await browser.post(`/${surface}/sign-in`, fields, { origin });
        assert.equal(foreign.statusCode, 403, `${surface} ${origin}`);
        assertPageHeaders(foreign);
        assert.match(foreign.body, /This form was not sent from one of our pages/);
        assert.equal(browser.cookies.get(`servery_${surface}_session`), undefined);
      }
      const own = await browser.post(`/${surface}/sign-in`, fields, { origin: 'http://localhost' });
      assert.equal(own.statusCode, 303, `${surface}: ${own.body.slice(0, 200)}`);
    }
  });

  test('too many failed sign-ins: 429 with Retry-After and the minutes to wait', async () => {
    const developer = await newAccount(t, true);
    const browser = new Browser(t.app, '203.0.113.9');
    let res: LightMyRequestResponse | undefined;
    for (let i = 0; i < 11; i += 1) res = await signIn(browser, 'console', developer.email, 'wrong!');
    assert.equal(res?.statusCode, 429);
    assert.ok(Number(res?.headers['retry-after']) > 0);
    assert.match(res?.body ?? '', /Too many failed sign-ins\. Try again in 15 minutes\./);
  });

  test('failed sign-ins count together on every surface: switching pages buys no guesses', async () => {
    const developer = await newAccount(t, true);
    const browser = new Browser(t.app, '203.0.113.10');
    for (let i = 0; i < 5; i += 1) await signIn(browser, 'dashboard', developer.email, 'wrong!');
    for (let i = 0; i < 5; i += 1) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/console/api/sessions',
        remoteAddress: '203.0.113.10',
        headers: { 'content-type': 'application/json' },
        payload: { email: developer.email, password: 'wrong!' },
      });
      assert.equal(res.statusCode, 401);
    }
    const refused = await signIn(browser, 'console', developer.email, password);
    assert.equal(refused.statusCode, 429);
  });

  test('password spraying: 20 failed sign-ins from one address, whatever the e-mails, refuse the next on every surface', async () => {
    const developer = await newAccount(t, true);
    const address = '203.0.113.11';
    const browser = new Browser(t.app, address);
    const viaApi = (surface: 'console' | 'dashboard', email: string, secret: string, from = address) =>
      t.app.inject({
        method: 'POST',
        url: `/${surface}/api/sessions`,
        remoteAddress: from,
        headers: { 'content-type': 'application/json' },
        payload: { email, password: secret },
      });
    // One password against 20 accounts (unknown ones among them): each refused as a wrong one.
    for (let i = 0; i < 10; i += 1) {
      const page = await signIn(
        browser,
        i % 2 ? 'console' : 'dashboard',
        `sprayed-${i}@example.com`,
        'Summer2026!',
      );
      assert.notEqual(page.statusCode, 429, `attempt ${i + 1}`);
      assert.equal(
        (await viaApi('dashboard', `sprayed-api-${i}@example.com`, 'Summer2026!')).statusCode,
        401,
      );
    }
    // The 21st, a new e-mail, on a page or the API, and even the right password: refused.
    const next = await signIn(browser, 'console', 'sprayed-21@example.com', 'Summer2026!');
    assert.equal(next.statusCode, 429);
    assert.ok(Number(next.headers['retry-after']) > 0);
    assert.equal((await viaApi('console', developer.email, password)).statusCode, 429);
    // Another address is not held back.
    assert.equal((await viaApi('console', developer.email, password, '203.0.113.12')).statusCode, 200);
  });
});

describe('the dashboard', () => {
  test('sign-in with a second factor, the restaurants with roles, each restaurant’s page', async () => {
    const owner = await newAccount(t, false);
    const { secret } = await withSecondFactor(t.ctx, owner.id);
    const own = await makeRestaurant(t.ctx, [owner.id]);
    const someoneElse = await newAccount(t, false);
    const other = await makeRestaurant(t.ctx, [someoneElse.id]);
    await addStaff(other.id, owner.id);
    const foreign = await makeRestaurant(t.ctx, [someoneElse.id]);
    const browser = new Browser(t.app);

    const signedIn = await signIn(browser, 'dashboard', owner.email);
    assert.equal(signedIn.headers.location, '/dashboard/second-factor');
    assert.equal((await browser.get('/dashboard')).headers.location, '/dashboard/second-factor');
    const codePage = await browser.get('/dashboard/second-factor');
    assert.equal(codePage.statusCode, 200);
    assertPageHeaders(codePage);
    assert.match(codePage.body, /autocomplete="one-time-code"/);
    assert.match(codePage.body, /aria-describedby="code-hint"/);

    const wrong = await browser.post('/dashboard/second-factor', { _csrf: csrfOf(codePage), code: '000000' });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /id="code-error"[^>]*>That code is not right/);
    const right = await browser.post('/dashboard/second-factor', {
      _csrf: csrfOf(wrong),
      code: codeNow(secret),
    });
    assert.equal(right.statusCode, 303, right.body);
    assert.equal(right.headers.location, '/dashboard');

    const home = await browser.get('/dashboard');
    assert.equal(home.statusCode, 200, home.body);
    assertPageHeaders(home);
    assert.match(
      home.body,
      new RegExp(`href="/dashboard/restaurants/${own.id}">${own.name}</a></td><td>Owner<`),
    );
    assert.match(
      home.body,
      new RegExp(`href="/dashboard/restaurants/${other.id}">${other.name}</a></td><td>Staff<`),
    );
    assert.ok(!home.body.includes(foreign.name));

    const restaurant = await browser.get(`/dashboard/restaurants/${other.id}`);
    assert.equal(restaurant.statusCode, 200);
    // The overview runs its own script (its live figures), from our origin only.
    assert.match(
      String(restaurant.headers['content-security-policy']),
      /^default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self';/,
    );
    assert.match(restaurant.body, new RegExp(`<h1>${other.name}</h1>`));
    assert.match(restaurant.body, /Your role: Staff/);
    for (const section of ['Store', 'Tables', 'Webhooks', 'Orders', 'Menu'])
      assert.ok(restaurant.body.includes(section));

    for (const id of [foreign.id, '00000000-0000-0000-0000-000000000000', 'not-an-id']) {
      const notFound = await browser.get(`/dashboard/restaurants/${id}`);
      assert.equal(notFound.statusCode, 404, id);
      assertPageHeaders(notFound);
      assert.match(notFound.body, /Restaurant not found/);
      assert.ok(!notFound.body.includes(foreign.name));
    }

    const signedOut = await browser.post('/dashboard/sign-out', { _csrf: csrfOf(home) });
    assert.equal(signedOut.headers.location, '/dashboard/sign-in');
    assert.equal(
      (await browser.get(`/dashboard/restaurants/${own.id}`)).headers.location,
      '/dashboard/sign-in',
    );
  });

  test('a console session is not a dashboard session, and the other way round', async () => {
    const developer = await newAccount(t, true);
    const browser = new Browser(t.app);
    assert.equal((await signIn(browser, 'console', developer.email)).statusCode, 303);
    assert.equal((await browser.get('/dashboard')).headers.location, '/dashboard/sign-in');
  });
});

describe('languages of the console and dashboard', () => {
  test('Accept-Language picks the language; a footer link (?lang=) picks it for the next pages too', async () => {
    const browser = new Browser(t.app);
    const german = await t.app.inject({
      url: '/dashboard/sign-in',
      headers: { 'accept-language': 'de-CH, en;q=0.5' },
    });
    assert.match(german.body, /<html lang="de">/);
    assert.match(german.body, /Anmelden/);

    const french = await browser.get('/dashboard/sign-in?lang=fr');
    assert.match(french.body, /<html lang="fr">/);
    assert.ok(browser.cookies.get('servery_lang') === 'fr');
    const again = await browser.get('/console/sign-in');
    assert.match(again.body, /<html lang="fr">/);
    // The form carries the language: the answer to a post is in it too.
    const posted = await browser.post('/console/sign-in', {
      _csrf: csrfOf(again),
      lang: 'it',
      email: 'nobody@example.test',
      password: 'whatever',
    });
    assert.match(posted.body, /<html lang="it">/);
  });
});

describe('static assets', () => {
  test('the stylesheet: a versioned address, cached for a year as immutable, as text/css', async () => {
    const page = await t.app.inject('/console/sign-in');
    const href = /<link rel="stylesheet" href="([^"]+)">/.exec(page.body)?.[1];
    assert.match(href ?? '', /^\/assets\/[0-9a-f]{12}\/site\.css$/);
    const css = await t.app.inject(href as string);
    assert.equal(css.statusCode, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    assert.equal(css.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(css.headers['x-content-type-options'], 'nosniff');
    assert.match(css.body, /:focus-visible/);
    assert.equal((await t.app.inject('/assets/000000000000/site.css')).statusCode, 404);
  });
});
