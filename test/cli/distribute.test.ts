import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { type CliDatabase, jsonOf, openCliDatabase } from './cli-runner.ts';

/*
 * `servery distribute`: the check of the schema against what Citus accepts (every restaurant table
 * keyed by restaurant first, no unique lookup across restaurants, no foreign key Citus cannot
 * keep), the statements in an order Citus accepts, and no distribution without Citus. There is no
 * Citus server here: the statements themselves are checked, not run.
 */

let database: CliDatabase;
const servery = (...args: string[]) => database.run(...args);

before(async () => {
  database = await openCliDatabase(async () => {});
});
after(() => database.close());

/**
 * What still stands between the schema and Citus: lookups by a secret or a public name that tell
 * which restaurant a request is for (docs/scale-out.md, "Unique indexes without tenant_id").
 */
const lookupsAcrossRestaurants = [
  'access_tokens: unique access_tokens_hash (token_hash) lacks tenant_id',
  'authorization_codes: unique authorization_codes_hash (code_hash) lacks tenant_id',
  'order_payments: unique order_payments_provider_reference_key (provider, reference) lacks tenant_id',
  'orders: unique orders_guest_key_hash_key (guest_key_hash) lacks tenant_id',
  'refresh_tokens: unique refresh_tokens_hash (token_hash) lacks tenant_id',
  'restaurants: unique restaurants_slug_key (slug) lacks id',
  'store_tables: unique store_tables_qr_key_key (qr_key) lacks tenant_id',
];

const blockersOf = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('  '))
    .map((line) => line.trim())
    .sort();

test('--check lists exactly what Citus would refuse: the lookups across restaurants, nothing else', async () => {
  const run = await servery('distribute', '--check');
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /^servery: distribute: Citus would refuse the schema as it is/);
  assert.deepEqual(blockersOf(run.stderr), lookupsAcrossRestaurants);
});

test('--print places every table once, each after the tables its foreign keys point to', async () => {
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
  const placed = statements.flatMap((statement) => {
    const match =
      /^SELECT (create_distributed_table|create_reference_table|citus_add_local_table_to_metadata)\('([a-z_]+)'/.exec(
        statement,
      );
    return match ? [{ how: match[1], table: match[2] as string }] : [];
  });
  assert.deepEqual(placed.map((p) => p.table).sort(), [...tables].sort());
  const at = new Map(placed.map((p, index) => [p.table, index]));
  for (const { child, parent } of foreignKeys)
    if (child !== parent)
      assert.ok((at.get(parent) ?? -1) < (at.get(child) ?? -1), `${parent} is placed before ${child}`);

  assert.equal(statements[0], 'CREATE EXTENSION IF NOT EXISTS citus');
  assert.ok(statements.includes('SET citus.enable_unsafe_triggers = on'), 'the floor version triggers run');
  assert.ok(statements.includes("SELECT create_distributed_table('restaurants', 'id')"));
  assert.ok(
    statements.includes(
      "SELECT create_distributed_table('orders', 'tenant_id', colocate_with => 'restaurants')",
    ),
  );
  const how = new Map(placed.map((p) => [p.table, p.how]));
  assert.equal(how.get('apps'), 'create_reference_table');
  assert.equal(how.get('webhooks'), 'create_reference_table');
  assert.equal(how.get('jobs'), 'citus_add_local_table_to_metadata');
  assert.equal(how.get('webhook_delivery_attempts'), 'create_distributed_table');
});

test('a new table, a key not led by the restaurant or a foreign key Citus cannot keep is refused', async () => {
  await database.withDatabase(async (db) => {
    await sql`CREATE TABLE loyalty_points (tenant_id uuid NOT NULL, id uuid PRIMARY KEY)`.execute(db);
    await sql`ALTER TABLE jobs ADD CONSTRAINT jobs_restaurant FOREIGN KEY (tenant_id) REFERENCES restaurants (id)`.execute(
      db,
    );
    await sql`CREATE UNIQUE INDEX orders_by_id ON orders (id)`.execute(db);
    await sql`ALTER TABLE order_acknowledgements ADD CONSTRAINT acknowledged_order
      FOREIGN KEY (order_id) REFERENCES orders (id)`.execute(db);
  });
  try {
    const run = await servery('distribute', '--check');
    assert.equal(run.code, 2, run.stderr);
    assert.deepEqual(
      blockersOf(run.stderr),
      [
        ...lookupsAcrossRestaurants,
        'jobs: foreign key jobs_restaurant (tenant_id) from a coordinator table to restaurants, a distributed one',
        'loyalty_points: not placed (src/db/distribution.ts)',
        'order_acknowledgements: foreign key acknowledged_order (order_id) from a distributed table to orders, a distributed one',
        'orders: unique orders_by_id (id) lacks tenant_id',
      ].sort(),
    );
  } finally {
    await database.withDatabase(async (db) => {
      await sql`DROP TABLE loyalty_points`.execute(db);
      await sql`ALTER TABLE order_acknowledgements DROP CONSTRAINT acknowledged_order`.execute(db);
      await sql`DROP INDEX orders_by_id`.execute(db);
      await sql`ALTER TABLE jobs DROP CONSTRAINT jobs_restaurant`.execute(db);
    });
  }
});

test('once the lookups are keyed by restaurant, the check passes; without Citus nothing is distributed', async () => {
  await database.withDatabase(async (db) => {
    for (const [table, constraint] of [
      ['order_payments', 'order_payments_provider_reference_key'],
      ['orders', 'orders_guest_key_hash_key'],
      ['restaurants', 'restaurants_slug_key'],
      ['store_tables', 'store_tables_qr_key_key'],
    ])
      await sql`ALTER TABLE ${sql.table(table as string)} DROP CONSTRAINT ${sql.ref(constraint as string)}`.execute(
        db,
      );
    for (const index of ['access_tokens_hash', 'authorization_codes_hash', 'refresh_tokens_hash'])
      await sql`DROP INDEX ${sql.ref(index)}`.execute(db);
  });
  assert.deepEqual(jsonOf(await servery('distribute', '--check', '--json')), { blockers: [] });
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
