import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { Database } from '../db/client.ts';
import { distributionBlockers, distributionStatements, placeTables, readSchema } from '../db/distribution.ts';
import { InputError } from '../domain/shared/errors.ts';
import { openConfiguredDatabase, requireMigrated } from './admin-transaction.ts';
import { parseCommandLine, printResult } from './command-line.ts';

/**
 * `servery distribute [--check | --print]`: places every table on a Citus cluster by restaurant
 * (docs/scale-out.md), once it has checked that Citus would accept the schema as it is. `--check`
 * only checks and `--print` only prints the statements, both on any database.
 */
export async function distributeCommand(args: string[]): Promise<void> {
  const { values } = parseCommandLine('distribute', () =>
    parseArgs({
      args,
      options: {
        check: { type: 'boolean', default: false },
        print: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    }),
  );
  if (values.check && values.print) throw new InputError('distribute: --check or --print, not both');
  const database = await openConfiguredDatabase();
  try {
    await requireMigrated(database);
    const schema = await readSchema(database.db);
    if (values.print) {
      const statements = distributionStatements(schema, await databaseName(database));
      printResult(values.json, { statements }, `${statements.join(';\n')};`);
      return;
    }
    const blockers = distributionBlockers(schema);
    if (blockers.length > 0)
      throw new InputError(
        `distribute: Citus would refuse the schema as it is (docs/scale-out.md):\n${blockers.map((line) => `  ${line}`).join('\n')}`,
      );
    if (values.check) {
      printResult(values.json, { blockers }, 'Citus would accept the schema as it is');
      return;
    }
    if (!(await hasCitus(database)))
      throw new InputError('distribute: this database has no Citus extension to distribute the tables with');
    if (await isPlaced(database))
      throw new InputError('distribute: the tables are placed already (citus_tables lists them)');
    const statements = distributionStatements(schema, await databaseName(database));
    // One transaction: a statement Citus refuses leaves nothing placed.
    await database.db.transaction().execute((trx) => placeTables(trx, statements));
    printResult(values.json, { statements }, `${statements.join(';\n')};`);
  } finally {
    await database.close();
  }
}

async function databaseName(database: Database): Promise<string> {
  const result = await sql<{ name: string }>`SELECT current_database() AS name`.execute(database.db);
  return result.rows[0]?.name ?? '';
}

/** Whether Citus has placed tables of this database already (a second run would fail on them). */
async function isPlaced(database: Database): Promise<boolean> {
  const result = await sql<{ placed: boolean }>`
    SELECT EXISTS (SELECT FROM pg_dist_partition) AS placed`.execute(database.db);
  return result.rows[0]?.placed === true;
}

/**
 * The extension made in this database, not merely installed on the server: on a cluster it is made
 * in the database on every node and the workers are added to it (docs/scale-out.md), which the
 * coordinator alone cannot do.
 */
async function hasCitus(database: Database): Promise<boolean> {
  if (database.kind !== 'postgres') return false;
  const result = await sql<{ name: string }>`
    SELECT extname AS name FROM pg_extension WHERE extname = 'citus'`.execute(database.db);
  return result.rows.length > 0;
}
