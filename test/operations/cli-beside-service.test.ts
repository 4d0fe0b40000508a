import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { dataDirLockName, openDatabase } from '../../src/db/client.ts';
import { dataDirSocketName, dataDirSocketUrl } from '../../src/db/data-dir-socket.ts';
import { migratedPgliteDump } from '../harness.ts';
import { hangCatcherMs } from '../waiting.ts';
import {
  bearer,
  cliPath,
  killServices,
  migratedDatabase,
  postgresUrl,
  type SeededConnection,
  type ServiceDatabase,
  seedConnections,
  startService,
} from './service.ts';

/*
 * The operator CLI beside a service running on PGlite: the service has the data directory open
 * and shares its database through a socket in it; the CLI, finding the directory in use, works
 * through that socket.
 */

const skip = postgresUrl ? 'PGlite only: PostgreSQL itself serves many processes at once' : false;

let database: ServiceDatabase | null = null;
const directories: string[] = [];
after(async () => {
  await killServices();
  await database?.remove();
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
});

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `servery <args>` in a child process on the data directory. */
function servery(dataDir: string, ...args: string[]): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', DATA_DIR: dataDir };
  for (const name of ['DATABASE_URL', 'NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'SANDBOX_CLOCK']) delete env[name];
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath, ...args], { env, timeout: hangCatcherMs }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

// biome-ignore lint/suspicious/noExplicitAny: tests read the printed JSON field by field
function jsonOf(run: CliRun): Record<string, any> {
  assert.equal(run.stderr, '');
  assert.equal(run.code, 0);
  return JSON.parse(run.stdout);
}

const password = 'correct horse battery';

test('CLI commands run beside the service, which keeps answering; alone again once it stops or is killed', {
  skip,
  timeout: hangCatcherMs,
}, async () => {
  database = await migratedDatabase();
  const dataDir = database.dataDir as string;
  const [connection] = (await seedConnections(database, 1)) as [SeededConnection];
  const service = await startService({ database, env: { DEMO_DATA: 'false' } });
  await service.ready();
  assert.ok(existsSync(path.join(dataDir, dataDirSocketName)), 'the service shares its database');

  // The service answers all along, while the commands below run.
  let answering = true;
  const statuses: number[] = [];
  const load = (async () => {
    while (answering) {
      const response = await fetch(`${service.url}/health`).catch(() => null);
      statuses.push(response?.status ?? 0);
      if (!response) return;
      await response.arrayBuffer();
    }
  })();

  const owner = jsonOf(
    await servery(
      dataDir,
      'owner',
      'create',
      '--email',
      'giulia@beside.test',
      '--password',
      password,
      '--json',
    ),
  );
  const { restaurant } = jsonOf(
    await servery(
      dataDir,
      ...['restaurant', 'create', '--name', 'Trattoria Beside', '--owner', 'giulia@beside.test'],
      ...['--plan', 'pro', '--live', '--timezone', 'Europe/Rome', '--currency', 'EUR', '--json'],
    ),
  );
  // What the CLI made, the service sees at once: the owner signs in and sees the restaurant.
  const signIn = await fetch(`${service.url}/dashboard/api/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: owner.account.email, password }),
  });
  assert.equal(signIn.status, 200, await signIn.text());
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const store = await fetch(`${service.url}/dashboard/api/restaurants/${restaurant.id}/store`, {
    headers: { cookie },
  });
  assert.equal(store.status, 200, await store.text());

  // A change of the CLI applies to the running service's API.
  jsonOf(
    await servery(dataDir, 'restaurant', 'subscription', connection.tenantId, '--active', 'false', '--json'),
  );
  const inactive = await fetch(`${service.url}/v1/store`, { headers: bearer(connection.token) });
  assert.equal(inactive.status, 403);
  assert.equal(((await inactive.json()) as { error: { code: string } }).error.code, 'account_inactive');
  jsonOf(
    await servery(dataDir, 'restaurant', 'subscription', connection.tenantId, '--active', 'true', '--json'),
  );
  assert.equal((await fetch(`${service.url}/v1/store`, { headers: bearer(connection.token) })).status, 200);

  // The service migrated at start: migrate finds nothing to do. A refused command changes nothing.
  assert.deepEqual(jsonOf(await servery(dataDir, 'migrate', '--json')), { applied: [] });
  const taken = await servery(dataDir, 'owner', 'create', '--email', 'giulia@beside.test', '--json');
  assert.equal(taken.code, 2, taken.stderr);
  // Commands at once take turns.
  const together = await Promise.all(
    [1, 2, 3].map((n) => servery(dataDir, 'owner', 'create', '--email', `owner${n}@beside.test`, '--json')),
  );
  for (const run of together) jsonOf(run);

  answering = false;
  await load;
  assert.ok(statuses.length > 0);
  assert.deepEqual(new Set(statuses), new Set([200]), 'the service kept answering');

  assert.deepEqual(await service.stop(), { code: 0, signal: null });
  assert.equal(existsSync(path.join(dataDir, dataDirSocketName)), false, 'the socket went with the service');
  jsonOf(await servery(dataDir, 'owner', 'create', '--email', 'alone@beside.test', '--json'));

  // A killed service leaves its lock and socket: neither the CLI nor the next start minds.
  const killed = await startService({ database, env: { DEMO_DATA: 'false' } });
  await killed.ready();
  killed.child.kill('SIGKILL');
  await killed.waitForExit();
  assert.ok(
    existsSync(path.join(dataDir, dataDirLockName)) && existsSync(path.join(dataDir, dataDirSocketName)),
  );
  jsonOf(await servery(dataDir, 'owner', 'create', '--email', 'after-kill@beside.test', '--json'));
  const next = await startService({ database, env: { DEMO_DATA: 'false' } });
  await next.ready();
  jsonOf(await servery(dataDir, 'owner', 'create', '--email', 'beside-next@beside.test', '--json'));
  const signInAgain = await fetch(`${next.url}/dashboard/api/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: owner.account.email, password }),
  });
  assert.equal(signInAgain.status, 200);
  assert.deepEqual(await next.stop(), { code: 0, signal: null });
});

test('a socket client and the process take turns: their transactions never interleave', {
  skip,
  timeout: hangCatcherMs,
}, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'servery-socket-'));
  directories.push(dataDir);
  const opened = await openDatabase({ dataDir, initialData: await migratedPgliteDump() });
  const { db } = opened;
  const count = async () =>
    Number((await sql<{ n: string }>`SELECT count(*) AS n FROM probe`.execute(db)).rows[0]?.n);
  /*
   * Whether `promise` is still pending 300 ms on: a wait that cannot fail a database that makes
   * the client wait (it waits however slow the machine), and gives one that does not the time to
   * get its query into the process's transaction, which what it counts then shows.
   */
  const pending = async (promise: Promise<unknown>) =>
    (await Promise.race([
      promise.then(() => 'done'),
      new Promise((resolve) => setTimeout(resolve, 300, 'pending')),
    ])) === 'pending';
  const client = async () => {
    const connected = new pg.Client({ connectionString: dataDirSocketUrl(dataDir) });
    connected.on('error', () => {});
    await connected.connect();
    return connected;
  };
  try {
    await opened.execScript('CREATE TABLE probe (n int)');

    // The client's transaction: the process's queries wait until the client is done. Its count,
    // asked once the client's row is inserted, never sees that row, which is then rolled back.
    const first = await client();
    await first.query('BEGIN');
    await first.query({ name: 'insert', text: 'INSERT INTO probe VALUES ($1)', values: [1] });
    const counted = count();
    await first.query('ROLLBACK');
    await first.end();
    assert.equal(await counted, 0, 'the process counted after the client, not inside its transaction');
    await sql`INSERT INTO probe VALUES (1)`.execute(db);

    // The process's transaction: the client waits until it has ended. Its count never sees the
    // row the process inserts and then rolls back.
    let inserted = () => {};
    const insertedRow = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    let rollBack = () => {};
    const transaction = db.transaction().execute(async (trx) => {
      await sql`INSERT INTO probe VALUES (2)`.execute(trx);
      inserted();
      await new Promise<void>((resolve) => {
        rollBack = resolve;
      });
      throw new Error('rolled back');
    });
    await insertedRow;
    const secondDone = client().then(async (connected) => {
      const rows = await connected.query('SELECT count(*)::int AS n FROM probe');
      return { connected, n: rows.rows[0].n as number };
    });
    assert.ok(await pending(secondDone), 'the client waits for the process');
    rollBack();
    await assert.rejects(transaction, /rolled back/);
    const { connected, n } = await secondDone;
    assert.equal(n, 1, 'the client counted after the process, not inside its transaction');
    await connected.query('INSERT INTO probe VALUES (2)');

    // A client gone mid-transaction leaves nothing: its rows are rolled back, its statements dropped.
    await connected.query('BEGIN');
    await connected.query({ name: 'insert', text: 'INSERT INTO probe VALUES ($1)', values: [3] });
    connected.connection.stream.destroy();
    assert.equal(await count(), 2);
    const third = await client();
    await third.query({ name: 'insert', text: 'INSERT INTO probe VALUES ($1)', values: [4] });
    await third.end();
    assert.equal(await count(), 3);
  } finally {
    await opened.close();
  }
  assert.equal(existsSync(path.join(dataDir, dataDirSocketName)), false);
});
