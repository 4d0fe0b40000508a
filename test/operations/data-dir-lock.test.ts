import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, test } from 'node:test';
import { dataDirLockName } from '../../src/db/client.ts';
import { hangCatcherMs } from '../waiting.ts';
import {
  bearer,
  killServices,
  migratedDatabase,
  postgresUrl,
  type SeededConnection,
  type ServiceDatabase,
  seedConnections,
  startService,
} from './service.ts';

let database: ServiceDatabase | null = null;
after(async () => {
  await killServices();
  await database?.remove();
});

/** The file's database, made on first use. */
async function ownDatabase(): Promise<ServiceDatabase> {
  database ??= await migratedDatabase();
  return database;
}

const skip = postgresUrl ? 'PGlite only: PostgreSQL itself serves many processes at once' : false;

test('a PGlite directory is opened by one process at a time; a stale lock is taken over', {
  skip,
  timeout: hangCatcherMs,
}, async () => {
  const database = await ownDatabase();
  const dataDir = database.dataDir as string;
  const [connection] = (await seedConnections(database, 1)) as [SeededConnection];
  const first = await startService({ database, env: { DEMO_DATA: 'false' } });
  await first.ready();

  // Two PGlite instances on one directory would each write their own view of it. (The other
  // commands use the running service's database instead: see cli-beside-service.test.ts.)
  const second = await startService({ database, env: { DEMO_DATA: 'false' } });
  assert.deepEqual(await second.waitForExit(), { code: 2, signal: null });
  assert.match(second.stderr(), new RegExp(`data directory .* is in use by process ${first.child.pid}`));
  const me = await fetch(`${first.url}/v1/me`, { headers: bearer(connection.token) });
  assert.equal(me.status, 200, 'the first process is undisturbed');
  assert.deepEqual(await first.stop(), { code: 0, signal: null });
  assert.equal(existsSync(path.join(dataDir, dataDirLockName)), false);

  // A lock whose process is gone (and a garbled one, from a kill while it was written) is stale.
  for (const content of ['999999999\nsome-host\n', '']) {
    writeFileSync(path.join(dataDir, dataDirLockName), content);
    const next = await startService({ database, env: { DEMO_DATA: 'false' } });
    await next.ready();
    assert.deepEqual(await next.stop(), { code: 0, signal: null });
  }
});

test('a start that fails (its port is taken) exits 1 and leaves the database closed', {
  timeout: hangCatcherMs,
}, async () => {
  const shared = await ownDatabase();
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  try {
    const port = (blocker.address() as net.AddressInfo).port;
    const failed = await startService({ database: shared, port, env: { DEMO_DATA: 'false' } });
    assert.deepEqual(await failed.waitForExit(), { code: 1, signal: null });
    assert.match(failed.stderr(), /EADDRINUSE/);
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
  if (shared.dataDir) {
    const dataDir = shared.dataDir;
    assert.equal(existsSync(path.join(dataDir, dataDirLockName)), false, 'the lock was released');
    assert.equal(existsSync(path.join(dataDir, 'postmaster.pid')), false, 'PGlite was closed');
  }
});
