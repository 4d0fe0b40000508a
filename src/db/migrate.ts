import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { Database } from './client.ts';

const migrationsDir = new URL('./migrations/', import.meta.url);

/** Arbitrary constant naming our advisory lock, so concurrent starts migrate one at a time. */
const migrationLock = 727_2026;

export function migrationNames(dir: URL = migrationsDir): string[] {
  return readdirSync(dir)
    .filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name))
    .sort();
}

/**
 * Applies the SQL files of migrations/ (or of `dir`: the tests of a migration yet to be written)
 * that the database has not seen, in name order, each in its own transaction together with its
 * record in schema_migrations. When two processes start at once, the second waits on the lock and
 * then fails to record the same name: it re-reads and goes on.
 */
export async function migrate(database: Database, dir: URL = migrationsDir): Promise<string[]> {
  await database.execScript(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  // On a Citus cluster a migration's DDL on a reference table after DDL on a distributed one in
  // the same transaction is refused unless the distributed one's went shard by shard.
  const citus = await sql<{ on: boolean }>`
    SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') AS on`.execute(database.db);
  const prelude = citus.rows[0]?.on ? "SET LOCAL citus.multi_shard_modify_mode TO 'sequential';\n" : '';
  const applied: string[] = [];
  for (const name of migrationNames(dir)) {
    const done = await sql<{ name: string }>`SELECT name FROM schema_migrations WHERE name = ${name}`.execute(
      database.db,
    );
    if (done.rows.length > 0) continue;
    const body = readFileSync(new URL(name, dir), 'utf8');
    try {
      await database.execScript(
        `BEGIN;\n${prelude}SELECT pg_advisory_xact_lock(${migrationLock});\nINSERT INTO schema_migrations (name) VALUES ('${name}');\n${body}\nCOMMIT;`,
      );
      applied.push(name);
    } catch (error) {
      if ((error as { code?: string }).code !== '23505') throw error;
    }
  }
  return applied;
}
