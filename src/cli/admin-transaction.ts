import { sql } from 'kysely';
import { loadConfig } from '../config.ts';
import { type Database, DataDirInUseError, openDatabase } from '../db/client.ts';
import { dataDirSocketUrl } from '../db/data-dir-socket.ts';
import { migrationNames } from '../db/migrate.ts';
import { type Ctx, systemClock, systemCtx } from '../domain/shared/context.ts';
import { InputError } from '../domain/shared/errors.ts';
import { readSandboxClock } from '../domain/shared/sandbox-clock.ts';

/**
 * Runs an admin command's work in one transaction on the configured database, as the system
 * actor: an error (an InputError from the domain, say) rolls everything back. The database must
 * be migrated; the command does not migrate it.
 */
export async function inAdminTransaction<T>(work: (ctx: Ctx) => Promise<T>): Promise<T> {
  const database = await openConfiguredDatabase();
  try {
    await requireMigrated(database);
    // With SANDBOX_CLOCK the command's times follow the sandbox clock too (a rotated secret's expiry).
    const clock = loadConfig().sandboxClock ? await readSandboxClock(database.db) : systemClock;
    return await database.db.transaction().execute((trx) => work(systemCtx(trx, clock)));
  } finally {
    await database.close();
  }
}

/**
 * The database the settings name: DATABASE_URL, else PGlite in DATA_DIR, opened here or, while a
 * running service has the directory open, used through that service.
 */
export async function openConfiguredDatabase(): Promise<Database> {
  const config = loadConfig();
  // The same choice as databaseTarget in src/main.ts, without loading the HTTP server's modules.
  if (config.databaseUrl) return openDatabase({ url: config.databaseUrl });
  try {
    return await openDatabase({ dataDir: config.dataDir });
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    return openThroughSocket(config.dataDir, error);
  }
}

/*
 * The database of the process that has the directory open, through its socket (data-dir-socket.ts)
 * on one connection: the command has the database to itself from its first query until it
 * closes, and the service's own queries wait meanwhile. So the connection waits its turn behind
 * other commands, up to a minute. A process that does not share the database (still starting, or
 * its socket path would be too long) leaves the directory in use.
 */
async function openThroughSocket(dataDir: string, inUse: DataDirInUseError): Promise<Database> {
  const url = dataDirSocketUrl(dataDir);
  const database = await openDatabase({ url, connections: 1, connectTimeoutMs: 60_000 });
  try {
    await sql`SELECT 1`.execute(database.db);
    return database;
  } catch (error) {
    await database.close();
    const code = (error as { code?: unknown }).code;
    throw code === 'ENOENT' || code === 'ECONNREFUSED' ? inUse : error;
  }
}

/** Refuses a database with pending migrations: the admin commands do not migrate. */
export async function requireMigrated(database: Database): Promise<void> {
  const pending = await pendingMigrations(database);
  if (pending.length > 0)
    throw new InputError(
      `the database lacks the migrations ${pending.join(', ')}: run "servery migrate" first`,
    );
}

async function pendingMigrations(database: Database): Promise<string[]> {
  const table = await sql<{
    name: string | null;
  }>`SELECT to_regclass('schema_migrations')::text AS name`.execute(database.db);
  if (!table.rows[0]?.name) return migrationNames();
  const applied = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(database.db);
  const done = new Set(applied.rows.map((row) => row.name));
  return migrationNames().filter((name) => !done.has(name));
}
