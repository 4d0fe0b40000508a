import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { capturedLogger } from '../captured-logs.ts';
import { buildTestApp, newAccount, password, type TestApp, testBaseUrl } from '../harness.ts';
import { Browser, csrfOf } from '../oauth/consent-helpers.ts';
import { type SentMail, type SmtpReceiver, sentByQueue, smtpReceiver } from '../worker/smtp-receiver.ts';
import { linkIn } from './account-mails.ts';

/*
 * "Forgot password" on the console and the dashboard over HTTP, the mails sent by the worker's
 * queue to a local SMTP server: the same answer for known and unknown addresses; the mailed link
 * sets a new password once, within 30 minutes, unless a newer one was sent; it ends every session;
 * the limits per client address and per e-mail address hold mails back and answer the same.
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

let addresses = 0;
/** A browser of a client address of its own: the per-address limit of one test is its own. */
const newBrowser = () => {
  addresses += 1;
  return new Browser(t.app, `192.0.2.${addresses}`);
};

async function askForLink(browser: Browser, surface: string, email: string): Promise<LightMyRequestResponse> {
  const form = await browser.get(`/${surface}/forgot-password`);
  assert.equal(form.statusCode, 200);
  return browser.post(`/${surface}/forgot-password`, { _csrf: csrfOf(form), email });
}

/** The page after asking, without what differs from one request to the next (token, address). */
const answerOf = (res: LightMyRequestResponse, email: string) =>
  res.body.replace(/name="_csrf" value="[^"]+"/g, '').replaceAll(email, 'EMAIL');

async function signIn(surface: string, email: string, secret: string): Promise<LightMyRequestResponse> {
  const browser = newBrowser();
  const form = await browser.get(`/${surface}/sign-in`);
  return browser.post(`/${surface}/sign-in`, { _csrf: csrfOf(form), email, password: secret });
}

const mailsTo = (mails: SentMail[], email: string) => mails.filter((mail) => mail.to === email);

for (const surface of ['console', 'dashboard'] as const) {
  test(`${surface}: the sign-in page links to the forgot page; known and unknown addresses get the same answer`, async () => {
    const person = await newAccount(t, surface === 'console');
    const browser = newBrowser();
    const signInPage = await browser.get(`/${surface}/sign-in`);
    assert.match(
      signInPage.body,
      new RegExp(`<a href="/${surface}/forgot-password">Forgot your password\\?</a>`),
    );

    const known = await askForLink(browser, surface, person.email.toUpperCase());
    const unknown = await askForLink(browser, surface, 'nobody@example.test');
    assert.equal(known.statusCode, 200);
    assert.equal(unknown.statusCode, 200);
    assert.match(known.body, /a link to set a new password is on its way/);
    assert.equal(answerOf(known, person.email.toUpperCase()), answerOf(unknown, 'nobody@example.test'));

    const mails = await sentByQueue(t, smtp);
    assert.deepEqual(
      mails.map((mail) => mail.to),
      [person.email],
      'one mail, to the account’s own address',
    );
    assert.match(mails[0]?.text ?? '', /The link works once, for 30 minutes/);
    const link = linkIn(mails[0], `/${surface}/reset-password`);
    assert.ok(mails[0]?.text.includes(`${testBaseUrl}${link}`), 'an absolute link');
  });
}

test('the link sets a new password once, ends every session, and the new password signs in', async () => {
  const person = await newAccount(t, false);
  const signedIn = newBrowser();
  const form = await signedIn.get('/dashboard/sign-in');
  await signedIn.post('/dashboard/sign-in', { _csrf: csrfOf(form), email: person.email, password });
  assert.equal((await signedIn.get('/dashboard/account')).statusCode, 200);

  const browser = newBrowser();
  await askForLink(browser, 'dashboard', person.email);
  const link = linkIn(mailsTo(await sentByQueue(t, smtp), person.email)[0], '/dashboard/reset-password');
  const page = await browser.get(link);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /Choose a new password/);

  const short = await browser.post('/dashboard/reset-password', {
    _csrf: csrfOf(page),
    token: new URLSearchParams(link.split('?')[1]).get('token') ?? '',
    password: 'short',
  });
  assert.equal(short.statusCode, 400);
  assert.match(
    short.body,
    /<p class="field-error" id="password-error">Choose a password of 10 to 1000 characters\.<\/p>/,
  );
  assert.equal(
    (await signIn('dashboard', person.email, password)).statusCode,
    303,
    'the old password still works',
  );

  const token = new URLSearchParams(link.split('?')[1]).get('token') ?? '';
  const set = await browser.post('/dashboard/reset-password', {
    _csrf: csrfOf(short),
    token,
    password: 'a brand new password',
  });
  assert.equal(set.statusCode, 303);
  assert.equal(set.headers.location, '/dashboard/sign-in?done=password');
  const signInPage = await browser.get('/dashboard/sign-in?done=password');
  assert.match(
    signInPage.body,
    /<p class="success" role="status">Your password is set\. Sign in with it\.<\/p>/,
  );
  assert.equal(
    (await signedIn.get('/dashboard/account')).headers.location,
    '/dashboard/sign-in',
    'sessions ended',
  );

  assert.equal(
    (await signIn('dashboard', person.email, password)).statusCode,
    400,
    'the old password is refused',
  );
  assert.equal((await signIn('dashboard', person.email, 'a brand new password')).statusCode, 303);

  const again = await browser.get(link);
  assert.equal(again.statusCode, 400);
  assert.match(again.body, /This link does not work any more/);
  const reused = await browser.post('/dashboard/reset-password', {
    _csrf: csrfOf(signInPage),
    token,
    password: 'yet another password',
  });
  assert.equal(reused.statusCode, 400);
  assert.equal((await signIn('dashboard', person.email, 'yet another password')).statusCode, 400);
});

test('a link works for 30 minutes, and a newer one replaces it', async () => {
  const person = await newAccount(t, true);
  const browser = newBrowser();
  await askForLink(browser, 'console', person.email);
  const first = linkIn(mailsTo(await sentByQueue(t, smtp), person.email)[0], '/console/reset-password');
  await askForLink(browser, 'console', person.email);
  const second = linkIn(mailsTo(await sentByQueue(t, smtp), person.email)[0], '/console/reset-password');
  assert.notEqual(first, second);
  assert.equal((await browser.get(first)).statusCode, 400, 'the earlier link is replaced');
  t.clock.advance(29 * 60_000);
  assert.equal((await browser.get(second)).statusCode, 200);
  t.clock.advance(60_000);
  const late = await browser.get(second);
  assert.equal(late.statusCode, 400);
  assert.match(late.body, /<a href="\/console\/forgot-password">Ask for a new link<\/a>/);
});

test('limits: 3 requests an hour per e-mail address, 5 per 15 minutes per client address; over them the same answer and no mail', async () => {
  const person = await newAccount(t, false);
  const answers: string[] = [];
  for (let i = 0; i < 4; i += 1) {
    const res = await askForLink(newBrowser(), 'dashboard', person.email);
    assert.equal(res.statusCode, 200);
    answers.push(answerOf(res, person.email));
  }
  assert.equal(new Set(answers).size, 1, 'the same answer within and over the limit');
  // Each newer link replaces the one before: the queue has 3 mails for 3 links.
  assert.equal(mailsTo(await sentByQueue(t, smtp), person.email).length, 3);

  const other = await newAccount(t, false);
  const browser = newBrowser();
  for (let i = 0; i < 5; i += 1) await askForLink(browser, 'dashboard', `nobody-${i}@example.test`);
  const over = await askForLink(browser, 'dashboard', other.email);
  assert.equal(over.statusCode, 200);
  assert.equal(answerOf(over, other.email), answers[0]);
  assert.equal(
    mailsTo(await sentByQueue(t, smtp), other.email).length,
    0,
    'the 6th request from the address',
  );
  await askForLink(newBrowser(), 'dashboard', other.email);
  assert.equal(mailsTo(await sentByQueue(t, smtp), other.email).length, 1, 'from another address');
});

test('an empty or malformed address is refused beside the field, and no mail goes', async () => {
  const browser = newBrowser();
  const empty = await askForLink(browser, 'dashboard', '  ');
  assert.equal(empty.statusCode, 400);
  assert.match(empty.body, /<p class="field-error" id="email-error">Enter your e-mail address\.<\/p>/);
  const malformed = await askForLink(browser, 'dashboard', 'not-an-address');
  assert.equal(malformed.statusCode, 400);
  assert.match(malformed.body, /id="email-error">Enter an e-mail address like name@example.com\.<\/p>/);
  assert.equal((await sentByQueue(t, smtp)).length, 0);
  const noToken = await browser.get('/dashboard/reset-password?token=made-up');
  assert.equal(noToken.statusCode, 400);
  const noForm = await browser.post('/dashboard/forgot-password', { email: 'a@example.test' });
  assert.equal(noForm.statusCode, 403, 'without the CSRF token');
});

test('asked on a German page, the page and the mail are German', async () => {
  const person = await newAccount(t, false);
  const browser = newBrowser();
  const form = await browser.get('/dashboard/forgot-password?lang=de');
  assert.match(form.body, /<h1>Neues Passwort festlegen<\/h1>/);
  const sent = await browser.post('/dashboard/forgot-password', {
    _csrf: csrfOf(form),
    lang: 'de',
    email: person.email,
  });
  assert.match(sent.body, /Wenn ein Konto die Adresse/);
  const [mail] = mailsTo(await sentByQueue(t, smtp), person.email);
  assert.match(mail?.text ?? '', /Der Link funktioniert einmal, 30 Minuten lang\./);
});

test('neither the link’s token nor the new password reach the logs', async () => {
  const { logger, lines } = capturedLogger();
  const logged = await buildApp({
    config: { baseUrl: testBaseUrl },
    db: t.database.db,
    clock: t.clock,
    logger,
  });
  try {
    const person = await newAccount(t, false);
    addresses += 1;
    const browser = new Browser(logged, `192.0.2.${addresses}`);
    await askForLink(browser, 'dashboard', person.email);
    const link = linkIn(mailsTo(await sentByQueue(t, smtp), person.email)[0], '/dashboard/reset-password');
    const token = new URLSearchParams(link.split('?')[1]).get('token') ?? '';
    const page = await browser.get(`${link}&lang=en`);
    assert.equal(page.statusCode, 200);
    const set = await browser.post('/dashboard/reset-password', {
      _csrf: csrfOf(page),
      token,
      password: 'a password for the logs',
    });
    assert.equal(set.statusCode, 303);
    const output = lines.join('');
    assert.ok(
      output.includes('/dashboard/reset-password?token=[redacted]&lang=en'),
      'the URL, without the token',
    );
    assert.ok(!output.includes(token), 'the token is not logged');
    assert.ok(!output.includes('a password for the logs'), 'the password is not logged');
  } finally {
    await logged.close();
  }
});
