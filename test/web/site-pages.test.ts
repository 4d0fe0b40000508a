import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildTestApp, newAccount, password, type TestApp } from '../harness.ts';
import { Browser, csrfOf } from '../oauth/consent-helpers.ts';

/*
 * The site's front page and API reference, and the console's sign-up, over HTTP: the front page
 * in the visitor's language with its links; the reference's page, viewer and headers; a sign-up
 * makes a developer with a test restaurant and signs them in, every refusal is beside its field
 * and creates nothing, the form needs its CSRF token, and one address gets 10 tries an hour.
 */
let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

let addresses = 0;
/** A browser of its own address, so that each test starts under a fresh sign-up limit. */
const newBrowser = () => new Browser(t.app, `192.0.2.${++addresses}`);

const accountCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const restaurantCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('restaurants')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** The error beside a field of a page's form, as field.eta shows it. */
const fieldError = (body: string, field: string) =>
  new RegExp(`<p class="field-error" id="${field}-error">([^<]*)</p>`).exec(body)?.[1];

test('the front page says what Servery is and links to the console, dashboard, reference and OpenAPI document', async () => {
  const english = await t.app.inject({ method: 'GET', url: '/' });
  assert.equal(english.statusCode, 200);
  assert.match(english.headers['content-type'] as string, /^text\/html/);
  assert.match(english.headers['content-security-policy'] as string, /default-src 'none'; style-src 'self'/);
  assert.match(english.body, /<html lang="en">/);
  assert.match(english.body, /Servery is an open-source ordering platform for restaurants/);
  for (const [href, text] of [
    ['/console', 'Developer console'],
    ['/console/sign-up', 'New here? Create a developer account'],
    ['/dashboard', 'Restaurant dashboard'],
    ['/docs', 'API reference'],
    ['/v1/openapi.json', 'OpenAPI document'],
  ]) {
    assert.ok(english.body.includes(`<a href="${href}">${text}</a>`), `link to ${href}`);
  }
  assert.ok(english.body.includes('<a href="/?lang=de" hreflang="de" lang="de">Deutsch</a>'));

  const german = await t.app.inject({ method: 'GET', url: '/?lang=de' });
  assert.equal(german.statusCode, 200);
  assert.match(german.body, /<html lang="de">/);
  assert.match(german.body, /Servery ist eine quelloffene Bestellplattform für Restaurants/);
  assert.ok(german.body.includes('<a href="/console">Entwicklerkonsole</a>'));
  assert.ok(german.body.includes('<a href="/docs">API-Referenz</a>'));
  // The footer's link keeps the language for the next pages, and the browser's own is used without one.
  const kept = german.cookies.find((cookie) => cookie.name === 'servery_lang');
  assert.equal(kept?.value, 'de');
  const french = await t.app.inject({
    method: 'GET',
    url: '/',
    headers: { 'accept-language': 'fr-CH, en;q=0.5' },
  });
  assert.match(french.body, /Servery est une plateforme de commande open source/);
});

test('the API reference: Redoc over the served document, from our host only', async () => {
  const page = await t.app.inject({ method: 'GET', url: '/docs' });
  assert.equal(page.statusCode, 200);
  const csp = page.headers['content-security-policy'] as string;
  assert.equal(
    csp,
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
      "font-src 'self'; connect-src 'self'; worker-src blob:; form-action 'self'; frame-ancestors 'none'; " +
      "base-uri 'none'",
  );
  assert.equal(page.headers['x-frame-options'], 'DENY');
  assert.equal(page.headers['x-content-type-options'], 'nosniff');
  assert.match(page.body, /<redoc spec-url="\/v1\/openapi.json"><\/redoc>/);
  assert.doesNotMatch(page.body, /https?:\/\//, 'nothing from another host');
  assert.doesNotMatch(page.body, /<script>/, 'no inline script');

  const viewer = /<script src="(\/docs\/redoc-[\d.]+\.js)"><\/script>/.exec(page.body)?.[1];
  assert.ok(viewer);
  const bundle = await t.app.inject({ method: 'GET', url: viewer });
  assert.equal(bundle.statusCode, 200);
  assert.match(bundle.headers['content-type'] as string, /^text\/javascript/);
  assert.match(bundle.headers['cache-control'] as string, /immutable/);
  assert.ok(bundle.body.length > 500_000);
  const document = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
  assert.equal(document.statusCode, 200);
  assert.ok(document.json().paths['/orders']);

  const german = await t.app.inject({ method: 'GET', url: '/docs?lang=de' });
  assert.match(german.body, /<title>API-Referenz · Servery<\/title>/);
});

test('the console’s sign-in page links to the sign-up; the dashboard’s does not', async () => {
  const console = await t.app.inject({ method: 'GET', url: '/console/sign-in' });
  assert.ok(console.body.includes('<a href="/console/sign-up">Create a developer account</a>'));
  const dashboard = await t.app.inject({ method: 'GET', url: '/dashboard/sign-in' });
  assert.equal(dashboard.statusCode, 200);
  assert.doesNotMatch(dashboard.body, /sign-up/);
});

test('a sign-up makes a developer with a pro test restaurant, signs them in and opens the console', async () => {
  const browser = newBrowser();
  const form = await browser.get('/console/sign-up');
  assert.equal(form.statusCode, 200);
  assert.match(form.body, /<h1>Create a developer account<\/h1>/);
  const done = await browser.post('/console/sign-up', {
    _csrf: csrfOf(form),
    lang: 'en',
    email: ' Ada@Dev.Example.test ',
    name: ' Ada Lovelace ',
    password: 'analytical engine',
  });
  assert.equal(done.statusCode, 303);
  assert.equal(done.headers.location, '/console');

  const account = await t.database.db
    .selectFrom('accounts')
    .select(['id', 'email', 'name', 'developer'])
    .where('email', '=', 'Ada@Dev.Example.test')
    .executeTakeFirstOrThrow();
  assert.deepEqual(
    { ...account, id: undefined },
    {
      id: undefined,
      email: 'Ada@Dev.Example.test',
      name: 'Ada Lovelace',
      developer: true,
    },
  );
  const restaurant = await t.database.db
    .selectFrom('restaurants as r')
    .innerJoin('restaurant_members as m', 'm.tenant_id', 'r.id')
    .select(['r.name', 'r.livemode', 'r.plan', 'r.timezone', 'm.role'])
    .where('m.account_id', '=', account.id)
    .executeTakeFirstOrThrow();
  assert.deepEqual(restaurant, {
    name: 'Ada Lovelace Test Restaurant',
    livemode: false,
    plan: 'pro',
    timezone: 'Europe/Berlin',
    role: 'owner',
  });

  const home = await browser.get('/console');
  assert.equal(home.statusCode, 200);
  assert.ok(home.body.includes('Ada Lovelace Test Restaurant'));
  // Signed in, the sign-up page sends the developer to the console.
  const again = await browser.get('/console/sign-up');
  assert.equal(again.statusCode, 303);
  assert.equal(again.headers.location, '/console');
  // The password chosen works for signing in again.
  const signIn = await t.app.inject({
    method: 'POST',
    url: '/console/api/sessions',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ email: 'ada@dev.example.test', password: 'analytical engine' }),
  });
  assert.equal(signIn.statusCode, 200);
});

test('every refusal is beside its field, keeps what was typed but the password, and creates nothing', async () => {
  const taken = await newAccount(t, false);
  const browser = newBrowser();
  const form = await browser.get('/console/sign-up');
  const accounts = await accountCount();
  const restaurants = await restaurantCount();
  const cases: [Record<string, string>, string, string][] = [
    [{ email: 'not an address' }, 'email', 'Enter an e-mail address like name@example.com.'],
    [{ email: '' }, 'email', 'Enter an e-mail address like name@example.com.'],
    [{ email: `${'a'.repeat(190)}@example.test` }, 'email', 'Enter an e-mail address like name@example.com.'],
    [{ password: 'too short' }, 'password', 'Choose a password of 10 to 1,000 characters.'],
    [{ password: 'x'.repeat(1001) }, 'password', 'Choose a password of 10 to 1,000 characters.'],
    [{ name: 'N'.repeat(101) }, 'name', 'The name can have at most 100 characters.'],
    [
      { email: taken.email.toUpperCase() },
      'email',
      'An account with this e-mail address exists already: sign in instead.',
    ],
  ];
  for (const [fields, field, message] of cases) {
    const input = {
      email: 'grace@dev.example.test',
      name: 'Grace',
      password: 'long enough password',
      ...fields,
    };
    const page = await browser.post('/console/sign-up', { _csrf: csrfOf(form), lang: 'en', ...input });
    assert.equal(page.statusCode, 400, JSON.stringify(fields));
    assert.equal(fieldError(page.body, field), message);
    assert.ok(page.body.includes(`<a href="#${field}">${message}</a>`), 'in the summary');
    assert.match(page.body, new RegExp(`id="${field}" name="${field}"[^>]* aria-invalid="true"`));
    assert.ok(page.body.includes(`value="${input.email.replaceAll('"', '&quot;')}"`), 'the e-mail is kept');
    assert.doesNotMatch(page.body, /name="password"[^>]*value=/, 'the password is not sent back');
  }
  assert.equal(await accountCount(), accounts);
  assert.equal(await restaurantCount(), restaurants);
  assert.equal(browser.cookies.has('servery_console_session'), false);

  // In German, the refusal is German.
  const german = await browser.post('/console/sign-up', {
    _csrf: csrfOf(form),
    lang: 'de',
    email: 'grace@dev.example.test',
    password: 'kurz',
  });
  assert.equal(fieldError(german.body, 'password'), 'Wählen Sie ein Passwort mit 10 bis 1.000 Zeichen.');
});

test('two sign-ups with one e-mail at once: one account, the other is told the address is taken', async () => {
  const first = newBrowser();
  const second = newBrowser();
  const [a, b] = await Promise.all([first.get('/console/sign-up'), second.get('/console/sign-up')]);
  const input = { lang: 'en', password: 'long enough password' };
  const answers = await Promise.all([
    first.post('/console/sign-up', { ...input, _csrf: csrfOf(a), email: 'twice@dev.example.test' }),
    second.post('/console/sign-up', { ...input, _csrf: csrfOf(b), email: 'TWICE@dev.example.test' }),
  ]);
  assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [303, 400]);
  const refused = answers.find((answer) => answer.statusCode === 400);
  assert.equal(
    fieldError(refused?.body ?? '', 'email'),
    'An account with this e-mail address exists already: sign in instead.',
  );
  const accounts = await t.database.db
    .selectFrom('accounts')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', 'twice@dev.example.test'))
    .execute();
  assert.equal(accounts.length, 1);
});

test('a sign-up without its CSRF token is refused and creates nothing', async () => {
  const browser = newBrowser();
  await browser.get('/console/sign-up');
  const accounts = await accountCount();
  const input = { lang: 'en', email: 'mallory@dev.example.test', password: 'long enough password' };
  const without = await browser.post('/console/sign-up', input);
  assert.equal(without.statusCode, 403);
  const wrong = await browser.post('/console/sign-up', { ...input, _csrf: 'forged' });
  assert.equal(wrong.statusCode, 403);
  // Another browser's token with this browser's cookie is refused too.
  const other = newBrowser();
  const otherForm = await other.get('/console/sign-up');
  const mixed = await browser.post('/console/sign-up', { ...input, _csrf: csrfOf(otherForm) });
  assert.equal(mixed.statusCode, 403);
  assert.equal(await accountCount(), accounts);
});

test('one address gets 10 sign-ups an hour, refused or not; then 429 with Retry-After, and nothing created', async () => {
  const address = `192.0.2.${++addresses}`;
  const browser = new Browser(t.app, address);
  const token = csrfOf(await browser.get('/console/sign-up'));
  for (let n = 1; n <= 9; n += 1) {
    const refused = await browser.post('/console/sign-up', { _csrf: token, email: 'x', password });
    assert.equal(refused.statusCode, 400);
  }
  const tenth = await browser.post('/console/sign-up', {
    _csrf: token,
    email: 'tenth@dev.example.test',
    password,
  });
  assert.equal(tenth.statusCode, 303);

  const next = new Browser(t.app, address);
  const accounts = await accountCount();
  const limited = await next.post('/console/sign-up', {
    _csrf: csrfOf(await next.get('/console/sign-up')),
    email: 'eleventh@dev.example.test',
    password,
  });
  assert.equal(limited.statusCode, 429);
  const retryAfter = Number(limited.headers['retry-after']);
  assert.ok(retryAfter > 3000 && retryAfter <= 3600, `Retry-After ${retryAfter}`);
  assert.match(limited.body, /Too many sign-ups from your network\. Try again in (59|60) minutes\./);
  assert.ok(limited.body.includes('value="eleventh@dev.example.test"'));
  assert.equal(await accountCount(), accounts);

  // Another address is not limited.
  const elsewhere = newBrowser();
  const fine = await elsewhere.post('/console/sign-up', {
    _csrf: csrfOf(await elsewhere.get('/console/sign-up')),
    email: 'elsewhere@dev.example.test',
    password,
  });
  assert.equal(fine.statusCode, 303);
});
