import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect, type PostgresPool, sql } from 'kysely';
import pg from 'pg';
import { ConfigError } from '../config.ts';
import { isDatabaseUnavailable } from './availability.ts';
import { shareDataDir } from './data-dir-socket.ts';
import type { DB } from './schema.ts';

export type Db = Kysely<DB>;

/**
 * Where the data lives: a PostgreSQL server, a PGlite directory, or PGlite in memory (tests). A new
 * PGlite database may start from `initialData`, a dump of another (`dumpDataDir`), instead of an
 * empty cluster: much faster than initialising one. On a server, `connections` caps the pool
 * (default 10) and `connectTimeoutMs` bounds the wait for a new connection (default 2 s);
 * `replicaUrl` names a read replica of it, where reads that may lag go (`onReplica`).
 */
export type DatabaseTarget =
  | { url: string; connections?: number; connectTimeoutMs?: number; replicaUrl?: string }
  | { dataDir: string; initialData?: Blob }
  | { memory: true; initialData?: Blob };

export interface Database {
  readonly db: Db;
  readonly kind: 'postgres' | 'pglite';
  /**
   * Runs a script of several statements (migrations) on one session; if a statement fails, an
   * open transaction of the script is rolled back before the error is passed on.
   */
  execScript(script: string): Promise<void>;
  close(): Promise<void>;
}

/** The pg pool behind each PostgreSQL database (stores that live in it use it: the rate limits). */
const postgresPools = new WeakMap<Db, pg.Pool>();

/** The pg pool of a database opened on a PostgreSQL server; none for PGlite. */
export function postgresPoolOf(db: Db): pg.Pool | undefined {
  return postgresPools.get(db);
}

/** How long a request waits for a new database connection before it fails. */
const connectTimeoutMs = 2000;

/** A `date` (a restaurant-local calendar day) is read as its text, YYYY-MM-DD: no time zone applies. */
const dateOid = 1082;
const asText = (value: string) => value;

/** The read replica of each PostgreSQL database opened with one. */
const replicas = new WeakMap<Db, Db>();

/**
 * Runs a read that may lag behind the last writes by a moment (the reports) on the database's
 * read replica, when it has one (DATABASE_REPLICA_URL), else on the database itself; also there
 * when the replica cannot be reached. `db` inside a transaction is the transaction's: read there.
 */
export function onReplica<T>(db: Db, read: (db: Db) => Promise<T>): Promise<T> {
  return readReplicaOr(db, read, async () => true);
}

/**
 * Runs a read that must see every write committed before it began (the lists apps poll: an order
 * placed through any process is listed at once) on the read replica only when the replica has
 * replayed everything the server had written by then (its WAL insert position), else on the
 * server. docs/scale-out.md, "Read replicas", has how often that holds under load.
 */
export function onCaughtUpReplica<T>(db: Db, read: (db: Db) => Promise<T>): Promise<T> {
  return readReplicaOr(db, read, async (replica) => {
    const written = await sql<{ lsn: string }>`SELECT pg_current_wal_insert_lsn()::text AS lsn`.execute(db);
    const replayed = await sql<{ caught_up: boolean | null }>`
      SELECT pg_last_wal_replay_lsn() >= ${written.rows[0]?.lsn}::pg_lsn AS caught_up`.execute(replica);
    return replayed.rows[0]?.caught_up === true;
  });
}

async function readReplicaOr<T>(
  db: Db,
  read: (db: Db) => Promise<T>,
  usable: (replica: Db) => Promise<boolean>,
): Promise<T> {
  const replica = replicas.get(db);
  if (!replica) return read(db);
  try {
    if (await usable(replica)) return await read(replica);
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
  }
  return read(db);
}

/*
 * PGlite's WebAssembly, compiled once per process, and its file-system bundle, read once: shared
 * by every database the process opens in memory (the tests, a few per test file).
 */
let binaries: Promise<{ pgliteWasmModule: WebAssembly.Module; fsBundle: Blob }> | undefined;
function pgliteBinaries() {
  binaries ??= (async () => {
    const dist = new URL('.', import.meta.resolve('@electric-sql/pglite'));
    return {
      pgliteWasmModule: await WebAssembly.compile(readFileSync(new URL('pglite.wasm', dist))),
      fsBundle: new Blob([readFileSync(new URL('pglite.data', dist))]),
    };
  })();
  return binaries;
}

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if ('url' in target) {
    const db = postgresDb(target.url, target);
    const replica = target.replicaUrl ? postgresDb(target.replicaUrl, target) : null;
    if (replica) replicas.set(db, replica);
    return {
      db,
      kind: 'postgres',
      execScript: async (script) => {
        const client = await (postgresPoolOf(db) as pg.Pool).connect();
        try {
          await client.query(script);
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        } finally {
          client.release();
        }
      },
      close: async () => {
        await replica?.destroy();
        await db.destroy();
      },
    };
  }
  let pglite: PGlite;
  let unlock = () => {};
  let unshare = async () => {};
  if ('dataDir' in target) {
    mkdirSync(target.dataDir, { recursive: true });
    unlock = lockDataDir(target.dataDir);
    try {
      pglite = await PGlite.create({
        dataDir: target.dataDir,
        loadDataDir: target.initialData,
        parsers: { [dateOid]: asText },
      });
      // Other processes (the CLI beside a running service) use the database through its socket.
      unshare = await shareDataDir(pglite, target.dataDir).catch(async (error) => {
        await pglite.close();
        throw error;
      });
    } catch (error) {
      unlock();
      throw error;
    }
  } else {
    pglite = await PGlite.create({
      loadDataDir: target.initialData,
      parsers: { [dateOid]: asText },
      ...(await pgliteBinaries()),
    });
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    kind: 'pglite',
    execScript: async (script) => {
      try {
        await pglite.exec(script);
      } catch (error) {
        await pglite.exec('ROLLBACK');
        throw error;
      }
    },
    close: async () => {
      await unshare();
      await db.destroy();
      // Kysely opens its connection lazily: without a query it never had one to close.
      if (!pglite.closed) await pglite.close();
      unlock();
    },
  };
}

/** A pool on a PostgreSQL server, as Kysely. */
function postgresDb(url: string, options: { connections?: number; connectTimeoutMs?: number }): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.connections ?? 10,
    // While the database is unreachable a request fails at once instead of waiting for a
    // connection that does not come; dead peers are noticed by TCP keepalive.
    connectionTimeoutMillis: options.connectTimeoutMs ?? connectTimeoutMs,
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === dateOid
          ? asText
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // A connection the server ends or loses (a restart, a network fault) fails only the query on
  // it; the pool drops it and opens a new one for the next. The pool's own 'error' event covers
  // idle connections only: a connection in use reports on its own client, and an error event
  // without a listener would end the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: withPreparedStatements(pool) }) });
  postgresPools.set(db, pool);
  return db;
}

/*
 * pg sends queries as unnamed statements, which PostgreSQL parses and plans anew on every call
 * (for the token lookup of every API request, planning costs more than running it). A named
 * statement is planned once per connection. Every parameterised query is named after its text,
 * so the names are as many as the query shapes in our code.
 */
function withPreparedStatements(pool: pg.Pool): PostgresPool {
  return {
    Client: pg.Client,
    options: pool.options,
    end: () => pool.end(),
    connect: async () => {
      const client = await pool.connect();
      return {
        query: ((text: unknown, values?: unknown[]) =>
          typeof text === 'string' && values !== undefined && values.length > 0
            ? client.query({ name: statementName(text), text, values })
            : client.query(text as string, values)) as never,
        release: () => client.release(),
      };
    },
  };
}

function statementName(text: string): string {
  return `q_${createHash('sha1').update(text).digest('hex')}`;
}

/** The lock file in a PGlite data directory: the pid and host of the process that has it open. */
export const dataDirLockName = 'servery.lock';

/** The data directory is open in another process that runs (exit code 2 in the CLI). */
export class DataDirInUseError extends ConfigError {}

/** Data directories this process has open (a second open of one would bypass the lock file). */
const lockedHere = new Set<string>();

/*
 * PGlite is PostgreSQL in one process, with no server to keep two processes apart: two of them
 * on one directory (a second `serve`, a new instance started before the old one has stopped)
 * each write their own view of it and corrupt it. PGlite itself does not prevent that (its
 * postmaster.pid names no real process), so a directory is opened by one process at a time: the
 * opener creates servery.lock exclusively and removes it on close. Meanwhile others use its
 * database through its socket (data-dir-socket.ts): the CLI beside a running service.
 *
 * A lock whose process is gone (killed with SIGKILL, crashed, the machine restarted) is stale and
 * taken over, as PostgreSQL does with its postmaster.pid: its pid is no running process, or it
 * is our own pid or our parent's (a restarted container gives the new process the old pid).
 * PGlite recovers the data itself from its write-ahead log on that open.
 */
function lockDataDir(dataDir: string): () => void {
  const dir = path.resolve(dataDir);
  if (lockedHere.has(dir)) throw new ConfigError(`the data directory ${dir} is already open in this process`);
  const file = path.join(dir, dataDirLockName);
  for (let attempt = 1; ; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n${hostname()}\n`, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 3) throw error;
    }
    const [pid, host] = readLock(file);
    if (pid !== null && isAnotherLiveProcess(pid)) {
      throw new DataDirInUseError(
        `the data directory ${dir} is in use by process ${pid}${host ? ` on ${host}` : ''}: ` +
          `stop that process first (if no such process runs, delete ${file})`,
      );
    }
    rmSync(file, { force: true });
  }
  lockedHere.add(dir);
  return () => {
    if (!lockedHere.delete(dir)) return;
    rmSync(file, { force: true });
  };
}

function readLock(file: string): [pid: number | null, host: string | undefined] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [null, undefined];
    throw error;
  }
  const [pid, host] = text.split('\n');
  // An empty or garbled file was left by a process killed while it wrote it.
  return [/^[1-9]\d*$/.test(pid ?? '') ? Number(pid) : null, host || undefined];
}

function isAnotherLiveProcess(pid: number): boolean {
  if (pid === process.pid || pid === process.ppid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
