/*
 * The service as operators run it: `node src/cli/main.ts serve` in a child process, on a database
 * of its own (a PGlite directory, or with DATABASE_URL a new PostgreSQL database, with CITUS_URL a
 * distributed one on that cluster).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Database, openDatabase } from '../../src/db/client.ts';
import { createAccount } from '../../src/domain/accounts/accounts.service.ts';
import { createApp, setAppStatus } from '../../src/domain/apps/apps.service.ts';
import { issueAccessToken } from '../../src/domain/connections/access-tokens.ts';
import { consentToApp } from '../../src/domain/connections/connections.service.ts';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { scopes } from '../../src/domain/shared/scopes.ts';
import { citusUrl } from '../citus-cluster.ts';
import { migratedPgliteDump, openTestDatabase } from '../harness.ts';
import { eventually, hangCatcherMs, settled } from '../waiting.ts';

export { bearer } from '../harness.ts';

export const postgresUrl = process.env.DATABASE_URL || null;
export const cliPath = new URL('../../src/cli/main.ts', import.meta.url).pathname;
const repoRoot = new URL('../../', import.meta.url).pathname;

/** A database for one service: the settings that name it, and a way to look into it from the test. */
export interface ServiceDatabase {
  /** DATA_DIR or DATABASE_URL for the service. */
  readonly env: Readonly<Record<string, string>>;
  /** The PGlite directory (null on PostgreSQL). */
  readonly dataDir: string | null;
  /** Opens it in the test process; with PGlite only while no service has it open. */
  open(): Promise<Database>;
  /** Removes the directory or drops the database. */
  remove(): Promise<void>;
}

/** A database with nothing in it: no tables, no migrations. */
export async function emptyDatabase(): Promise<ServiceDatabase> {
  if (!postgresUrl) return pgliteDirectory(mkdtempSync(path.join(tmpdir(), 'servery-ops-data-')));
  const name = `servery_ops_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return postgresDatabase(url.toString(), () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * A migrated database without accounts: a service started on it creates the demo data. With
 * CITUS_URL, a distributed one on that cluster (harness.ts).
 */
export async function migratedDatabase(): Promise<ServiceDatabase> {
  if (!postgresUrl && !citusUrl) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'servery-ops-data-'));
    const database = await openDatabase({ dataDir, initialData: await migratedPgliteDump() });
    await database.close();
    return pgliteDirectory(dataDir);
  }
  const database = await openTestDatabase();
  return postgresDatabase(database.url as string, () => database.close());
}

/** The PostgreSQL database at `url` for a service; `remove` drops it, or whatever holds it. */
export function postgresDatabase(url: string, remove: () => Promise<void>): ServiceDatabase {
  return { env: { DATABASE_URL: url }, dataDir: null, open: () => openDatabase({ url }), remove };
}

function pgliteDirectory(dataDir: string): ServiceDatabase {
  return {
    env: { DATA_DIR: dataDir },
    dataDir,
    open: () => openDatabase({ dataDir }),
    remove: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl as string });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Opens the database in the test process, runs `work` on it and closes it again. */
export async function withDatabase<T>(
  database: ServiceDatabase,
  work: (db: Database) => Promise<T>,
): Promise<T> {
  const opened = await database.open();
  try {
    return await work(opened);
  } finally {
    await opened.close();
  }
}

export interface SeededConnection {
  tenantId: string;
  connectionId: string;
  /** An access token of the connection (valid one hour). */
  token: string;
}

/**
 * `count` apps connected to one new restaurant, each with an access token: each connection can be
 * ended once through the API (DELETE /v1/connection), a write.
 */
export async function seedConnections(database: ServiceDatabase, count: number): Promise<SeededConnection[]> {
  return withDatabase(database, ({ db }) =>
    db.transaction().execute(async (trx) => {
      const ctx = systemCtx(trx);
      const tag = randomBytes(4).toString('hex');
      const developer = await createAccount(ctx, {
        email: `ops-${tag}@example.test`,
        password: 'correct horse battery',
        developer: true,
      });
      const restaurant = await createRestaurant(ctx, {
        name: `Operations ${tag}`,
        timezone: 'Europe/Berlin',
        currency: 'EUR',
        plan: 'pro',
        livemode: true,
        ownerIds: [developer.id],
      });
      const seeded: SeededConnection[] = [];
      for (let i = 0; i < count; i++) {
        const { app } = await createApp(ctx, {
          developerId: developer.id,
          name: `Operations app ${i}`,
          type: 'confidential',
          redirectUris: ['https://app.example.test/callback'],
          scopes,
        });
        await setAppStatus(ctx, app.clientId, 'approved');
        const connection = await consentToApp(ctx, { tenantId: restaurant.id, appId: app.id, scopes });
        const { token } = await issueAccessToken(ctx, {
          tenantId: restaurant.id,
          connectionId: connection.connectionId,
          scopes,
        });
        seeded.push({ tenantId: restaurant.id, connectionId: connection.connectionId, token });
      }
      return seeded;
    }),
  );
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Whether nothing listens on the port: this process can listen on it itself. */
export async function portIsFree(port: number): Promise<boolean> {
  const server = net.createServer();
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  return listening;
}

export type LogLine = Record<string, unknown> & { msg?: string; reqId?: string };

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Service {
  readonly child: ChildProcess;
  readonly port: number;
  readonly url: string;
  /** Everything the process wrote to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** The JSON lines of stdout, parsed (other lines, the demo data's description, are left out). */
  logs(): LogLine[];
  /**
   * Resolves with the first log line that matches; rejects when the process ends first (or, hung,
   * after the hang-catcher: test/waiting.ts).
   */
  waitForLog(match: (line: LogLine) => boolean): Promise<LogLine>;
  /** Resolves once GET /health answers 200; rejects when the process ends first. */
  ready(): Promise<void>;
  /** Resolves when the process has ended. */
  readonly exited: Promise<Exit>;
  /** Resolves with the exit once the process has ended (rejects only when it hangs). */
  waitForExit(): Promise<Exit>;
  /** SIGTERM, then the exit. */
  stop(): Promise<Exit>;
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Ends every service process still running (for after hooks). */
export async function killServices(): Promise<void> {
  await Promise.all(
    [...children].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const ended = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await ended;
    }),
  );
}

/** Runs `node src/cli/main.ts <args>` (default `serve`) with the database's settings. */
export async function startService(options: {
  database: ServiceDatabase | null;
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
  port?: number;
}): Promise<Service> {
  const port = options.port ?? (await freePort());
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'DATA_DIR',
    'NODE_TEST_CONTEXT',
    'NODE_OPTIONS',
    'BASE_URL',
    'DEMO_DATA',
  ]) {
    delete env[name];
  }
  Object.assign(env, { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' });
  Object.assign(env, options.database?.env, options.env);
  const child = spawn(process.execPath, [cliPath, ...(options.args ?? ['serve'])], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  const changed = new Set<() => void>();
  const notify = () => {
    for (const listener of changed) listener();
  };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    notify();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  let ended: Exit | null = null;
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      children.delete(child);
      // Set before the listeners hear of it: a wait for a log line that never came ends now.
      ended = { code, signal };
      resolve(ended);
      notify();
    });
  });
  const describe = () => `\n--- stdout ---\n${stdout.slice(-4000)}\n--- stderr ---\n${stderr.slice(-4000)}`;

  const logs = (): LogLine[] =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);

  const waitForExit = (): Promise<Exit> => settled('the service to end', exited, describe);

  const service: Service = {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    stdout: () => stdout,
    stderr: () => stderr,
    logs,
    exited,
    waitForExit,
    waitForLog: (match) =>
      new Promise<LogLine>((resolve, reject) => {
        const check = () => {
          const found = logs().find(match);
          if (found) return finish(() => resolve(found));
          if (ended)
            finish(() => reject(new Error(`the service ended (${JSON.stringify(ended)})${describe()}`)));
        };
        const timer = setTimeout(
          () =>
            finish(() =>
              reject(new Error(`no such log line after ${hangCatcherMs / 60_000} minutes${describe()}`)),
            ),
          hangCatcherMs,
        );
        timer.unref();
        const finish = (then: () => void) => {
          clearTimeout(timer);
          changed.delete(check);
          then();
        };
        changed.add(check);
        check();
      }),
    ready: async () => {
      await eventually(
        'GET /health answering 200',
        async () => {
          if (ended)
            throw new Error(`the service ended before it was ready (${JSON.stringify(ended)})${describe()}`);
          try {
            const response = await fetch(`${service.url}/health`);
            await response.arrayBuffer();
            return response.status === 200;
          } catch {
            return false; // not listening yet
          }
        },
        { describe },
      );
    },
    stop: () => {
      child.kill('SIGTERM');
      return waitForExit();
    },
  };
  return service;
}

/** The access token of the demo data a first start prints. */
export function demoToken(output: string): string {
  const token = /Authorization: Bearer (svc_at_[A-Za-z0-9_-]+)/.exec(output)?.[1];
  if (!token) throw new Error(`no demo access token in the output:\n${output.slice(0, 4000)}`);
  return token;
}
