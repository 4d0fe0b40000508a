import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { buildTestApp, call, json, newAccount, password, signInTo, type TestApp } from '../harness.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ config: { webhooksAllowInsecure: false } });
});
after(() => t.close());

const url = '/dashboard/api/account/second-factor';
const codeAt = (secret: string, at: Date) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at.getTime() });

async function signInNeedsCode(email: string): Promise<boolean> {
  const res = await call(t.app, 'POST', '/dashboard/api/sessions', null, { email, password });
  assert.equal(res.statusCode, 200, res.body);
  return json(res).second_factor_required;
}

test('an account sets up its second factor: in force only once a code confirms it; then sign-in asks for it', async () => {
  const account = await newAccount(t, false);
  const cookie = await signInTo(t.app, 'dashboard', account.email);
  assert.deepEqual(json(await call(t.app, 'GET', url, cookie)), { object: 'second_factor', enabled: false });

  const setup = await call(t.app, 'POST', url, cookie, {});
  assert.equal(setup.statusCode, 200, setup.body);
  const { secret, uri } = json(setup);
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.ok(uri.startsWith('otpauth://totp/Servery:'), uri);
  assert.ok(uri.includes(encodeURIComponent(account.email)), uri);
  assert.equal(await signInNeedsCode(account.email), false, 'not in force before it is confirmed');

  const wrong = await call(t.app, 'POST', `${url}/confirm`, cookie, { code: '000000' });
  assert.equal(wrong.statusCode, 400);
  assert.equal(json(wrong).error.param, 'code');
  const confirmed = await call(t.app, 'POST', `${url}/confirm`, cookie, {
    code: codeAt(secret, t.clock.now()),
  });
  assert.equal(confirmed.statusCode, 200, confirmed.body);
  assert.deepEqual(json(confirmed), { object: 'second_factor', enabled: true });
  assert.equal(await signInNeedsCode(account.email), true);

  // Turning it off takes a current code (a new one: each code is taken once).
  t.clock.advance(30_000);
  const refused = await call(t.app, 'DELETE', url, cookie, { code: '123456' });
  assert.equal(refused.statusCode, 400);
  const off = await call(t.app, 'DELETE', url, cookie, { code: codeAt(secret, t.clock.now()) });
  assert.deepEqual(json(off), { object: 'second_factor', enabled: false });
  assert.equal(await signInNeedsCode(account.email), false);
});

test('the console has the same operations; without a session they are 401', async () => {
  const developer = await newAccount(t, true);
  const cookie = await signInTo(t.app, 'console', developer.email);
  const setup = await call(t.app, 'POST', '/console/api/account/second-factor', cookie, {});
  assert.equal(setup.statusCode, 200);
  for (const [method, path, body] of [
    ['GET', url, undefined],
    ['POST', url, {}],
    ['POST', `${url}/confirm`, { code: '000000' }],
    ['DELETE', url, { code: '000000' }],
  ] as const) {
    const res = await call(t.app, method, path, null, body);
    assert.equal(res.statusCode, 401, `${method} ${path}`);
  }
});

test('wrong codes are limited: after 10, even the right one waits', async () => {
  const account = await newAccount(t, false);
  const cookie = await signInTo(t.app, 'dashboard', account.email);
  const { secret } = json(await call(t.app, 'POST', url, cookie, {}));
  for (let i = 0; i < 10; i += 1)
    assert.equal((await call(t.app, 'POST', `${url}/confirm`, cookie, { code: '000000' })).statusCode, 400);
  const limited = await call(t.app, 'POST', `${url}/confirm`, cookie, {
    code: codeAt(secret, t.clock.now()),
  });
  assert.equal(limited.statusCode, 429);
  assert.ok(Number(limited.headers['retry-after']) > 0);
  assert.deepEqual(json(await call(t.app, 'GET', url, cookie)), { object: 'second_factor', enabled: false });
});
