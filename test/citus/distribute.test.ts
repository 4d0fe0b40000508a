import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { type Database, type Db, openDatabase } from '../../src/db/client.ts';
import {
  distributionBlockers,
  distributionStatements,
  placeTables,
  readSchema,
} from '../../src/db/distribution.ts';
import { migrate } from '../../src/db/migrate.ts';
import { demoMenu } from '../../src/domain/menu/demo-menu.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { type CitusDatabase, citusUrl, newCitusDatabase } from '../citus-cluster.ts';
import { cliEnv, runServery } from '../cli/cli-runner.ts';
import { makeTenant, TestClock } from '../harness.ts';

/*
 * `servery distribute` on a real Citus cluster (CITUS_URL; .ci/run starts one): what the check
 * predicts, Citus refuses, and what it lets pass, Citus accepts; the real command places every
 * table of a database that holds restaurants and their menus, moves their rows, keeps its keys,
 * and the rules that replaced the keys Citus refuses still hold there.
 */

const servery = (url: string, ...args: string[]) => runServery({ ...cliEnv(), DATABASE_URL: url }, args);

describe('servery distribute on a Citus cluster', {
  skip: citusUrl ? false : 'CITUS_URL names no cluster',
}, () => {
  let cluster: CitusDatabase;
  let database: Database;
  before(async () => {
    cluster = await newCitusDatabase(citusUrl as string);
    database = await openDatabase({ url: cluster.url });
    await migrate(database);
  });
  after(async () => {
    await database?.close();
    await cluster?.drop();
  });

  /** The check's blockers for the schema as `change` leaves it, and what Citus says to placing it; nothing stays. */
  async function checkAndCitus(change: (db: Db) => Promise<void>) {
    const outcome = { blockers: [] as string[], refusal: null as string | null };
    await database.db
      .transaction()
      .execute(async (trx) => {
        await change(trx);
        const schema = await readSchema(trx);
        outcome.blockers = distributionBlockers(schema);
        try {
          await placeTables(trx, distributionStatements(schema, cluster.name));
        } catch (error) {
          outcome.refusal = (error as Error).message;
        }
        throw new Error('rolled back');
      })
      .catch((error: Error) => {
        if (error.message !== 'rolled back') throw error;
      });
    return outcome;
  }

  test('what the check refuses Citus refuses, and what it accepts Citus accepts', async () => {
    const cases: [string, (db: Db) => Promise<void>][] = [
      ['the schema as it is', async () => {}],
      [
        'a unique index with the restaurant',
        (db) => sql`CREATE UNIQUE INDEX o ON orders (id, tenant_id)`.execute(db).then(),
      ],
      ['a unique index without it', (db) => sql`CREATE UNIQUE INDEX o ON orders (id)`.execute(db).then()],
      [
        'a QR key unique across restaurants',
        (db) => sql`CREATE UNIQUE INDEX q ON store_tables (qr_key)`.execute(db).then(),
      ],
      [
        'a key between restaurant tables without the restaurant',
        async (db) => {
          await sql`CREATE UNIQUE INDEX o ON orders (id)`.execute(db);
          await sql`ALTER TABLE order_acknowledgements ADD CONSTRAINT a FOREIGN KEY (order_id) REFERENCES orders (id)`.execute(
            db,
          );
        },
      ],
      [
        'a key that sets a column null',
        (db) =>
          sql`ALTER TABLE order_payments ADD CONSTRAINT p FOREIGN KEY (tenant_id, order_id)
            REFERENCES orders (tenant_id, id) ON DELETE SET NULL (order_id)`
            .execute(db)
            .then(),
      ],
      [
        'a key from a coordinator table to a restaurant table',
        (db) =>
          sql`ALTER TABLE jobs ADD CONSTRAINT j FOREIGN KEY (tenant_id) REFERENCES stores (tenant_id)`
            .execute(db)
            .then(),
      ],
    ];
    for (const [name, change] of cases) {
      const { blockers, refusal } = await checkAndCitus(change);
      assert.equal(
        blockers.length > 0,
        refusal !== null,
        `${name}: check ${JSON.stringify(blockers)}, Citus ${refusal}`,
      );
    }
  });

  test('places a database with restaurants: every row moved, the keys kept, a second run refused', async () => {
    const ctx = systemCtx(database.db, new TestClock());
    const tenants = [await makeTenant(ctx), await makeTenant(ctx)];
    for (const tenant of tenants) await demoMenu({ ...ctx, tenantId: tenant.restaurantId });
    const rowsBefore = await rowCounts(database.db);
    const keysBefore = await foreignKeys(database.db);

    const check = await servery(cluster.url, 'distribute', '--check');
    assert.equal(check.stdout, 'Citus would accept the schema as it is\n', check.stderr);
    const run = await servery(cluster.url, 'distribute', '--json');
    assert.equal(run.code, 0, run.stderr);

    const placed = await sql<{ table: string; type: string }>`
      SELECT table_name::text AS table, citus_table_type AS type FROM citus_tables`.execute(database.db);
    const typeOf = new Map(placed.rows.map((row) => [row.table, row.type]));
    assert.equal(typeOf.get('orders'), 'distributed');
    assert.equal(typeOf.get('menu_products'), 'distributed');
    assert.equal(typeOf.get('restaurants'), 'reference');
    assert.equal(typeOf.get('jobs'), 'local');
    assert.deepEqual(await rowCounts(database.db), rowsBefore, 'every row is still there');
    assert.ok((rowsBefore.get('menu_products') ?? 0) > 0);
    assert.deepEqual(await foreignKeys(database.db), keysBefore, 'every key is back');

    const again = await servery(cluster.url, 'distribute');
    assert.equal(again.code, 2, again.stderr);
    assert.equal(
      again.stderr,
      'servery: distribute: the tables are placed already (citus_tables lists them)\n',
    );
  });

  test("a restaurant's update with a join stays on its shard however often a connection runs it", async () => {
    // The service names its statements; after five runs PostgreSQL may plan one without its
    // parameters, and Citus then sends such an update to every shard. The placed database plans
    // each run with them (plan_cache_mode), which a fresh connection takes.
    const fresh = await openDatabase({ url: cluster.url });
    try {
      const { tenant_id: tenantId } = await fresh.db
        .selectFrom('menu_products')
        .select('tenant_id')
        .executeTakeFirstOrThrow();
      await fresh.db.connection().execute(async (connection) => {
        await sql`SET citus.multi_task_query_log_level = 'error'`.execute(connection);
        for (let run = 1; run <= 8; run++)
          await sql`UPDATE menu_products p SET updated_at = p.updated_at
            FROM restaurants r, menu_categories c
            WHERE p.tenant_id = ${tenantId} AND r.id = p.tenant_id
              AND c.tenant_id = p.tenant_id AND c.id = p.category_id AND p.price >= ${run}`.execute(
            connection,
          );
      });
    } finally {
      await fresh.close();
    }
  });

  test('servery migrate after distribution: a column and an index on a restaurant table, a column on a reference table', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'servery-migrations-'));
    try {
      cpSync(fileURLToPath(new URL('../../src/db/migrations/', import.meta.url)), dir, { recursive: true });
      writeFileSync(
        path.join(dir, '9000_after_distribution.sql'),
        // The runner sends each statement alone: Citus refuses a CREATE INDEX on a distributed
        // table in a query of several statements ("cannot insert multiple commands into a
        // prepared statement").
        [
          'ALTER TABLE orders ADD COLUMN kitchen_note text;',
          'CREATE INDEX orders_kitchen_note ON orders (tenant_id, kitchen_note);',
          'ALTER TABLE restaurants ADD COLUMN motto text;',
        ].join('\n'),
      );
      assert.deepEqual(await migrate(database, pathToFileURL(`${dir}/`)), ['9000_after_distribution.sql']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const onShards = async (table: string, query: string) =>
      (
        await sql<{ result: string }>`SELECT result FROM run_command_on_shards(${table}, ${query})`.execute(
          database.db,
        )
      ).rows.map((row) => row.result);
    const columnOnShards = await onShards(
      'orders',
      `SELECT count(*) FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = 'kitchen_note'`,
    );
    assert.ok(
      columnOnShards.length >= 2 && columnOnShards.every((count) => count === '1'),
      `${columnOnShards}`,
    );
    const indexOnShards = await onShards(
      'orders',
      `SELECT count(*) FROM pg_index WHERE indrelid = '%s'::regclass AND indexrelid::regclass::text LIKE 'orders_kitchen_note%%'`,
    );
    assert.ok(indexOnShards.length >= 2 && indexOnShards.every((count) => count === '1'), `${indexOnShards}`);
    const mottoOnShards = await onShards(
      'restaurants',
      `SELECT count(*) FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = 'motto'`,
    );
    assert.ok(
      mottoOnShards.every((count) => count === '1'),
      `${mottoOnShards}`,
    );
    // And the service's writes go on through it.
    const { tenant_id: tenantId } = await database.db
      .selectFrom('menu_categories')
      .select('tenant_id')
      .executeTakeFirstOrThrow();
    await sql`UPDATE restaurants SET motto = 'Pizza first' WHERE id = ${tenantId}`.execute(database.db);
  });

  test('on the cluster a deleted category leaves its products without one, a deleted area its tables', async () => {
    const { tenant_id: tenantId, id: categoryId } = await database.db
      .selectFrom('menu_categories')
      .select(['tenant_id', 'id'])
      .where('name', '=', 'Pizza')
      .executeTakeFirstOrThrow();
    const inIt = () =>
      database.db
        .selectFrom('menu_products')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('category_id', '=', categoryId)
        .execute();
    assert.ok((await inIt()).length > 0);
    await database.db
      .deleteFrom('menu_categories')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', categoryId)
      .execute();
    assert.deepEqual(await inIt(), []);
    const products = await database.db
      .selectFrom('menu_products')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .execute();
    assert.ok(products.length > 0, 'the products stay');

    const area = { tenant_id: tenantId, id: randomUUID(), name: 'Terrace', created_at: new Date() };
    await database.db.insertInto('store_areas').values(area).execute();
    await database.db
      .insertInto('store_tables')
      .values({
        tenant_id: tenantId,
        id: randomUUID(),
        label: 'T9',
        area_id: area.id,
        qr_key: randomBytes(16).toString('hex'),
        created_at: new Date(),
      })
      .execute();
    await database.db
      .deleteFrom('store_areas')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', area.id)
      .execute();
    const table = await database.db
      .selectFrom('store_tables')
      .select('area_id')
      .where('tenant_id', '=', tenantId)
      .where('label', '=', 'T9')
      .executeTakeFirstOrThrow();
    assert.equal(table.area_id, null);
  });
});

async function rowCounts(db: Db): Promise<Map<string, number>> {
  const tables = await sql<{ name: string }>`
    SELECT relname::text AS name FROM pg_class
    WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' ORDER BY relname`.execute(db);
  const counts = new Map<string, number>();
  for (const { name } of tables.rows) {
    const result = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(name)}`.execute(db);
    counts.set(name, Number(result.rows[0]?.n));
  }
  return counts;
}

async function foreignKeys(db: Db): Promise<string[]> {
  const keys = await sql<{ key: string }>`
    SELECT c.relname::text || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid) AS key
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid -- Citus hides its shards from pg_class
    WHERE k.contype = 'f' AND k.connamespace = 'public'::regnamespace ORDER BY 1`.execute(db);
  return keys.rows.map((row) => row.key);
}
