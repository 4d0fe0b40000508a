import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import { buildApp } from '../../src/app.ts';
import { createApp } from '../../src/domain/apps/apps.service.ts';
import { InputError } from '../../src/domain/shared/errors.ts';
import { sha256 } from '../../src/domain/shared/ids.ts';
import { withSecondFactor } from '../accounts/second-factor-helpers.ts';
import { capturedLogger } from '../captured-logs.ts';
import { buildTestApp, type TestApp, testBaseUrl } from '../harness.ts';
import {
  authorizeQuery,
  Browser,
  csrfOf,
  decide,
  makeAccount,
  makeApp,
  makeRestaurant,
  offeredRestaurants,
  redirectOf,
  signIn,
} from './consent-helpers.ts';
import { pkce } from './oauth-helpers.ts';

let t: TestApp;
let w: World;
before(async () => {
  t = await buildTestApp();
  w = await world();
});
after(() => t.close());

const https = 'https://app.example.test/callback';
const loopback = 'http://127.0.0.1/callback';
const custom = 'com.example.pos:/callback';

interface World {
  developer: { id: string; email: string };
  owner: { id: string; email: string };
  testRestaurant: { id: string; name: string };
  developersLive: { id: string; name: string };
  ownersRestaurant: { id: string; name: string };
  staffedRestaurant: { id: string; name: string };
  app: { id: string; clientId: string };
}

/*
 * A developer with a test restaurant and a live one; an owner of a restaurant who is staff at
 * another; an approved confidential app of the developer with an https, a loopback and a
 * custom-scheme redirect URI.
 */
async function world(): Promise<World> {
  const developer = await makeAccount(t.ctx, { developer: true });
  const owner = await makeAccount(t.ctx);
  const someoneElse = await makeAccount(t.ctx);
  const staffedRestaurant = await makeRestaurant(t.ctx, [someoneElse.id]);
  await t.database.db
    .insertInto('restaurant_members')
    .values({
      tenant_id: staffedRestaurant.id,
      account_id: owner.id,
      role: 'staff',
      created_at: t.clock.now(),
    })
    .execute();
  return {
    developer,
    owner,
    testRestaurant: await makeRestaurant(t.ctx, [developer.id], { livemode: false }),
    developersLive: await makeRestaurant(t.ctx, [developer.id]),
    ownersRestaurant: await makeRestaurant(t.ctx, [owner.id]),
    staffedRestaurant,
    app: await makeApp(t.ctx, developer.id, { redirectUris: [https, loopback, custom] }),
  };
}

const challenge = pkce().challenge;

/** A valid authorization request for the world's app, with changes. */
function query(changes: Record<string, string | undefined> = {}, clientId = w.app.clientId): string {
  return authorizeQuery({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: https,
    state: 'st-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...changes,
  });
}

function assertErrorPage(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  status = 400,
) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.headers.location, undefined);
  assert.match(String(res.headers['content-type']), /^text\/html/);
  assert.match(res.body, /The connection cannot continue/);
}

/** An error on the redirect: always with state (as sent) and iss. */
function assertErrorRedirect(
  res: Parameters<typeof redirectOf>[0],
  error: string,
  options: { to?: string; state?: string | null } = {},
) {
  const { to, params } = redirectOf(res);
  assert.equal(to, options.to ?? https);
  assert.equal(params.error, error);
  assert.ok(params.error_description);
  assert.equal(params.iss, testBaseUrl);
  if (options.state === null) assert.equal(params.state, undefined);
  else assert.equal(params.state, options.state ?? 'st-123');
  assert.equal(params.code, undefined);
}

const connectionsOf = (tenantId: string, appId: string) =>
  t.database.db
    .selectFrom('connections')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('app_id', '=', appId)
    .where('ended_at', 'is', null)
    .execute();

describe('requests answered with an error page, never a redirect', () => {
  test('unknown or missing client_id', async () => {
    assertErrorPage(await t.app.inject(`/oauth/authorize?${query({}, 'svc_app_nobody')}`));
    assertErrorPage(await t.app.inject(`/oauth/authorize?${query({ client_id: undefined })}`));
  });

  test('a redirect_uri not registered, compared character by character', async () => {
    for (const redirect_uri of [
      undefined,
      'https://evil.example.test/callback',
      'https://app.example.test/callback/',
      'https://APP.example.test/callback',
      'https://app.example.test/callback?x=1',
      'https://app.example.test:443/callback',
      'https://app.example.test/Callback',
      'com.example.pos:/callback/',
    ]) {
      assertErrorPage(await t.app.inject(`/oauth/authorize?${query({ redirect_uri })}`));
    }
  });

  test('only the port of a loopback redirect may differ', async () => {
    for (const redirect_uri of ['http://127.0.0.1:49152/callback', 'http://127.0.0.1:1/callback', loopback]) {
      const res = await t.app.inject(`/oauth/authorize?${query({ redirect_uri })}`);
      assert.equal(res.statusCode, 200, `${redirect_uri}: ${res.body}`);
      assert.match(res.body, /Sign in to connect/);
    }
    for (const redirect_uri of [
      'http://127.0.0.1:49152/other',
      'http://127.0.0.1:49152/callback/',
      'http://localhost:49152/callback',
      'http://127.0.0.1:99999/callback',
      'http://127.0.0.1:49152@evil.example.test/callback',
      'https://127.0.0.1:49152/callback',
    ]) {
      assertErrorPage(await t.app.inject(`/oauth/authorize?${query({ redirect_uri })}`));
    }
  });

  test('a repeated parameter, even a harmless one', async () => {
    const base = query();
    for (const extra of ['state=again', `client_id=${w.app.clientId}`, 'scope=orders:read&scope=menu:read']) {
      assertErrorPage(await t.app.inject(`/oauth/authorize?${base}&${extra}`));
    }
  });

  test('a suspended or rejected app: an error page for valid and invalid requests, also for its developer', async () => {
    for (const status of ['suspended', 'rejected'] as const) {
      const app = await makeApp(t.ctx, w.developer.id, { status, redirectUris: [https] });
      assertErrorPage(await t.app.inject(`/oauth/authorize?${query({}, app.clientId)}`));
      assertErrorPage(
        await t.app.inject(`/oauth/authorize?${query({ response_type: 'token' }, app.clientId)}`),
      );
      const browser = new Browser(t.app);
      const page = await browser.get(`/oauth/authorize?${query({}, w.app.clientId)}`);
      await browser.post(`/oauth/authorize/sign-in?${query({}, w.app.clientId)}`, {
        _csrf: csrfOf(page),
        email: w.developer.email,
        password: 'correct horse battery staple',
      });
      assertErrorPage(await browser.get(`/oauth/authorize?${query({}, app.clientId)}`));
      assertErrorPage(await browser.get(`/oauth/authorize?${query({ state: undefined }, app.clientId)}`));
    }
  });
});

describe('errors redirected to an approved app, with error_description, state and iss', () => {
  const cases: [string, Record<string, string | undefined>, string][] = [
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['response_type missing', { response_type: undefined }, 'invalid_request'],
    ['state over 500 characters', { state: 'x'.repeat(501) }, 'invalid_request'],
    ['code_challenge missing', { code_challenge: undefined }, 'invalid_request'],
    ['code_challenge of 42 characters', { code_challenge: challenge.slice(1) }, 'invalid_request'],
    ['code_challenge not base64url', { code_challenge: `${challenge.slice(1)}=` }, 'invalid_request'],
    ['code_challenge_method missing', { code_challenge_method: undefined }, 'invalid_request'],
    ['code_challenge_method plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['an unknown scope', { scope: 'orders:read orders:delete' }, 'invalid_scope'],
    ['a scope the app did not register', { scope: 'orders:read reports:read' }, 'invalid_scope'],
    ['an empty scope', { scope: '' }, 'invalid_scope'],
  ];
  for (const [name, changes, error] of cases) {
    test(`${name} → ${error}`, async () => {
      const res = await t.app.inject(`/oauth/authorize?${query(changes)}`);
      assertErrorRedirect(res, error, { state: changes.state ?? 'st-123' });
    });
  }

  test('state missing → invalid_request, without state', async () => {
    assertErrorRedirect(
      await t.app.inject(`/oauth/authorize?${query({ state: undefined })}`),
      'invalid_request',
      {
        state: null,
      },
    );
  });

  test('the redirect keeps the query of the registered URI and the loopback port of the request', async () => {
    const app = await makeApp(t.ctx, w.developer.id, {
      redirectUris: ['https://app.example.test/cb?tenant=a%20b', loopback],
    });
    const res = await t.app.inject(
      `/oauth/authorize?${query({ redirect_uri: 'https://app.example.test/cb?tenant=a%20b', response_type: 'x' }, app.clientId)}`,
    );
    assert.match(String(res.headers.location), /^https:\/\/app\.example\.test\/cb\?tenant=a%20b&error=/);
    const port = await t.app.inject(
      `/oauth/authorize?${query({ redirect_uri: 'http://127.0.0.1:5050/callback', response_type: 'x' }, app.clientId)}`,
    );
    assertErrorRedirect(port, 'unsupported_response_type', { to: 'http://127.0.0.1:5050/callback' });
  });

  test('a pending app: an error page, unless its developer is signed in', async () => {
    const app = await makeApp(t.ctx, w.developer.id, { status: 'pending', redirectUris: [https] });
    const bad = query({ response_type: 'token' }, app.clientId);
    assertErrorPage(await t.app.inject(`/oauth/authorize?${bad}`));

    const owner = new Browser(t.app);
    await signIn(owner, query({}, app.clientId), w.owner.email);
    assertErrorPage(await owner.get(`/oauth/authorize?${bad}`));

    const developer = new Browser(t.app);
    await signIn(developer, query({}, app.clientId), w.developer.email);
    assertErrorRedirect(await developer.get(`/oauth/authorize?${bad}`), 'unsupported_response_type');
  });
});

describe('signing in', () => {
  test('sign-in page, then the consent page with the app, its scopes in plain words and the restaurants', async () => {
    const browser = new Browser(t.app);
    const first = await browser.get(`/oauth/authorize?${query()}`);
    assert.equal(first.statusCode, 200);
    assert.match(first.body, /<label for="email">/);
    assert.match(first.body, /autocomplete="current-password"/);
    assert.match(first.body, /<a href="\/dashboard\/forgot-password">Forgot your password\?<\/a>/);

    const signedIn = await signIn(browser, query(), w.owner.email);
    assert.equal(signedIn.statusCode, 303);
    assert.equal(signedIn.headers.location, `/oauth/authorize?${query()}`);

    const page = await browser.get(`/oauth/authorize?${query()}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Connect App .* to your restaurant/);
    assert.match(page.body, /<img src="https:\/\/app\.example\.test\/logo\.png"/);
    assert.match(page.body, /href="https:\/\/app\.example\.test\/"/);
    for (const words of ['see your orders', 'see your menu', 'see your store settings'])
      assert.ok(page.body.includes(words));
    assert.deepEqual(offeredRestaurants(page), [w.ownersRestaurant.id]);
    assert.match(page.body, new RegExp(`Signed in as ${w.owner.email.replaceAll('.', '\\.')}`));
  });

  test('a wrong password or an unknown e-mail: the same message, no session', async () => {
    for (const [email, secret] of [
      [w.owner.email, 'wrong password!'],
      ['nobody@example.test', 'correct horse battery staple'],
    ] as const) {
      const browser = new Browser(t.app, '10.1.0.1');
      const res = await signIn(browser, query(), email, secret);
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /The e-mail address or the password is not right/);
      assert.equal(browser.cookies.has('servery_session'), false);
    }
  });

  test('the session cookie: HttpOnly, SameSite=Lax, not Secure over http; only its hash is stored', async () => {
    const browser = new Browser(t.app);
    const res = await signIn(browser, query(), w.owner.email);
    const cookie = String(
      ([] as string[])
        .concat(res.headers['set-cookie'] as string[])
        .find((c) => c.startsWith('servery_session=')),
    );
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Lax/);
    assert.match(cookie, /; Path=\//);
    assert.doesNotMatch(cookie, /Secure/);
    const token = browser.cookies.get('servery_session') as string;
    const stored = await t.database.db
      .selectFrom('sessions')
      .select('id_hash')
      .where('id_hash', '=', sha256(token))
      .execute();
    assert.equal(stored.length, 1);
    const plain = await t.database.db
      .selectFrom('sessions')
      .select('id_hash')
      .where('id_hash', '=', token)
      .execute();
    assert.equal(plain.length, 0);
  });

  test('with an https auth_url, the session and CSRF cookies are Secure', async () => {
    const secureApp = await buildApp({
      config: { baseUrl: testBaseUrl, authUrl: 'https://auth.servery.test' },
      db: t.database.db,
      clock: t.clock,
    });
    try {
      const browser = new Browser(secureApp);
      const page = await browser.get(`/oauth/authorize?${query()}`);
      assert.match(String(page.headers['set-cookie']), /servery_csrf=.*; Secure/);
      const res = await browser.post(`/oauth/authorize/sign-in?${query()}`, {
        _csrf: csrfOf(page),
        email: w.owner.email,
        password: 'correct horse battery staple',
      });
      assert.match(String(res.headers['set-cookie']), /servery_session=.*; HttpOnly; Secure; SameSite=Lax/);
    } finally {
      await secureApp.close();
    }
  });

  test('signing out ends the session', async () => {
    const browser = new Browser(t.app);
    await signIn(browser, query(), w.owner.email);
    const token = browser.cookies.get('servery_session') as string;
    const page = await browser.get(`/oauth/authorize?${query()}`);
    const out = await browser.post(`/oauth/authorize/sign-out?${query()}`, { _csrf: csrfOf(page) });
    assert.equal(out.statusCode, 303);
    assert.equal(browser.cookies.has('servery_session'), false);
    const stored = await t.database.db
      .selectFrom('sessions')
      .select('id_hash')
      .where('id_hash', '=', sha256(token))
      .execute();
    assert.equal(stored.length, 0);
    // The old cookie, sent again, signs in no one.
    const again = await t.app.inject({
      url: `/oauth/authorize?${query()}`,
      headers: { cookie: `servery_session=${token}` },
    });
    assert.match(again.body, /Sign in to connect/);
  });

  test('a session ends after 12 hours', async () => {
    const browser = new Browser(t.app);
    await signIn(browser, query(), w.owner.email);
    t.clock.advance(12 * 60 * 60 * 1000 - 1000);
    assert.match((await browser.get(`/oauth/authorize?${query()}`)).body, /Connect App/);
    t.clock.advance(1000);
    assert.match((await browser.get(`/oauth/authorize?${query()}`)).body, /Sign in to connect/);
  });

  test('10 failed sign-ins per e-mail and address in 15 minutes, then a clear refusal even with the right password', async () => {
    const target = await makeAccount(t.ctx);
    const browser = new Browser(t.app, '10.2.0.1');
    for (let i = 0; i < 10; i++) {
      const res = await signIn(browser, query(), target.email, `wrong password ${i}`);
      assert.equal(res.statusCode, 400, `attempt ${i + 1}`);
    }
    const refused = await signIn(browser, query(), target.email);
    assert.equal(refused.statusCode, 429);
    assert.match(refused.body, /Too many failed sign-ins. Try again in 15 minutes/);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(browser.cookies.has('servery_session'), false);
    // Another address is not blocked.
    const elsewhere = await signIn(new Browser(t.app, '10.2.0.2'), query(), target.email);
    assert.equal(elsewhere.statusCode, 303);
  });
});

describe('second factor (TOTP)', () => {
  const codeAt = (secret: string, at: Date) =>
    new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at.getTime() });

  test('an account with a second factor gives its code before the consent page; a code works once', async () => {
    const account = await makeAccount(t.ctx);
    const restaurant = await makeRestaurant(t.ctx, [account.id]);
    const { secret, uri } = await withSecondFactor(t.ctx, account.id);
    assert.match(uri, /^otpauth:\/\/totp\/Servery:/);

    const browser = new Browser(t.app);
    await signIn(browser, query(), account.email);
    const pending = await browser.get(`/oauth/authorize?${query()}`);
    assert.match(pending.body, /Enter your code/);
    assert.match(pending.body, /autocomplete="one-time-code"/);

    // Nothing can be connected before the code.
    const early = await browser.post(`/oauth/authorize/consent?${query()}`, {
      _csrf: csrfOf(pending),
      decision: 'connect',
      restaurant: restaurant.id,
    });
    assert.equal(early.headers.location, `/oauth/authorize?${query()}`);
    assert.equal((await connectionsOf(restaurant.id, w.app.id)).length, 0);

    const wrong = await browser.post(`/oauth/authorize/second-factor?${query()}`, {
      _csrf: csrfOf(pending),
      code: '000000',
    });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /That code is not right/);

    const code = codeAt(secret, t.clock.now());
    const right = await browser.post(`/oauth/authorize/second-factor?${query()}`, {
      _csrf: csrfOf(pending),
      code,
    });
    assert.equal(right.statusCode, 303);
    const consent = await browser.get(`/oauth/authorize?${query()}`);
    assert.deepEqual(offeredRestaurants(consent), [restaurant.id]);

    // The same code again (another sign-in) is refused.
    const other = new Browser(t.app);
    await signIn(other, query(), account.email);
    const page = await other.get(`/oauth/authorize?${query()}`);
    const replay = await other.post(`/oauth/authorize/second-factor?${query()}`, {
      _csrf: csrfOf(page),
      code,
    });
    assert.equal(replay.statusCode, 400);
    // The next one is taken.
    t.clock.advance(30_000);
    const next = await other.post(`/oauth/authorize/second-factor?${query()}`, {
      _csrf: csrfOf(page),
      code: codeAt(secret, t.clock.now()),
    });
    assert.equal(next.statusCode, 303);
  });

  test('a pending sign-in expires after 10 minutes', async () => {
    const account = await makeAccount(t.ctx);
    await withSecondFactor(t.ctx, account.id);
    const browser = new Browser(t.app);
    await signIn(browser, query(), account.email);
    t.clock.advance(10 * 60 * 1000);
    assert.match((await browser.get(`/oauth/authorize?${query()}`)).body, /Sign in to connect/);
  });

  test('wrong codes count as failed sign-ins', async () => {
    const account = await makeAccount(t.ctx);
    const { secret } = await withSecondFactor(t.ctx, account.id);
    const browser = new Browser(t.app, '10.3.0.1');
    await signIn(browser, query(), account.email);
    const page = await browser.get(`/oauth/authorize?${query()}`);
    for (let i = 0; i < 10; i++) {
      const res = await browser.post(`/oauth/authorize/second-factor?${query()}`, {
        _csrf: csrfOf(page),
        code: '000000',
      });
      assert.equal(res.statusCode, 400);
    }
    const refused = await browser.post(`/oauth/authorize/second-factor?${query()}`, {
      _csrf: csrfOf(page),
      code: codeAt(secret, t.clock.now()),
    });
    assert.equal(refused.statusCode, 429);
    assert.match(refused.body, /Too many failed sign-ins/);
  });
});

describe('CSRF', () => {
  test('a form without its token, or with a token of another browser, is refused and changes nothing', async () => {
    const browser = new Browser(t.app);
    const noToken = await browser.post(`/oauth/authorize/sign-in?${query()}`, {
      email: w.owner.email,
      password: 'correct horse battery staple',
    });
    assert.equal(noToken.statusCode, 403);
    assert.match(noToken.body, /This form has expired/);
    assert.equal(browser.cookies.has('servery_session'), false);

    const attacker = new Browser(t.app);
    const attackersPage = await attacker.get(`/oauth/authorize?${query()}`);
    await browser.get(`/oauth/authorize?${query()}`);
    const foreign = await browser.post(`/oauth/authorize/sign-in?${query()}`, {
      _csrf: csrfOf(attackersPage),
      email: w.owner.email,
      password: 'correct horse battery staple',
    });
    assert.equal(foreign.statusCode, 403);

    await signIn(browser, query(), w.owner.email);
    const consent = await browser.post(`/oauth/authorize/consent?${query()}`, {
      decision: 'connect',
      restaurant: w.ownersRestaurant.id,
    });
    assert.equal(consent.statusCode, 403);
    assert.equal((await connectionsOf(w.ownersRestaurant.id, w.app.id)).length, 0);
  });
});

describe('connecting', () => {
  test('Connect: consent and code in one go, redirect with code, state and iss', async () => {
    const owner = await makeAccount(t.ctx);
    const restaurant = await makeRestaurant(t.ctx, [owner.id]);
    const browser = new Browser(t.app);
    await signIn(browser, query(), owner.email);
    const res = await decide(browser, query(), 'connect', restaurant.id);
    const { to, params } = redirectOf(res);
    assert.equal(to, https);
    assert.match(params.code ?? '', /^svc_ac_/);
    assert.equal(params.state, 'st-123');
    assert.equal(params.iss, testBaseUrl);
    assert.equal(params.error, undefined);

    const [connection] = await connectionsOf(restaurant.id, w.app.id);
    assert.deepEqual(connection?.scopes, ['orders:read', 'menu:read', 'store:read']);
    const code = await t.database.db
      .selectFrom('authorization_codes')
      .selectAll()
      .where('code_hash', '=', sha256(params.code as string))
      .executeTakeFirstOrThrow();
    assert.equal(code.connection_id, connection?.id);
    assert.equal(code.redirect_uri, https);
    assert.equal(code.code_challenge, challenge);
    const events = await t.database.db
      .selectFrom('events')
      .select('type')
      .where('tenant_id', '=', restaurant.id)
      .execute();
    assert.deepEqual(
      events.map((e) => e.type),
      ['app.connected'],
    );
  });

  test('Cancel → access_denied with state and iss; nothing connected', async () => {
    const owner = await makeAccount(t.ctx);
    const restaurant = await makeRestaurant(t.ctx, [owner.id]);
    const browser = new Browser(t.app);
    await signIn(browser, query(), owner.email);
    assertErrorRedirect(await decide(browser, query(), 'cancel'), 'access_denied');
    assert.equal((await connectionsOf(restaurant.id, w.app.id)).length, 0);
  });

  test('scope: by default all the app registered; a narrower request connects only those', async () => {
    const owner = await makeAccount(t.ctx);
    const restaurant = await makeRestaurant(t.ctx, [owner.id]);
    const browser = new Browser(t.app);
    const narrow = query({ scope: 'orders:read' });
    await signIn(browser, narrow, owner.email);
    const page = await browser.get(`/oauth/authorize?${narrow}`);
    assert.ok(page.body.includes('see your orders'));
    assert.ok(!page.body.includes('see your menu'));
    redirectOf(await decide(browser, narrow, 'connect', restaurant.id));
    assert.deepEqual((await connectionsOf(restaurant.id, w.app.id))[0]?.scopes, ['orders:read']);

    // Connecting again with the default replaces the scopes with all of the app's.
    redirectOf(await decide(browser, query(), 'connect', restaurant.id));
    assert.deepEqual((await connectionsOf(restaurant.id, w.app.id))[0]?.scopes, [
      'orders:read',
      'menu:read',
      'store:read',
    ]);
  });

  test('only owners: staff of a restaurant, or an owner naming another restaurant, get access_denied', async () => {
    const browser = new Browser(t.app);
    await signIn(browser, query(), w.owner.email);
    const page = await browser.get(`/oauth/authorize?${query()}`);
    assert.ok(!offeredRestaurants(page).includes(w.staffedRestaurant.id));
    for (const restaurantId of [w.staffedRestaurant.id, w.developersLive.id, 'not-a-uuid']) {
      assertErrorRedirect(await decide(browser, query(), 'connect', restaurantId), 'access_denied');
      if (restaurantId !== 'not-a-uuid')
        assert.equal((await connectionsOf(restaurantId, w.app.id)).length, 0);
    }
    assertErrorRedirect(await decide(browser, query(), 'connect'), 'access_denied');
  });

  test('an account owning no restaurant is told so and can only go back', async () => {
    const nobody = await makeAccount(t.ctx);
    const browser = new Browser(t.app);
    await signIn(browser, query(), nobody.email);
    const page = await browser.get(`/oauth/authorize?${query()}`);
    assert.match(page.body, /You have no restaurant this app can be connected to/);
    assert.deepEqual(offeredRestaurants(page), []);
    assertErrorRedirect(await decide(browser, query(), 'cancel'), 'access_denied');
  });

  test('before approval only the developer connects: to their test restaurant or restaurants they own', async () => {
    const app = await makeApp(t.ctx, w.developer.id, { status: 'pending', redirectUris: [https] });
    const pendingQuery = query({}, app.clientId);

    const owner = new Browser(t.app);
    await signIn(owner, pendingQuery, w.owner.email);
    assertErrorPage(await owner.get(`/oauth/authorize?${pendingQuery}`), 403);
    const forced = await owner.post(`/oauth/authorize/consent?${pendingQuery}`, {
      _csrf: csrfOf(await owner.get(`/oauth/authorize?${query()}`)),
      decision: 'connect',
      restaurant: w.ownersRestaurant.id,
    });
    assertErrorPage(forced, 403);
    assert.equal((await connectionsOf(w.ownersRestaurant.id, app.id)).length, 0);

    const developer = new Browser(t.app);
    await signIn(developer, pendingQuery, w.developer.email);
    const page = await developer.get(`/oauth/authorize?${pendingQuery}`);
    assert.deepEqual(new Set(offeredRestaurants(page)), new Set([w.testRestaurant.id, w.developersLive.id]));
    assert.match(page.body, /not approved yet/);
    const { params } = redirectOf(await decide(developer, pendingQuery, 'connect', w.developersLive.id));
    assert.match(params.code ?? '', /^svc_ac_/);
    assert.equal(params.iss, testBaseUrl);
    assert.equal(params.state, 'st-123');
  });

  test('a confidential app with a loopback or custom-scheme redirect: only the developer’s test restaurant', async () => {
    for (const redirect_uri of ['http://127.0.0.1:40000/callback', custom]) {
      const testQuery = query({ redirect_uri });
      const developer = new Browser(t.app);
      await signIn(developer, testQuery, w.developer.email);
      const page = await developer.get(`/oauth/authorize?${testQuery}`);
      assert.deepEqual(offeredRestaurants(page), [w.testRestaurant.id]);
      assert.match(page.body, /only to its developer’s test restaurant/);
      assertErrorRedirect(
        await decide(developer, testQuery, 'connect', w.developersLive.id),
        'access_denied',
        {
          to: redirect_uri,
        },
      );
      const { to, params } = redirectOf(await decide(developer, testQuery, 'connect', w.testRestaurant.id));
      assert.equal(to, redirect_uri);
      assert.match(params.code ?? '', /^svc_ac_/);

      const owner = new Browser(t.app);
      await signIn(owner, testQuery, w.owner.email);
      assert.deepEqual(offeredRestaurants(await owner.get(`/oauth/authorize?${testQuery}`)), []);
      assertErrorRedirect(await decide(owner, testQuery, 'connect', w.ownersRestaurant.id), 'access_denied', {
        to: redirect_uri,
      });
    }
    // The same app over https offers the developer both restaurants.
    const developer = new Browser(t.app);
    await signIn(developer, query(), w.developer.email);
    assert.equal(offeredRestaurants(await developer.get(`/oauth/authorize?${query()}`)).length, 2);
  });

  test('a public app with a loopback redirect connects to any restaurant its owner owns', async () => {
    const app = await makeApp(t.ctx, w.developer.id, { type: 'public', redirectUris: [loopback] });
    const publicQuery = query({ redirect_uri: 'http://127.0.0.1:61000/callback' }, app.clientId);
    const owner = new Browser(t.app);
    await signIn(owner, publicQuery, w.owner.email);
    const { to, params } = redirectOf(await decide(owner, publicQuery, 'connect', w.ownersRestaurant.id));
    assert.equal(to, 'http://127.0.0.1:61000/callback');
    assert.match(params.code ?? '', /^svc_ac_/);
  });

  test('when the code cannot be saved, nothing is connected and the app gets server_error', async () => {
    const owner = await makeAccount(t.ctx);
    const restaurant = await makeRestaurant(t.ctx, [owner.id]);
    // The database refuses this restaurant's codes (a trigger): the failure comes after the consent.
    await sql
      .raw(
        `CREATE FUNCTION refuse_code() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`,
      )
      .execute(t.database.db);
    await sql
      .raw(`CREATE TRIGGER refuse_code BEFORE INSERT ON authorization_codes FOR EACH ROW
        WHEN (NEW.tenant_id = '${restaurant.id}') EXECUTE FUNCTION refuse_code()`)
      .execute(t.database.db);
    const browser = new Browser(t.app);
    await signIn(browser, query(), owner.email);
    assertErrorRedirect(await decide(browser, query(), 'connect', restaurant.id), 'server_error');
    assert.equal((await connectionsOf(restaurant.id, w.app.id)).length, 0);
    const events = await t.database.db
      .selectFrom('events')
      .select('id')
      .where('tenant_id', '=', restaurant.id)
      .execute();
    assert.equal(events.length, 0);
  });
});

describe('the pages', () => {
  test('escape what apps and accounts wrote, and are not framed, cached or scripted', async () => {
    const app = await makeApp(t.ctx, w.developer.id, {
      name: '<script>alert(1)</script> & "Co"',
      redirectUris: [https],
    });
    const res = await t.app.inject(`/oauth/authorize?${query({}, app.clientId)}`);
    assert.equal(res.statusCode, 200);
    assert.ok(!res.body.includes('<script>'));
    assert.ok(res.body.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;'));
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.match(
      String(res.headers['content-security-policy']),
      /default-src 'none'.*frame-ancestors 'none'/,
    );
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    // The form actions carry the request's query, escaped.
    assert.ok(
      res.body.includes(
        `action="/oauth/authorize/sign-in?${query({}, app.clientId).replaceAll('&', '&amp;')}"`,
      ),
    );
  });
});

describe('logs', () => {
  test('passwords, second-factor codes, sessions and authorization codes never reach the logs', async () => {
    const { logger, lines } = capturedLogger();
    const logged = await buildApp({
      config: { baseUrl: testBaseUrl },
      db: t.database.db,
      clock: t.clock,
      logger,
    });
    try {
      const account = await makeAccount(t.ctx);
      const restaurant = await makeRestaurant(t.ctx, [account.id]);
      const { secret } = await withSecondFactor(t.ctx, account.id);
      const browser = new Browser(logged);
      await signIn(browser, query(), account.email, 'a wrong password');
      await signIn(browser, query(), account.email);
      const page = await browser.get(`/oauth/authorize?${query()}`);
      const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({
        timestamp: t.clock.now().getTime(),
      });
      await browser.post(`/oauth/authorize/second-factor?${query()}`, {
        _csrf: csrfOf(page),
        code: '123456',
      });
      await browser.post(`/oauth/authorize/second-factor?${query()}`, { _csrf: csrfOf(page), code });
      const { params } = redirectOf(await decide(browser, query(), 'connect', restaurant.id));
      const output = lines.join('');
      assert.match(output, /oauth\/authorize/);
      // Six digits may occur by chance inside ids and timings: a code would be logged as a value.
      for (const digits of [code, '123456']) {
        assert.ok(!output.includes(`"${digits}"`) && !output.includes(`=${digits}`), `logged: ${digits}`);
      }
      for (const secretValue of [
        'correct horse battery staple',
        'a wrong password',
        browser.cookies.get('servery_session') as string,
        browser.cookies.get('servery_csrf') as string,
        params.code as string,
      ]) {
        assert.ok(!output.includes(secretValue), `logged: ${secretValue}`);
      }
    } finally {
      await logged.close();
    }
  });
});

describe('redirect URIs at registration', () => {
  const register = (redirectUris: string[], type: 'confidential' | 'public' = 'confidential') =>
    createApp(t.ctx, {
      developerId: w.developer.id,
      name: 'Registered',
      type,
      redirectUris,
      scopes: ['orders:read'],
    });

  test('the allowed forms, loopback and custom schemes for confidential apps too (limited at consent)', async () => {
    for (const uri of [https, loopback, 'http://localhost:8080/cb', 'http://[::1]/cb', custom]) {
      await register([uri]);
      await register([uri], 'public');
    }
    await register(Array.from({ length: 10 }, (_, i) => `https://app.example.test/${i}`));
  });

  test('refused: a fragment, credentials, plain http, a scheme without a dot, over 300 characters, over 10', async () => {
    for (const uris of [
      ['https://app.example.test/cb#x'],
      ['https://user:pw@app.example.test/cb'],
      ['http://app.example.test/cb'],
      ['myapp:/callback'],
      [`https://app.example.test/${'x'.repeat(276)}`],
      Array.from({ length: 11 }, (_, i) => `https://app.example.test/${i}`),
      [],
    ]) {
      await assert.rejects(register(uris), InputError, uris.join(' '));
    }
    await register([`https://app.example.test/${'x'.repeat(275)}`]);
  });
});
