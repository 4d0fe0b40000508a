import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Database, openDatabase } from '../src/db/client.ts';
import { distributionStatements, placeTables, readSchema } from '../src/db/distribution.ts';
import { migrate } from '../src/db/migrate.ts';
import { newCitusDatabase } from '../test/citus-cluster.ts';

export type BenchDatabaseKind = 'pglite' | 'postgres';

export const defaultPostgresUrl = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  readonly database: Database;
  /** Where the data lives, for the report (no password). */
  readonly where: string;
  /** The PostgreSQL database's connection string, for a service process of its own (null on PGlite). */
  readonly url: string | null;
  /** Closes the database and removes it (the temp directory, or DROP DATABASE). */
  dispose(): Promise<void>;
}

/** A fresh, migrated database: PGlite in a temp directory (on disk, as in production) or a new PostgreSQL database. */
export async function openBenchDatabase(kind: BenchDatabaseKind): Promise<BenchDatabase> {
  return kind === 'pglite' ? openPglite() : openPostgres(process.env.DATABASE_URL || defaultPostgresUrl);
}

async function openPglite(): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'servery-bench-'));
  const remove = () => rmSync(dataDir, { recursive: true, force: true });
  try {
    const database = await openDatabase({ dataDir });
    await migrate(database);
    return {
      database,
      where: dataDir,
      url: null,
      dispose: async () => {
        try {
          await database.close();
        } finally {
          remove();
        }
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}

async function withAdmin<T>(serverUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/**
 * Drops the bench database once the app's connections have gone. The pool's end() resolves as
 * soon as it has asked its clients to close; dropping WITH (FORCE) before the server has seen
 * them go would send them a FATAL error that the pool, having no error listener, throws.
 */
async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await withAdmin(serverUrl, async (admin) => {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      const { rows } = await admin.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      if (rows[0]?.n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
}

/** A new, empty PostgreSQL database (`servery_bench_<random>`) and how to drop it. */
export async function createPostgresDatabase(
  serverUrl = process.env.DATABASE_URL || defaultPostgresUrl,
): Promise<{ url: string; where: string; drop(): Promise<void> }> {
  const name = `servery_bench_${randomBytes(6).toString('hex')}`;
  try {
    await withAdmin(serverUrl, (admin) => admin.query(`CREATE DATABASE ${name}`));
  } catch (error) {
    const where = redact(serverUrl);
    throw new Error(
      `cannot create a database on ${where} (${(error as Error).message}); set DATABASE_URL or use --only pglite`,
      { cause: error },
    );
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), where: redact(url.toString()), drop: () => dropDatabase(serverUrl, name) };
}

async function openPostgres(serverUrl: string): Promise<BenchDatabase> {
  const { url, where, drop } = await createPostgresDatabase(serverUrl);
  try {
    const database = await openDatabase({ url });
    await migrate(database);
    return {
      database,
      where,
      url,
      dispose: async () => {
        try {
          await database.close();
        } finally {
          await drop();
        }
      },
    };
  } catch (error) {
    await drop();
    throw error;
  }
}

/**
 * A new database on the Citus cluster whose coordinator CITUS_URL names, migrated and placed as
 * `servery distribute` places it (32 shards a table, Citus's default).
 */
export async function openCitusBenchDatabase(coordinatorUrl: string): Promise<BenchDatabase> {
  const cluster = await newCitusDatabase(coordinatorUrl);
  try {
    const database = await openDatabase({ url: cluster.url });
    await migrate(database);
    const statements = distributionStatements(await readSchema(database.db), cluster.name);
    await database.db.transaction().execute((trx) => placeTables(trx, statements));
    return {
      database,
      where: `${redact(cluster.url)} (Citus)`,
      url: cluster.url,
      dispose: async () => {
        try {
          await database.close();
        } finally {
          await cluster.drop();
        }
      },
    };
  } catch (error) {
    await cluster.drop();
    throw error;
  }
}

function redact(connectionString: string): string {
  const url = new URL(connectionString);
  if (url.password) url.password = '***';
  return url.toString();
}
