import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';

export type Db = Kysely<DB>;
export type Trx = Transaction<DB>;

/** Where the data lives: a PostgreSQL server, a PGlite directory, or PGlite in memory (tests). */
export type DatabaseTarget = { url: string } | { dataDir: string } | { memory: true };

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

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if ('url' in target) {
    const pool = new pg.Pool({ connectionString: target.url, max: 10 });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      kind: 'postgres',
      execScript: async (script) => {
        const client = await pool.connect();
        try {
          await client.query(script);
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        } finally {
          client.release();
        }
      },
      close: () => db.destroy(),
    };
  }
  let pglite: PGlite;
  if ('dataDir' in target) {
    mkdirSync(target.dataDir, { recursive: true });
    pglite = await PGlite.create(target.dataDir);
  } else {
    pglite = await PGlite.create();
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    kind: 'pglite',
    execScript: async (script) => {
      await pglite.exec(script);
    },
    close: () => db.destroy(),
  };
}
