import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { type Db, openDatabase } from '../../src/db/client.ts';
import { consentToApp } from '../../src/domain/connections/connections.service.ts';
import { queueEmail } from '../../src/domain/email/email-outbox.ts';
import { type QueuedEmail, renderEmail } from '../../src/domain/email/email-templates.ts';
import { type Ctx, systemCtx } from '../../src/domain/shared/context.ts';
import { type EmailTransport, emailTransport } from '../../src/worker/email-transport.ts';
import {
  defaultMaxAttempts as maxAttempts,
  defaultRetryDelayMs as retryDelayMs,
} from '../../src/worker/job-queue.ts';
import { jobs } from '../../src/worker/worker.ts';
import { makeTenant, openTestDatabase, type Tenant, TestClock } from '../harness.ts';

/*
 * E-mails through the job queue as the worker runs it, against a real SMTP server on a local port (smtp-server,
 * no TLS) that can be told to refuse recipients, on this file's own database.
 */

interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  headers: Map<string, string>;
  body: string;
}

const receiver = {
  mails: [] as ReceivedMail[],
  /** RCPT TO commands seen, accepted or refused: each is one delivery attempt. */
  recipientsOffered: 0,
  refusing: false,
};

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onRcptTo(_address, _session, callback) {
    receiver.recipientsOffered += 1;
    if (!receiver.refusing) return callback();
    callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      receiver.mails.push(parseMessage(Buffer.concat(chunks).toString('utf8'), session.envelope));
      callback();
    });
  },
});

/** Splits a received message into unfolded headers (lower-case names) and body. */
function parseMessage(
  raw: string,
  envelope: { mailFrom: { address: string } | false; rcptTo: { address: string }[] },
): ReceivedMail {
  const end = raw.indexOf('\r\n\r\n');
  const headers = new Map<string, string>();
  for (const line of raw
    .slice(0, end)
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const subject = headers.get('subject');
  if (subject) headers.set('subject', decodeWords(subject));
  const body = raw.slice(end + 4);
  return {
    envelopeFrom: envelope.mailFrom ? envelope.mailFrom.address : '',
    envelopeTo: envelope.rcptTo.map((rcpt) => rcpt.address),
    headers,
    body:
      headers.get('content-transfer-encoding') === 'quoted-printable' ? decodeQuotedPrintable(body) : body,
  };
}

/** Quoted-printable (RFC 2045) to text: soft line breaks joined, =XX bytes decoded as UTF-8. */
function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** A header's encoded words (RFC 2047, UTF-8, Q or B) to text. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, encoding: string, word: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(word, 'base64').toString('utf8')
        : decodeQuotedPrintable(word.replace(/_/g, ' ')),
    );
}

const mailFrom = 'Servery <no-reply@servery.test>';
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let ctx: Ctx;
let clock: TestClock;
let smtpTransport: EmailTransport;
/** The log lines of the job, parsed. */
let logLines: Record<string, unknown>[] = [];
const log = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });

const queueJob = jobs.find((job) => job.name === 'run queued jobs');

/** One run of the worker's job queue, as the worker starts it. */
function runJob(transport = smtpTransport, db: Db = database.db): Promise<unknown> {
  assert.ok(queueJob, 'the worker runs the job queue');
  return queueJob.run(db, clock, { log, emailTransport: transport });
}

before(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  smtpTransport = emailTransport({ smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom }, log);
  database = await openTestDatabase();
  clock = new TestClock();
  ctx = systemCtx(database.db, clock);
});
after(async () => {
  await database.close();
  await new Promise<void>((resolve) => smtp.close(resolve));
});
beforeEach(() => {
  receiver.refusing = false;
  logLines = [];
});

async function restaurantName(tenant: Tenant): Promise<string> {
  const row = await database.db
    .selectFrom('restaurants')
    .select('name')
    .where('id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
  return row.name;
}

/** The mails the receiver got about a restaurant (its name is in every subject). */
async function receivedAbout(tenant: Tenant): Promise<ReceivedMail[]> {
  const name = await restaurantName(tenant);
  return receiver.mails.filter((mail) => mail.headers.get('subject')?.includes(name));
}

/** The e-mail jobs about a restaurant. */
const queuedFor = (tenant: Tenant) =>
  database.db
    .selectFrom('jobs')
    .selectAll()
    .where('kind', '=', 'email')
    .where('tenant_id', '=', tenant.restaurantId)
    .orderBy('id')
    .execute();
const payloadOf = (row: { payload: unknown } | undefined) => row?.payload as QueuedEmail | undefined;

test('the mail a consent queues reaches the owner, from MAIL_FROM, once, in English as before', async () => {
  const tenant = await makeTenant(ctx, { scopes: ['orders:read'] });
  const owner = await database.db
    .selectFrom('restaurant_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select('a.email')
    .where('m.tenant_id', '=', tenant.restaurantId)
    .where('m.role', '=', 'owner')
    .executeTakeFirstOrThrow();
  const app = await database.db
    .selectFrom('apps')
    .select('name')
    .where('id', '=', tenant.appId)
    .executeTakeFirstOrThrow();
  const restaurant = await restaurantName(tenant);

  await runJob();
  await runJob();

  const mails = await receivedAbout(tenant);
  assert.equal(mails.length, 1);
  const [mail] = mails;
  assert.deepEqual(mail?.envelopeTo, [owner.email]);
  assert.equal(mail?.headers.get('to'), owner.email);
  assert.equal(mail?.envelopeFrom, 'no-reply@servery.test');
  assert.equal(mail?.headers.get('from'), mailFrom);
  assert.equal(mail?.headers.get('subject'), `${app.name} is now connected to ${restaurant}`);
  assert.equal(
    mail?.body,
    `The app ${app.name} was connected to ${restaurant} and may now:\r\n- see your orders\r\n`,
  );
  const [row] = await queuedFor(tenant);
  assert.equal(payloadOf(row)?.template, 'appConnected');
  assert.equal(payloadOf(row)?.locale, 'en');
  assert.deepEqual(row?.done_at, clock.now());
  assert.equal(row?.attempts, 1);
  assert.equal(row?.last_error, null);
});

test('every English mail reads exactly as before the templates', () => {
  const en = (template: QueuedEmail['template'], params: QueuedEmail['params']) =>
    renderEmail({ to: 'x@example.test', locale: 'en', template, params } as QueuedEmail);
  const switchedOff = {
    url: 'https://hooks.example.test/in',
    failures: 12,
    since: '2026-11-01T10:00:00.000Z',
  };
  const what = [
    'The webhook https://hooks.example.test/in was switched off: 12 deliveries in a row failed, none succeeded since 2026-11-01T10:00:00.000Z.',
    'Deliveries still open were skipped; they can be resent from the delivery log.',
  ];
  const cases: Array<[ReturnType<typeof en>, string, string[]]> = [
    [
      en('appConnected', { app: 'Till', restaurant: 'Trattoria', scopes: ['orders:read', 'store:write'] }),
      'Till is now connected to Trattoria',
      [
        'The app Till was connected to Trattoria and may now:',
        '- see your orders',
        '- change your store settings, opening hours, special days and pause ordering',
      ],
    ],
    [
      en('appScopesAdded', { app: 'Till', restaurant: 'Trattoria', scopes: ['reports:read'] }),
      'Till may now do more at Trattoria',
      ['The app Till, connected to Trattoria, was allowed more:', '- see your sales reports'],
    ],
    [
      en('appDisconnected', { app: 'Till', restaurant: 'Trattoria' }),
      'Till was disconnected from Trattoria',
      ['The app Till ended its connection to Trattoria. It can no longer act for the restaurant.'],
    ],
    [
      en('restaurantWebhookSwitchedOff', switchedOff),
      'A webhook of your restaurant was switched off',
      [...what, 'Switch it on again in the dashboard once the address receives again.'],
    ],
    [
      en('appWebhookSwitchedOff', { app: 'Till', ...switchedOff }),
      'The webhook of Till was switched off',
      [
        ...what,
        'Every event stays available for 30 days through GET /v1/events.',
        'Switch the webhook on again in the developer console once your receiver works.',
      ],
    ],
  ];
  for (const [mail, subject, lines] of cases) {
    assert.equal(mail.subject, subject);
    assert.equal(mail.text, `${lines.join('\n')}\n`);
  }
});

test('a mail queued in German is sent in German', async () => {
  await queueEmail(ctx, {
    tenantId: null,
    to: 'inhaberin@example.test',
    locale: 'de',
    template: 'appScopesAdded',
    params: { app: 'Kassenbuch', restaurant: 'Gasthaus Adler', scopes: ['orders:read', 'menu:write'] },
  });
  await runJob();
  const mail = receiver.mails.find((received) => received.envelopeTo.includes('inhaberin@example.test'));
  assert.equal(mail?.headers.get('subject'), 'Kassenbuch darf bei Gasthaus Adler jetzt mehr');
  assert.equal(
    mail?.body,
    [
      'Die App Kassenbuch, verbunden mit Gasthaus Adler, hat weitere Rechte erhalten und darf jetzt auch:',
      '- Ihre Bestellungen sehen',
      '- Ihre Speisekarte ändern und Gerichte als ausverkauft markieren',
      '',
    ].join('\r\n'),
  );
});

test('workers running at once send each mail once', async () => {
  const apps = Array.from({ length: 25 }, (_, i) => `Concurrent app ${i}`);
  for (const app of apps) {
    await queueEmail(ctx, {
      tenantId: null,
      to: 'someone@example.test',
      locale: 'en',
      template: 'appDisconnected',
      params: { app, restaurant: 'Trattoria' },
    });
  }
  // On PostgreSQL the second worker has a connection pool of its own, as another process would.
  const other = database.url ? await openDatabase({ url: database.url }) : null;
  try {
    const otherDb = other?.db ?? database.db;
    await Promise.all([runJob(), runJob(smtpTransport, otherDb), runJob(), runJob(smtpTransport, otherDb)]);
    while (((await runJob()) as number) > 0) {}
  } finally {
    await other?.close();
  }
  const received = receiver.mails
    .map((mail) => mail.headers.get('subject') ?? '')
    .filter((subject) => subject.startsWith('Concurrent app'));
  assert.deepEqual(received.sort(), apps.map((app) => `${app} was disconnected from Trattoria`).sort());
  const unsent = await database.db
    .selectFrom('jobs')
    .select('id')
    .where('done_at', 'is', null)
    .where('failed_at', 'is', null)
    .execute();
  assert.deepEqual(unsent, []);
});

test('a refused mail is retried later, waiting longer each time, and sent once the server accepts it', async () => {
  receiver.refusing = true;
  const tenant = await makeTenant(ctx);
  const offered = receiver.recipientsOffered;

  await runJob();
  assert.equal(receiver.recipientsOffered, offered + 1);
  let [row] = await queuedFor(tenant);
  assert.equal(row?.done_at, null);
  assert.equal(row?.attempts, 1);
  assert.match(row?.last_error ?? '', /550 Mailbox unavailable/);
  assert.deepEqual(row?.run_after, new Date(clock.now().getTime() + 60_000));
  assert.equal(logLines.at(-1)?.msg, 'e-mail not sent, will retry');

  // Not due before the wait is over.
  clock.advance(59_999);
  await runJob();
  assert.equal(receiver.recipientsOffered, offered + 1);

  clock.advance(1);
  await runJob();
  assert.equal(receiver.recipientsOffered, offered + 2);
  [row] = await queuedFor(tenant);
  assert.equal(row?.attempts, 2);
  assert.deepEqual(row?.run_after, new Date(clock.now().getTime() + 120_000));

  receiver.refusing = false;
  clock.advance(120_000);
  await runJob();
  assert.equal((await receivedAbout(tenant)).length, 1);
  [row] = await queuedFor(tenant);
  assert.deepEqual(row?.done_at, clock.now());
  assert.equal(row?.attempts, 3);
  await runJob();
  assert.equal((await receivedAbout(tenant)).length, 1);
});

test(`a mail refused ${maxAttempts} times is given up and logged`, async () => {
  receiver.refusing = true;
  const tenant = await makeTenant(ctx);
  const offered = receiver.recipientsOffered;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    await runJob();
    clock.advance(retryDelayMs(attempt));
  }
  assert.equal(receiver.recipientsOffered, offered + maxAttempts);
  const [row] = await queuedFor(tenant);
  assert.equal(row?.attempts, maxAttempts);
  assert.equal(row?.done_at, null);
  assert.ok(row?.failed_at);
  assert.match(row?.last_error ?? '', /550 Mailbox unavailable/);
  const givenUp = logLines.filter((line) => line.msg === 'e-mail not sent, given up');
  assert.equal(givenUp.length, 1);
  assert.equal(givenUp[0]?.level, 50);
  assert.equal(givenUp[0]?.job, row?.id);
  assert.equal(givenUp[0]?.kind, 'email');
  assert.equal(givenUp[0]?.attempts, maxAttempts);

  receiver.refusing = false;
  clock.advance(365 * 24 * 60 * 60 * 1000);
  await runJob();
  assert.equal(receiver.recipientsOffered, offered + maxAttempts);
  assert.deepEqual(await receivedAbout(tenant), []);
});

test('a test restaurant gets no e-mail', async () => {
  const tenant = await makeTenant(ctx, { livemode: false, scopes: ['orders:read'] });
  await consentToApp(ctx, {
    tenantId: tenant.restaurantId,
    appId: tenant.appId,
    scopes: ['orders:read', 'menu:read'],
  });
  const offered = receiver.recipientsOffered;
  await runJob();
  assert.equal(receiver.recipientsOffered, offered);
  assert.deepEqual(await receivedAbout(tenant), []);
  assert.deepEqual(await queuedFor(tenant), []);
});

test('without SMTP_URL a mail is logged, recipient and subject only, and counts as sent', async () => {
  const tenant = await makeTenant(ctx, { scopes: ['orders:read'] });
  const logOnly = emailTransport({ smtpUrl: null, mailFrom }, log);
  await runJob(logOnly);
  const [row] = await queuedFor(tenant);
  assert.deepEqual(row?.done_at, clock.now());
  const logged = logLines.filter((line) => line.msg === 'e-mail not sent (no SMTP_URL), logged only');
  assert.equal(logged.length, 1);
  assert.equal(logged[0]?.level, 30);
  assert.equal(logged[0]?.to, payloadOf(row)?.to);
  assert.match(String(logged[0]?.subject), /is now connected to/);
  assert.ok(!JSON.stringify(logLines).includes('see your orders'), 'the body is not logged');
  assert.deepEqual(await receivedAbout(tenant), []);
});

test('settings: MAIL_FROM defaults to no-reply at the host of BASE_URL; SMTP_URL and MAIL_FROM are checked', () => {
  assert.equal(loadConfig({}).smtpUrl, null);
  assert.equal(
    loadConfig({ BASE_URL: 'https://api.example.com:8443' }).mailFrom,
    'Servery <no-reply@api.example.com>',
  );
  const config = loadConfig({
    SMTP_URL: 'smtp://user:pass@mail.example.com:587',
    MAIL_FROM: 'Orders <orders@example.com>',
  });
  assert.equal(config.smtpUrl, 'smtp://user:pass@mail.example.com:587');
  assert.equal(config.mailFrom, 'Orders <orders@example.com>');
  assert.throws(
    () => loadConfig({ SMTP_URL: 'https://user:hunter2@mail.example.com' }),
    (error: Error) =>
      error instanceof ConfigError &&
      /SMTP_URL must be an smtp:\/\//.test(error.message) &&
      !error.message.includes('hunter2'),
  );
  assert.throws(() => loadConfig({ MAIL_FROM: 'Servery' }), ConfigError);
  assert.throws(() => loadConfig({ MAIL_FROM: 'a@example.com, b@example.com' }), ConfigError);
});
