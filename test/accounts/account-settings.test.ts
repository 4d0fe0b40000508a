import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, newAccount, password, signInTo, type TestApp } from '../harness.ts';
import { Browser, csrfOf } from '../oauth/consent-helpers.ts';
import { type SmtpReceiver, sentByQueue, smtpReceiver } from '../worker/smtp-receiver.ts';
import { linkIn } from './account-mails.ts';

/*
 * The signed-in account page of the console and the dashboard over HTTP: a new password (with the
 * current one; the other sessions end), a new e-mail address (with the password; confirmed only by
 * the link mailed to the new address, once, within 30 minutes; the old address gets a notice), and
 * the account's sessions with "sign out everywhere else". Mails go through the worker's queue to a
 * local SMTP server.
 */
let t: TestApp;
let smtp: SmtpReceiver;
before(async () => {
  smtp = await smtpReceiver();
  t = await buildTestApp();
});
after(async () => {
  await t?.close();
  await smtp?.close();
});

async function signedIn(
  surface: 'console' | 'dashboard',
  email: string,
  secret = password,
): Promise<Browser> {
  const browser = new Browser(t.app);
  const form = await browser.get(`/${surface}/sign-in`);
  const res = await browser.post(`/${surface}/sign-in`, { _csrf: csrfOf(form), email, password: secret });
  assert.equal(res.statusCode, 303, res.body);
  assert.equal(res.headers.location, `/${surface}`);
  return browser;
}

const fieldError = (res: LightMyRequestResponse, field: string) =>
  new RegExp(`<p class="field-error" id="${field}-error">(.*?)</p>`).exec(res.body)?.[1];
const emailOf = async (id: string) =>
  (await t.ctx.db.selectFrom('accounts').select('email').where('id', '=', id).executeTakeFirstOrThrow())
    .email;
const isSignedIn = async (browser: Browser, surface: string) =>
  (await browser.get(`/${surface}/account`)).statusCode === 200;

test('a new password needs the current one and sign-up’s rules; the other sessions end, this one stays', async () => {
  const person = await newAccount(t, true);
  const browser = await signedIn('dashboard', person.email);
  const elsewhere = await signedIn('console', person.email);
  const page = await browser.get('/dashboard/account');

  const wrong = await browser.post('/dashboard/account/password', {
    _csrf: csrfOf(page),
    current_password: 'not my password',
    new_password: 'a brand new password',
  });
  assert.equal(wrong.statusCode, 400);
  assert.equal(fieldError(wrong, 'current_password'), 'That is not your current password.');
  const short = await browser.post('/dashboard/account/password', {
    _csrf: csrfOf(wrong),
    current_password: password,
    new_password: 'short',
  });
  assert.equal(short.statusCode, 400);
  assert.equal(fieldError(short, 'new_password'), 'Choose a password of 10 to 1000 characters.');
  assert.ok(await isSignedIn(elsewhere, 'console'), 'nothing changed yet');

  const changed = await browser.post('/dashboard/account/password', {
    _csrf: csrfOf(short),
    current_password: password,
    new_password: 'a brand new password',
  });
  assert.equal(changed.statusCode, 303);
  assert.equal(changed.headers.location, '/dashboard/account?done=password');
  assert.match(
    (await browser.get('/dashboard/account?done=password')).body,
    /role="status">Your password is changed\./,
  );
  assert.equal(await isSignedIn(elsewhere, 'console'), false, 'the other session ended');
  await signedIn('console', person.email, 'a brand new password');
});

test('wrong current passwords count against the account’s sign-in limit: 429 at the limit', async () => {
  const person = await newAccount(t, false);
  const browser = await signedIn('dashboard', person.email);
  let res = await browser.get('/dashboard/account');
  for (let i = 0; i < 10; i += 1) {
    res = await browser.post('/dashboard/account/password', {
      _csrf: csrfOf(res),
      current_password: `wrong ${i}`,
      new_password: 'a brand new password',
    });
    assert.equal(res.statusCode, 400);
  }
  const limited = await browser.post('/dashboard/account/password', {
    _csrf: csrfOf(res),
    current_password: password,
    new_password: 'a brand new password',
  });
  assert.equal(limited.statusCode, 429);
  assert.ok(Number(limited.headers['retry-after']) > 0);
  assert.match(fieldError(limited, 'current_password') ?? '', /^Too many wrong passwords/);
});

test('a new e-mail address: asked with the password, confirmed only by the link to the new address, once', async () => {
  const person = await newAccount(t, false);
  const other = await newAccount(t, false);
  const browser = await signedIn('dashboard', person.email);
  const page = await browser.get('/dashboard/account');
  const newEmail = `new-${person.email}`;

  const wrong = await browser.post('/dashboard/account/email', {
    _csrf: csrfOf(page),
    new_email: newEmail,
    email_password: 'not my password',
  });
  assert.equal(wrong.statusCode, 400);
  assert.equal(fieldError(wrong, 'email_password'), 'That is not your current password.');
  assert.match(
    wrong.body,
    new RegExp(`id="new_email" name="new_email" type="email"[^>]* value="${newEmail}"`),
  );
  const taken = await browser.post('/dashboard/account/email', {
    _csrf: csrfOf(wrong),
    new_email: other.email.toUpperCase(),
    email_password: password,
  });
  assert.equal(taken.statusCode, 400);
  assert.equal(fieldError(taken, 'new_email'), 'Another account has this address.');
  const malformed = await browser.post('/dashboard/account/email', {
    _csrf: csrfOf(taken),
    new_email: 'nonsense',
    email_password: password,
  });
  assert.equal(malformed.statusCode, 400);
  assert.match(fieldError(malformed, 'new_email') ?? '', /^Enter an e-mail address like/);
  assert.equal((await sentByQueue(t, smtp)).length, 0, 'no mail for a refused change');

  const asked = await browser.post('/dashboard/account/email', {
    _csrf: csrfOf(malformed),
    new_email: newEmail,
    email_password: password,
  });
  assert.equal(asked.statusCode, 303);
  assert.equal(asked.headers.location, '/dashboard/account?done=email');
  const mails = await sentByQueue(t, smtp);
  assert.deepEqual(
    mails.map((mail) => mail.to),
    [newEmail],
    'the link goes to the new address only',
  );
  assert.equal(await emailOf(person.id), person.email, 'unchanged until confirmed');

  const link = linkIn(mails[0], '/dashboard/confirm-email');
  // Opening the link only shows a button: a mail scanner fetching it changes nothing.
  const stranger = new Browser(t.app);
  const confirmPage = await stranger.get(link);
  assert.equal(confirmPage.statusCode, 200);
  assert.ok(confirmPage.body.includes(newEmail));
  assert.equal(await emailOf(person.id), person.email);
  const token = new URLSearchParams(link.split('?')[1]).get('token') ?? '';
  const confirmed = await stranger.post('/dashboard/confirm-email', { _csrf: csrfOf(confirmPage), token });
  assert.equal(confirmed.statusCode, 200);
  assert.match(confirmed.body, /Your account’s e-mail address is now/);
  assert.equal(await emailOf(person.id), newEmail);

  const notices = await sentByQueue(t, smtp);
  assert.deepEqual(
    notices.map((mail) => mail.to),
    [person.email],
    'a notice to the old address',
  );
  assert.ok(notices[0]?.text.includes(newEmail));
  const again = await stranger.post('/dashboard/confirm-email', { _csrf: csrfOf(confirmPage), token });
  assert.equal(again.statusCode, 400, 'the link works once');
  await signedIn('dashboard', newEmail);
});

test('an e-mail link works for 30 minutes', async () => {
  const person = await newAccount(t, true);
  const browser = await signedIn('console', person.email);
  const page = await browser.get('/console/account');
  await browser.post('/console/account/email', {
    _csrf: csrfOf(page),
    new_email: `later-${person.email}`,
    email_password: password,
  });
  const link = linkIn((await sentByQueue(t, smtp))[0], '/console/confirm-email');
  t.clock.advance(30 * 60_000);
  const late = await browser.get(link);
  assert.equal(late.statusCode, 400);
  assert.match(late.body, /This link does not work any more/);
  assert.equal(await emailOf(person.id), person.email);
});

test('the sessions of the account, this one marked; "sign out everywhere else" ends the others only', async () => {
  const person = await newAccount(t, true);
  const browser = await signedIn('dashboard', person.email);
  const consoleBrowser = await signedIn('console', person.email);
  const apiCookie = await signInTo(t.app, 'console', person.email);
  const stranger = await newAccount(t, true);
  const strangerBrowser = await signedIn('console', stranger.email);

  const apiBefore = await t.app.inject({
    method: 'GET',
    url: '/console/api/apps',
    headers: { cookie: apiCookie },
  });
  assert.equal(apiBefore.statusCode, 200);
  const page = await browser.get('/dashboard/account');
  const rows = [...page.body.matchAll(/<tr><td>(.*?)<\/td>/g)].map((row) => row[1]);
  assert.deepEqual(rows.toSorted(), [
    'Developer console',
    'Developer console',
    'Restaurant dashboard <strong class="this-session">(this session)</strong>',
  ]);

  const ended = await browser.post('/dashboard/account/sessions/end-others', { _csrf: csrfOf(page) });
  assert.equal(ended.statusCode, 303);
  assert.equal(ended.headers.location, '/dashboard/account?done=others');
  const after = await browser.get('/dashboard/account?done=others');
  assert.match(after.body, /role="status">You are signed out everywhere else\./);
  assert.match(after.body, /You are signed in nowhere else\./);
  assert.equal(await isSignedIn(consoleBrowser, 'console'), false);
  const api = await t.app.inject({ method: 'GET', url: '/console/api/apps', headers: { cookie: apiCookie } });
  assert.equal(api.statusCode, 401, 'the API session ended too');
  assert.ok(await isSignedIn(strangerBrowser, 'console'), 'another account’s sessions stay');
});
