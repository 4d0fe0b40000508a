import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { parse } from 'libpg-query';
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
  const citus = await sql<{ on: boolean }>`
    SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') AS on`.execute(database.db);
  const applied: string[] = [];
  for (const name of migrationNames(dir)) {
    const done = await sql<{ name: string }>`SELECT name FROM schema_migrations WHERE name = ${name}`.execute(
      database.db,
    );
    if (done.rows.length > 0) continue;
    const statements = await statementsOf(readFileSync(new URL(name, dir), 'utf8'));
    try {
      await database.db.transaction().execute(async (trx) => {
        // On a Citus cluster a migration's DDL on a reference table after DDL on a distributed
        // one in the same transaction is refused unless the distributed one's went shard by shard.
        if (citus.rows[0]?.on)
          await sql`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`.execute(trx);
        await sql`SELECT pg_advisory_xact_lock(${sql.lit(migrationLock)})`.execute(trx);
        await sql`INSERT INTO schema_migrations (name) VALUES (${name})`.execute(trx);
        for (const statement of statements) await sql.raw(statement).execute(trx);
      });
      applied.push(name);
    } catch (error) {
      if ((error as { code?: string }).code !== '23505') throw error;
    }
  }
  return applied;
}

/**
 * A migration's statements, split by PostgreSQL's own parser (libpg-query), each sent alone:
 * Citus refuses DDL it passes on to its workers (CREATE INDEX on a distributed table) in a query
 * of several statements.
 */
async function statementsOf(script: string): Promise<string[]> {
  const { stmts } = (await parse(script)) as { stmts: { stmt_location?: number; stmt_len?: number }[] };
  const bytes = Buffer.from(script);
  return stmts.map(({ stmt_location: start = 0, stmt_len: length = 0 }) =>
    bytes.subarray(start, length === 0 ? undefined : start + length).toString(),
  );
}
