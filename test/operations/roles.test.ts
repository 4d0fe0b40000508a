import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { keyLifetimeMs } from '../../src/domain/idempotency/idempotency.store.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { hangCatcherMs } from '../waiting.ts';
import {
  bearer,
  freePort,
  killServices,
  migratedDatabase,
  portIsFree,
  type SeededConnection,
  type ServiceDatabase,
  seedConnections,
  startService,
  withDatabase,
} from './service.ts';

let database: ServiceDatabase;
let connection: SeededConnection;
const expiredKey = 'expired-key';
const freshKey = 'fresh-key';

before(async () => {
  database = await migratedDatabase();
  [connection] = (await seedConnections(database, 1)) as [SeededConnection];
  // Work for the worker's one job: an idempotency key past its lifetime, and one within it.
  await withDatabase(database, async ({ db }) => {
    const now = Date.now();
    for (const [key, createdAt] of [
      [expiredKey, new Date(now - keyLifetimeMs - 60_000)],
      [freshKey, new Date(now - 60_000)],
    ] as const) {
      await db
        .insertInto('idempotency_keys')
        .values({
          tenant_id: connection.tenantId,
          connection_id: connection.connectionId,
          key,
          method: 'POST',
          path: '/v1/anything',
          body_hash: 'x',
          lock_id: newId(),
          locked_at: createdAt,
          status_code: 200,
          response_body: '{}',
          created_at: createdAt,
          completed_at: createdAt,
        })
        .execute();
    }
  });
});
after(async () => {
  await killServices();
  await database?.remove();
});

async function idempotencyKeys(): Promise<string[]> {
  return withDatabase(database, async ({ db }) =>
    (await db.selectFrom('idempotency_keys').select('key').orderBy('key').execute()).map((row) => row.key),
  );
}

test('--role api serves HTTP and runs no jobs', { timeout: hangCatcherMs }, async () => {
  const service = await startService({
    database,
    args: ['serve', '--role', 'api'],
    env: { DEMO_DATA: 'false' },
  });
  await service.ready();
  const me = await fetch(`${service.url}/v1/me`, { headers: bearer(connection.token) });
  assert.equal(me.status, 200);
  const started = service.logs().find((line) => line.msg === 'Servery started');
  assert.equal(started?.role, 'api');
  assert.equal(started?.port, service.port);
  assert.deepEqual(await service.stop(), { code: 0, signal: null });
  assert.equal(service.logs().at(-1)?.msg, 'stopped');
  // The purge job runs at once when jobs run: the expired key would be gone.
  assert.deepEqual(await idempotencyKeys(), [expiredKey, freshKey]);
});

test('--role worker runs the jobs, opens no port and stops cleanly on SIGTERM', {
  timeout: hangCatcherMs,
}, async () => {
  const port = await freePort();
  const service = await startService({ database, args: ['serve', '--role', 'worker'], port });
  const started = await service.waitForLog((line) => line.msg === 'Servery started');
  assert.equal(started.role, 'worker');
  assert.equal(started.port, undefined);
  assert.equal(
    service.logs().find((line) => String(line.msg).startsWith('Server listening')),
    undefined,
  );
  await assert.rejects(fetch(`http://127.0.0.1:${port}/health`), 'nothing answers on PORT');
  assert.equal(await portIsFree(port), true, 'the worker holds no port');
  assert.doesNotMatch(service.stdout(), /Demo data created/, 'the worker creates no demo data');
  assert.deepEqual(await service.stop(), { code: 0, signal: null });
  assert.equal(service.logs().at(-1)?.msg, 'stopped');
  assert.equal(service.stderr(), '');
  // The stop waited for the purge that started with the worker.
  assert.deepEqual(await idempotencyKeys(), [freshKey]);
});

test('an unknown role is refused with exit code 2 and a message, before anything is opened', async () => {
  const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'servery-ops-role-')), 'data');
  try {
    for (const args of [
      ['serve', '--role', 'chef'],
      ['serve', '--role'],
      ['serve', '--rolle', 'api'],
    ]) {
      const service = await startService({ database: null, args, env: { DATA_DIR: dataDir } });
      assert.deepEqual(await service.waitForExit(), { code: 2, signal: null }, args.join(' '));
      assert.equal(service.stdout(), '');
      assert.match(service.stderr(), /^servery: .*--rol/m);
      assert.doesNotMatch(service.stderr(), /\n\s+at /, 'a message, not a stack trace');
    }
    const service = await startService({
      database: null,
      args: ['serve', '--role', 'chef'],
      env: { DATA_DIR: dataDir },
    });
    await service.waitForExit();
    assert.match(service.stderr(), /--role must be api, worker or all, not "chef"/);
    assert.equal(existsSync(dataDir), false, 'no data directory was created');
  } finally {
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
});
