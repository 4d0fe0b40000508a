import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { type CliDatabase, jsonOf, openCliDatabase } from './cli-runner.ts';

/*
 * `servery distribute`: the check of the schema against what Citus accepts (every restaurant table
 * keyed by restaurant first, no unique lookup across restaurants, no foreign key Citus cannot
 * keep), the statements in an order Citus accepts, and no distribution without Citus. The
 * statements themselves are checked here, not run: they were run by hand on a Citus 13.2 cluster
 * (docs/scale-out.md).
 */

let database: CliDatabase;
const servery = (...args: string[]) => database.run(...args);

before(async () => {
  database = await openCliDatabase(async () => {});
});
after(() => database.close());

const blockersOf = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('  '))
    .map((line) => line.trim())
    .sort();

test('--check: Citus would accept the schema as it is', async () => {
  const run = await servery('distribute', '--check');
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, 'Citus would accept the schema as it is\n');
  assert.deepEqual(jsonOf(await servery('distribute', '--check', '--json')), { blockers: [] });
});

test('--print places every table once, each after the tables its foreign keys point to, the keys between restaurant tables dropped meanwhile', async () => {
  const { statements } = jsonOf(await servery('distribute', '--print', '--json')) as { statements: string[] };
  const [tables, foreignKeys] = await database.withDatabase(async (db) => [
    (
      await sql<{ name: string }>`SELECT relname::text AS name FROM pg_class
        WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'`.execute(db)
    ).rows.map((row) => row.name),
    (
      await sql<{ child: string; parent: string }>`SELECT conrelid::regclass::text AS child,
        confrelid::regclass::text AS parent FROM pg_constraint
        WHERE contype = 'f' AND connamespace = 'public'::regnamespace`.execute(db)
    ).rows,
  ]);
  const placed = statements.flatMap((statement, line) => {
    const match =
      /^SELECT (create_distributed_table|create_reference_table|citus_add_local_table_to_metadata)\('([a-z_]+)'/.exec(
        statement,
      );
    return match ? [{ how: match[1], table: match[2] as string, line }] : [];
  });
  assert.deepEqual(placed.map((p) => p.table).sort(), [...tables].sort());
  const at = new Map(placed.map((p, index) => [p.table, index]));
  for (const { child, parent } of foreignKeys)
    if (child !== parent)
      assert.ok((at.get(parent) ?? -1) < (at.get(child) ?? -1), `${parent} is placed before ${child}`);

  assert.ok(statements.includes('SET citus.enable_unsafe_triggers = on'), 'the floor version triggers run');
  // Citus distributes no table that a local one has a key into: the keys between restaurant
  // tables are dropped before the first table is placed and added again, as they were, after the last.
  const keys = (action: 'DROP' | 'ADD') =>
    statements.flatMap((statement, line) => {
      const match = new RegExp(`^ALTER TABLE ([a-z_]+) ${action} CONSTRAINT "([a-z_]+)"`).exec(statement);
      return match ? [{ key: `${match[1]} ${match[2]}`, line }] : [];
    });
  const [dropped, added] = [keys('DROP'), keys('ADD')];
  assert.ok(dropped.every(({ line }) => line < (placed[0]?.line ?? 0)));
  assert.ok(added.every(({ line }) => line > (placed.at(-1)?.line ?? Infinity)));
  assert.deepEqual(
    added.map(({ key }) => key),
    dropped.map(({ key }) => key),
  );
  assert.ok(dropped.some(({ key }) => key === 'order_payments order_payments_tenant_id_order_id_fkey'));
  assert.ok(
    !dropped.some(({ key }) => key === 'orders orders_tenant_id_fkey'),
    'a key to a reference table stays',
  );
  assert.ok(
    statements.includes(
      'ALTER TABLE order_payments ADD CONSTRAINT "order_payments_tenant_id_order_id_fkey" FOREIGN KEY (tenant_id, order_id) REFERENCES orders(tenant_id, id) ON DELETE CASCADE',
    ),
  );
  assert.match(statements.at(-1) ?? '', /^SELECT truncate_local_data_after_distributing_table\(/);
  const how = new Map(placed.map((p) => [p.table, p.how]));
  assert.equal(how.get('restaurants'), 'create_reference_table', 'the slug stays unique across restaurants');
  const distributed = statements.filter((statement) => statement.includes('create_distributed_table'));
  const anchor = /create_distributed_table\('([a-z_]+)', 'tenant_id', colocate_with => 'none'\)/.exec(
    distributed[0] as string,
  )?.[1];
  assert.equal(
    anchor,
    'floor_versions',
    'placed before the tables whose triggers write to it copy their rows',
  );
  for (const statement of distributed.slice(1))
    assert.match(statement, new RegExp(`'tenant_id', colocate_with => '${anchor}'\\)$`), 'colocated');
  assert.ok(distributed.some((statement) => statement.includes("('orders', 'tenant_id'")));
  assert.equal(how.get('apps'), 'create_reference_table');
  assert.equal(how.get('webhooks'), 'create_reference_table');
  assert.equal(how.get('jobs'), 'citus_add_local_table_to_metadata');
  assert.equal(how.get('webhook_delivery_attempts'), 'create_distributed_table');
});

test('a new table, a key not led by the restaurant or a foreign key Citus cannot keep is refused', async () => {
  await database.withDatabase(async (db) => {
    await sql`CREATE TABLE loyalty_points (tenant_id uuid NOT NULL, id uuid PRIMARY KEY)`.execute(db);
    await sql`ALTER TABLE jobs ADD CONSTRAINT jobs_store FOREIGN KEY (tenant_id) REFERENCES stores (tenant_id)`.execute(
      db,
    );
    await sql`CREATE UNIQUE INDEX orders_by_id ON orders (id)`.execute(db);
    await sql`CREATE UNIQUE INDEX store_tables_by_key ON store_tables (qr_key)`.execute(db);
    await sql`ALTER TABLE order_acknowledgements ADD CONSTRAINT acknowledged_order
      FOREIGN KEY (order_id) REFERENCES orders (id)`.execute(db);
    await sql`ALTER TABLE order_payments ADD CONSTRAINT paid_order FOREIGN KEY (tenant_id, order_id)
      REFERENCES orders (tenant_id, id) ON DELETE SET NULL (order_id)`.execute(db);
  });
  try {
    const run = await servery('distribute', '--check');
    assert.equal(run.code, 2, run.stderr);
    assert.deepEqual(blockersOf(run.stderr), [
      'jobs: foreign key jobs_store (tenant_id) from a coordinator table to stores, a distributed one',
      'loyalty_points: not placed (src/db/distribution.ts)',
      'order_acknowledgements: foreign key acknowledged_order (order_id) from a distributed table to orders, a distributed one',
      'order_payments: foreign key paid_order (tenant_id, order_id) sets null, sets a default or cascades an update, on a key that holds tenant_id',
      'orders: unique orders_by_id (id) lacks tenant_id',
      'store_tables: unique store_tables_by_key (qr_key) lacks tenant_id',
    ]);
    assert.equal((await servery('distribute')).code, 2, 'nothing is distributed while the check fails');
  } finally {
    await database.withDatabase(async (db) => {
      await sql`DROP TABLE loyalty_points`.execute(db);
      await sql`ALTER TABLE order_acknowledgements DROP CONSTRAINT acknowledged_order`.execute(db);
      await sql`ALTER TABLE order_payments DROP CONSTRAINT paid_order`.execute(db);
      await sql`DROP INDEX orders_by_id`.execute(db);
      await sql`DROP INDEX store_tables_by_key`.execute(db);
      await sql`ALTER TABLE jobs DROP CONSTRAINT jobs_store`.execute(db);
    });
  }
});

test('without Citus nothing is distributed', async () => {
  const run = await servery('distribute');
  assert.equal(run.code, 2, run.stderr);
  assert.equal(
    run.stderr,
    'servery: distribute: this database has no Citus extension to distribute the tables with\n',
  );
  const placed = await database.withDatabase(
    async (db) =>
      (await sql<{ name: string | null }>`SELECT to_regclass('pg_dist_partition')::text AS name`.execute(db))
        .rows[0]?.name,
  );
  assert.equal(placed, null, 'no Citus catalog was made');
});
