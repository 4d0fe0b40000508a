import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { type Db, openDatabase } from '../../src/db/client.ts';
import { migrationNames } from '../../src/db/migrate.ts';
import type { QueuedEmail } from '../../src/domain/email/email-templates.ts';
import { enqueueJob } from '../../src/domain/jobs/jobs.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import type { EmailTransport, OutgoingEmail } from '../../src/worker/email-transport.ts';
import { jobHandlers } from '../../src/worker/job-kinds.ts';
import { type JobHandler, type JobHandlers, runDueJobs } from '../../src/worker/job-queue.ts';
import { emptyTestDatabase, openTestDatabase, TestClock } from '../harness.ts';

/*
 * The job queue as the worker runs it (runDueJobs), with handlers the tests give it, on this
 * file's own database; and the migration that moved the e-mail outbox into it.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let clock: TestClock;
let logLines: Record<string, unknown>[] = [];
const log = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });
const sent: OutgoingEmail[] = [];
const transport: EmailTransport = { send: async (email) => void sent.push(email) };

before(async () => {
  database = await openTestDatabase();
  clock = new TestClock();
});
after(() => database.close());
beforeEach(() => {
  logLines = [];
  sent.length = 0;
});

/** The real handlers, with the `email` kind's replaced. */
function handlersWith(email: JobHandler<QueuedEmail>): JobHandlers {
  return { ...jobHandlers, email };
}

function run(handlers: JobHandlers, db: Db = database.db): Promise<number> {
  return runDueJobs(db, clock, { log, emailTransport: transport }, handlers);
}

const mail = (name: string): QueuedEmail => ({
  to: name,
  locale: 'en',
  template: 'appDisconnected',
  params: { app: name, restaurant: 'Trattoria' },
});

const jobRow = (id: string) =>
  database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

test('a job whose handler fails is retried later, waiting longer each time, and given up after its most attempts', async () => {
  const ctx = systemCtx(database.db, clock);
  const id = await enqueueJob(ctx, 'email', mail('always failing'));
  let runs = 0;
  const failing = handlersWith({
    maxAttempts: 3,
    retryDelayMs: (failed) => 1000 * 2 ** (failed - 1),
    run: async () => {
      runs += 1;
      throw new Error(`refused, run ${runs}`);
    },
  });

  assert.equal(await run(failing), 0);
  let row = await jobRow(id);
  assert.equal(row.attempts, 1);
  assert.equal(row.last_error, 'refused, run 1');
  assert.deepEqual(row.run_after, new Date(clock.now().getTime() + 1000));
  assert.equal(row.locked_until, null);
  assert.equal(logLines.at(-1)?.msg, 'queued job failed, will retry');
  assert.equal(logLines.at(-1)?.level, 40);

  // Not due before its wait is over.
  clock.advance(999);
  await run(failing);
  assert.equal(runs, 1);
  clock.advance(1);
  await run(failing);
  assert.equal(runs, 2);
  row = await jobRow(id);
  assert.deepEqual(row.run_after, new Date(clock.now().getTime() + 2000));

  clock.advance(2000);
  await run(failing);
  assert.equal(runs, 3);
  row = await jobRow(id);
  assert.equal(row.attempts, 3);
  assert.equal(row.last_error, 'refused, run 3');
  assert.deepEqual(row.failed_at, clock.now());
  assert.equal(row.done_at, null);
  const givenUp = logLines.filter((line) => line.msg === 'queued job failed, given up');
  assert.equal(givenUp.length, 1);
  assert.equal(givenUp[0]?.level, 50);
  assert.equal(givenUp[0]?.job, id);
  assert.equal(givenUp[0]?.kind, 'email');
  assert.equal(givenUp[0]?.attempts, 3);
  assert.equal(givenUp[0]?.error, 'refused, run 3');

  clock.advance(365 * 24 * 60 * 60 * 1000);
  await run(failing);
  assert.equal(runs, 3);
});

test('workers running at once never run the same job twice', async () => {
  const ctx = systemCtx(database.db, clock);
  const names = Array.from({ length: 40 }, (_, i) => `job ${i}`);
  for (const name of names) await enqueueJob(ctx, 'email', mail(name));
  const ran: string[] = [];
  const slow = handlersWith({
    run: async (email) => {
      ran.push(email.to);
      await sleep(5); // a run takes a while, so the workers overlap (spacing only)
    },
  });
  // On PostgreSQL the other workers have a connection pool of their own, as other processes would.
  const other = database.url ? await openDatabase({ url: database.url }) : null;
  try {
    const otherDb = other?.db ?? database.db;
    await Promise.all([run(slow), run(slow, otherDb), run(slow), run(slow, otherDb)]);
    while ((await Promise.all([run(slow), run(slow, otherDb)])).some((done) => done > 0)) {}
  } finally {
    await other?.close();
  }
  assert.deepEqual([...ran].sort(), [...names].sort());
  const open = await database.db
    .selectFrom('jobs')
    .select('id')
    .where('done_at', 'is', null)
    .where('failed_at', 'is', null)
    .execute();
  assert.deepEqual(open, []);
});

test('a job queued in a transaction that rolls back never runs', async () => {
  const before = await database.db.selectFrom('jobs').select('id').execute();
  await assert.rejects(
    database.db.transaction().execute(async (trx) => {
      await enqueueJob(systemCtx(trx, clock), 'email', mail('rolled back'));
      throw new Error('the change failed');
    }),
    /the change failed/,
  );
  const ran: string[] = [];
  await run(handlersWith({ run: async (email) => void ran.push(email.to) }));
  assert.deepEqual(ran, []);
  assert.deepEqual(await database.db.selectFrom('jobs').select('id').execute(), before);
});

test('a job whose worker died is run again once its lease is over', async () => {
  const ctx = systemCtx(database.db, clock);
  const id = await enqueueJob(ctx, 'email', mail('worker died'));
  // The first worker dies mid-run: its run never ends.
  let started = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const dying = run(
    handlersWith({
      run: () => {
        started();
        return new Promise<void>(() => {});
      },
    }),
  );
  await running; // it has claimed the job and runs it
  const ran: string[] = [];
  const working = handlersWith({ run: async (email) => void ran.push(email.to) });
  await run(working);
  assert.deepEqual(ran, []);
  clock.advance(10 * 60 * 1000);
  await run(working);
  assert.deepEqual(ran, ['worker died']);
  const row = await jobRow(id);
  assert.deepEqual(row.done_at, clock.now());
  assert.equal(row.attempts, 2);
  void dying;
});

test('the e-mail outbox moves into the queue: unsent mails are sent, given-up ones stay given up (0015)', async () => {
  const fresh = await emptyTestDatabase();
  try {
    const [jobsMigration, ...later] = migrationNames().filter((name) => name >= '0015_jobs.sql');
    assert.equal(jobsMigration, '0015_jobs.sql');
    for (const name of migrationNames().filter((name) => name < '0015_jobs.sql'))
      await fresh.execScript(readMigration(name));
    // Sent, unsent (due), waiting for its next try after 2 failures, given up after 10.
    await fresh.execScript(`
      INSERT INTO email_outbox (id, to_address, subject, body, created_at, send_after, attempts, last_error, sent_at)
      VALUES
        (gen_random_uuid(), 'sent@example.test', 'sent', 'sent\n', '2026-11-01T08:00Z', '2026-11-01T08:00Z', 0, NULL, '2026-11-01T08:00:01Z'),
        (gen_random_uuid(), 'unsent@example.test', 'unsent', 'unsent\n', '2026-11-01T08:00Z', '2026-11-01T09:00Z', 0, NULL, NULL),
        (gen_random_uuid(), 'retrying@example.test', 'retrying', 'retrying\n', '2026-11-01T08:00Z', '2026-11-02T09:30Z', 2, '550 Mailbox unavailable', NULL),
        (gen_random_uuid(), 'given-up@example.test', 'given up', 'given up\n', '2026-10-01T08:00Z', 'infinity', 10, '550 Mailbox unavailable', NULL)`);
    await fresh.execScript(readMigration('0015_jobs.sql'));
    for (const name of later) await fresh.execScript(readMigration(name));

    const jobs = await fresh.db.selectFrom('jobs').selectAll().orderBy('run_after').execute();
    assert.deepEqual(
      jobs.map((job) => [
        job.kind,
        (job.payload as { subject: string }).subject,
        job.attempts,
        job.last_error,
      ]),
      [
        ['rendered-email', 'given up', 10, '550 Mailbox unavailable'],
        ['rendered-email', 'unsent', 0, null],
        ['rendered-email', 'retrying', 2, '550 Mailbox unavailable'],
      ],
    );
    assert.ok(jobs[0]?.failed_at, 'given up stays given up');

    clock = new TestClock(new Date('2026-11-02T10:00:00Z'));
    await runDueJobs(fresh.db, clock, { log, emailTransport: transport }, jobHandlers);
    assert.deepEqual(
      [...sent].sort((a, b) => a.to.localeCompare(b.to)),
      [
        { to: 'retrying@example.test', subject: 'retrying', text: 'retrying\n' },
        { to: 'unsent@example.test', subject: 'unsent', text: 'unsent\n' },
      ],
    );
  } finally {
    await fresh.close();
  }
});

function readMigration(name: string): string {
  return `BEGIN;\n${readFileSync(new URL(`../../src/db/migrations/${name}`, import.meta.url), 'utf8')}\nCOMMIT;`;
}
