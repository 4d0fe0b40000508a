import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Db, openDatabase } from '../../src/db/client.ts';
import { migratedPgliteDump, openTestDatabase } from '../harness.ts';
import { hangCatcherMs } from '../waiting.ts';

/*
 * The real `servery` CLI in a child process, on a database of the test file's own: a fresh PGlite
 * data directory (opened by the test only while no CLI runs), or a fresh PostgreSQL database when
 * DATABASE_URL is set.
 */

const cli = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

export interface CliDatabase {
  /** Runs `work` on the database, between CLI runs. */
  withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /** Runs `servery <args>` on the database. */
  run(...args: string[]): Promise<CliRun>;
  close(): Promise<void>;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A migrated database for the CLI; `seed` fills it before the first run. */
export async function openCliDatabase(seed: (db: Db) => Promise<void>): Promise<CliDatabase> {
  const env = cliEnv();
  let cliDatabase: Omit<CliDatabase, 'run'> & { env: NodeJS.ProcessEnv };
  if (process.env.DATABASE_URL) {
    const postgres = await openTestDatabase();
    cliDatabase = {
      env: { ...env, DATABASE_URL: postgres.url ?? '' },
      withDatabase: (work) => work(postgres.db),
      close: () => postgres.close(),
    };
  } else {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'servery-cli-test-'));
    await (await openDatabase({ dataDir, initialData: await migratedPgliteDump() })).close();
    cliDatabase = {
      env: { ...env, DATA_DIR: dataDir },
      withDatabase: async (work) => {
        const database = await openDatabase({ dataDir });
        try {
          return await work(database.db);
        } finally {
          await database.close();
        }
      },
      close: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  await cliDatabase.withDatabase(seed);
  return {
    withDatabase: cliDatabase.withDatabase,
    close: cliDatabase.close,
    run: (...args) => runServery(cliDatabase.env, args),
  };
}

/** The environment of a CLI command in a test: the test's own, quiet, without its database. */
export function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent' };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'NODE_TEST_CONTEXT', 'WEBHOOKS_ALLOW_INSECURE'])
    delete env[name];
  return env;
}

/** Runs `servery <args>` in a process of its own with `env`. */
export function runServery(env: NodeJS.ProcessEnv, args: readonly string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { env, timeout: hangCatcherMs }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

/** The one JSON object a successful `--json` run prints. */
// biome-ignore lint/suspicious/noExplicitAny: tests read the printed JSON field by field
export function jsonOf(run: CliRun): Record<string, any> {
  assert.equal(run.stderr, '');
  assert.equal(run.code, 0);
  assert.match(run.stdout, /^\{.*\}\n$/);
  return JSON.parse(run.stdout);
}
