import { sql } from 'kysely';
import { loadConfig } from '../config.ts';
import { type Database, openDatabase } from '../db/client.ts';
import { migrationNames } from '../db/migrate.ts';
import { type Ctx, systemCtx } from '../domain/context.ts';
import { InputError } from '../domain/errors.ts';

/**
 * Runs an admin command's work in one transaction on the configured database, as the system
 * actor: an error (an InputError from the domain, say) rolls everything back. The database must
 * be migrated; the command does not migrate it.
 */
export async function inAdminTransaction<T>(work: (ctx: Ctx) => Promise<T>): Promise<T> {
  const database = await openConfiguredDatabase();
  try {
    const pending = await pendingMigrations(database);
    if (pending.length > 0) {
      throw new InputError(
        `the database lacks the migrations ${pending.join(', ')}: run "servery migrate" first`,
      );
    }
    return await database.db.transaction().execute((trx) => work(systemCtx(trx)));
  } finally {
    await database.close();
  }
}

/** The database the settings name (DATABASE_URL, else PGlite in DATA_DIR). */
export function openConfiguredDatabase(): Promise<Database> {
  const config = loadConfig();
  // The same choice as databaseTarget in src/main.ts, without loading the HTTP server's modules.
  return openDatabase(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir });
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
