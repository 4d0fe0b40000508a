import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { createAccount } from '../../src/domain/accounts/accounts.service.ts';
import { findSession, signIn } from '../../src/domain/accounts/sessions.ts';
import { claimKey } from '../../src/domain/idempotency/idempotency.store.ts';
import { emailTransport } from '../../src/worker/email-transport.ts';
import { jobs } from '../../src/worker/worker.ts';
import { buildTestApp, makeTenant, type TestApp } from '../harness.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const log = pino({ level: 'silent' });
async function runJob(name: string): Promise<void> {
  const job = jobs.find((candidate) => candidate.name === name);
  assert.ok(job, name);
  await job.run(t.database.db, t.clock, {
    log,
    emailTransport: emailTransport({ smtpUrl: null, mailFrom: 'x@example.test' }, log),
  });
}

test('idempotency keys are purged after 24 hours, not before', async () => {
  const tenant = await makeTenant(t.ctx);
  const request = {
    tenantId: tenant.restaurantId,
    connectionId: tenant.connectionId,
    method: 'POST',
    path: '/v1/x',
    bodyHash: 'h',
  };
  await claimKey(t.database.db, { ...request, key: 'old' }, t.clock.now());
  t.clock.advance(12 * 3600 * 1000);
  await claimKey(t.database.db, { ...request, key: 'young' }, t.clock.now());
  t.clock.advance(12 * 3600 * 1000 + 1);
  await runJob('purge expired idempotency keys');
  const keys = await t.database.db.selectFrom('idempotency_keys').select('key').execute();
  assert.deepEqual(
    keys.map((row) => row.key),
    ['young'],
  );
});

test('sign-in sessions are purged once they end, live ones kept', async () => {
  await createAccount(t.ctx, { email: 'purge@example.test', password: 'correct horse battery' });
  const ended = await signIn(t.ctx, 'dashboard', {
    email: 'purge@example.test',
    password: 'correct horse battery',
  });
  t.clock.advance(11 * 3600 * 1000);
  const live = await signIn(t.ctx, 'dashboard', {
    email: 'purge@example.test',
    password: 'correct horse battery',
  });
  assert.ok(ended && live);
  t.clock.advance(3600 * 1000);
  await runJob('purge expired sign-in sessions');
  assert.equal(
    await t.database.db
      .selectFrom('sessions')
      .select('id_hash')
      .execute()
      .then((rows) => rows.length),
    1,
  );
  assert.ok(await findSession(t.ctx, 'dashboard', live.token));
});
