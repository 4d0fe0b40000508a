import { sql } from 'kysely';
import type { Db } from './client.ts';

/*
 * How each table sits on a Citus cluster (docs/scale-out.md): distributed by restaurant, copied to
 * every node, or kept on the coordinator. Every table of the schema is in exactly one list, so a
 * new table has to be placed here before the check passes.
 */

/** The restaurant's own tables, distributed by `tenant_id` and colocated with each other. */
const byRestaurant = [
  'stores',
  'store_areas',
  'store_tables',
  'store_closures',
  'reservation_settings',
  'reservation_combinations',
  'reservations',
  'floor_versions',
  'menu_categories',
  'menu_products',
  'menu_option_groups',
  'menu_options',
  'menu_product_option_groups',
  'menu_images',
  'menu_versions',
  'orders',
  'order_acknowledgements',
  'order_payments',
  'events',
  'event_envelopes',
  'event_sequences',
  'connections',
  'authorization_codes',
  'refresh_tokens',
  'access_tokens',
  'idempotency_keys',
  'restaurant_members',
  'invitations',
  'webhook_deliveries',
  'webhook_delivery_attempts',
  'webhook_fanout',
];

/**
 * Small, shared by every restaurant, seldom written: a copy on every node. The restaurants
 * themselves are one, so their slug stays unique across restaurants.
 */
const reference = ['restaurants', 'accounts', 'apps', 'app_secrets', 'webhooks', 'webhook_secrets'];

/** Queues and singletons, kept on the coordinator. */
const coordinator = [
  'jobs',
  'sandbox_clock',
  'schema_migrations',
  'sessions',
  'account_tokens',
  'rate_limits',
];

type Placement = 'distributed' | 'reference' | 'coordinator';

const placements = new Map<string, Placement>([
  ...byRestaurant.map((table) => [table, 'distributed'] as const),
  ...reference.map((table) => [table, 'reference'] as const),
  ...coordinator.map((table) => [table, 'coordinator'] as const),
]);

/**
 * Restaurant tables that the triggers of other restaurant tables write to: the floor version
 * (migration 0025). Citus copies a table's rows into shards that have its triggers already, so
 * these are distributed before the tables whose triggers write to them.
 */
const writtenByTriggers = ['floor_versions'];

/** The column every distributed table is split by. */
const distributionColumn = 'tenant_id';

interface UniqueIndex {
  table: string;
  name: string;
  primary: boolean;
  columns: string[];
}

interface ForeignKey {
  table: string;
  name: string;
  columns: string[];
  references: string;
  referenced: string[];
  /** pg_constraint's action codes: a no action, r restrict, c cascade, n set null, d set default. */
  onDelete: string;
  onUpdate: string;
  /** As `pg_get_constraintdef` writes it, to add the key again after the tables are placed. */
  definition: string;
}

/** The schema as Citus judges it: tables, unique indexes, foreign keys. */
export interface Catalog {
  tables: string[];
  uniques: UniqueIndex[];
  foreignKeys: ForeignKey[];
}

export async function readSchema(db: Db): Promise<Catalog> {
  const tables = await sql<{ name: string }>`
    SELECT relname::text AS name FROM pg_class
    WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') ORDER BY relname`.execute(db);
  const uniques = await sql<UniqueIndex>`
    SELECT c.relname::text AS table, i.indexrelid::regclass::text AS name, i.indisprimary AS primary,
      array(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, n)
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum ORDER BY k.n) AS columns
    FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
    WHERE c.relnamespace = 'public'::regnamespace AND i.indisunique
    ORDER BY 1, 2`.execute(db);
  const foreignKeys = await sql<ForeignKey>`
    SELECT k.conrelid::regclass::text AS table, k.conname::text AS name,
      k.confrelid::regclass::text AS references, k.confdeltype AS "onDelete", k.confupdtype AS "onUpdate",
      pg_get_constraintdef(k.oid) AS definition,
      array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(attnum, n)
        JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum ORDER BY u.n) AS columns,
      array(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(attnum, n)
        JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.attnum ORDER BY u.n) AS referenced
    FROM pg_constraint k
    WHERE k.contype = 'f' AND k.connamespace = 'public'::regnamespace
    ORDER BY 1, 2`.execute(db);
  return { tables: tables.rows.map((row) => row.name), uniques: uniques.rows, foreignKeys: foreignKeys.rows };
}

/** What Citus would refuse in the schema as it is, one line each; none means it can be distributed. */
export function distributionBlockers(catalog: Catalog): string[] {
  const blockers: string[] = [];
  const present = new Set(catalog.tables);
  for (const table of catalog.tables)
    if (!placements.has(table)) blockers.push(`${table}: not placed (src/db/distribution.ts)`);
  for (const table of placements.keys())
    if (!present.has(table)) blockers.push(`${table}: placed but not in the schema`);

  for (const index of catalog.uniques) {
    if (placements.get(index.table) !== 'distributed') continue;
    if (index.primary && index.columns[0] !== distributionColumn)
      blockers.push(
        `${index.table}: primary key (${index.columns.join(', ')}) does not start with ${distributionColumn}`,
      );
    else if (!index.columns.includes(distributionColumn))
      blockers.push(
        `${index.table}: unique ${index.name} (${index.columns.join(', ')}) lacks ${distributionColumn}`,
      );
  }

  for (const key of catalog.foreignKeys) {
    const from = placements.get(key.table);
    const to = placements.get(key.references);
    if (from === undefined || to === undefined) continue;
    const allowed =
      to === 'reference' ||
      (from === 'coordinator' && to === 'coordinator') ||
      (from === 'distributed' && to === 'distributed' && keepsToOneRestaurant(key));
    if (!allowed)
      blockers.push(
        `${key.table}: foreign key ${key.name} (${key.columns.join(', ')}) from a ${from} table to ${key.references}, a ${to} one`,
      );
    else if (from === 'distributed' && key.columns.includes(distributionColumn) && changesTheRestaurant(key))
      blockers.push(
        `${key.table}: foreign key ${key.name} (${key.columns.join(', ')}) sets null, sets a default or cascades an update, on a key that holds ${distributionColumn}`,
      );
  }
  return blockers;
}

/**
 * Citus refuses ON DELETE SET NULL or SET DEFAULT and ON UPDATE SET NULL, SET DEFAULT or CASCADE
 * on a key that holds the distribution column, even when the action names other columns only
 * (`SET NULL (area_id)`): it does not read that list.
 */
function changesTheRestaurant(key: ForeignKey): boolean {
  return ['n', 'd'].includes(key.onDelete) || ['n', 'd', 'c'].includes(key.onUpdate);
}

/** A key between distributed tables must match the restaurant on both sides (colocated rows). */
function keepsToOneRestaurant(key: ForeignKey): boolean {
  const at = key.columns.indexOf(distributionColumn);
  return at >= 0 && key.referenced[at] === distributionColumn;
}

/**
 * The statements that place every table, in one transaction, in an order Citus accepts: the keys
 * between restaurant tables dropped, then a table after the tables its foreign keys point to,
 * reference tables first (the restaurants among them), then the restaurants' tables, then the
 * coordinator's, then the keys added again. The floor version (migration 0025) is counted by
 * triggers on distributed tables, which Citus runs only with `citus.enable_unsafe_triggers`.
 * Every statement is planned with its parameters (`plan_cache_mode`): the service names its
 * statements (db/client.ts), and after five runs on a connection PostgreSQL may plan one without
 * them, a plan in which Citus can no longer see the restaurant of an update or a join and sends
 * it to every shard (seen on Citus 13.2: the webhook claims and outcomes met in distributed
 * deadlocks so). Checked on a Citus 13.2 cluster, on a new database and on one with the demo data.
 */
export function distributionStatements(catalog: Catalog, database: string): string[] {
  const parents = new Map<string, Set<string>>();
  for (const key of catalog.foreignKeys)
    if (key.references !== key.table)
      parents.set(key.table, (parents.get(key.table) ?? new Set()).add(key.references));
  const ordered: string[] = [];
  const seen = new Set<string>();
  const visit = (table: string) => {
    if (seen.has(table) || !placements.has(table)) return;
    seen.add(table);
    for (const parent of parents.get(table) ?? []) visit(parent);
    ordered.push(table);
  };
  for (const table of [...writtenByTriggers, ...placements.keys()]) visit(table);
  const rank: Record<Placement, number> = { reference: 0, distributed: 1, coordinator: 2 };
  ordered.sort((a, b) => rank[placements.get(a) as Placement] - rank[placements.get(b) as Placement]);

  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
  // Making the restaurants a reference table turns the local tables with a key to them (and the
  // tables keyed to those) into Citus local tables, and Citus distributes no table that such a
  // table has a key into ("foreign keys from reference tables and local tables to distributed
  // tables are not supported"), nor one with a key to a local table. So the keys between
  // restaurant tables are dropped first and added again once all are placed, colocated.
  const betweenRestaurantTables = catalog.foreignKeys.filter(
    (key) => placements.get(key.table) === 'distributed' && placements.get(key.references) === 'distributed',
  );
  // The first restaurant table placed starts the colocation group; the others join it.
  const anchor = ordered.find((table) => placements.get(table) === 'distributed');
  return [
    `ALTER DATABASE ${identifier(database)} SET citus.enable_unsafe_triggers = on`,
    `ALTER DATABASE ${identifier(database)} SET plan_cache_mode = force_custom_plan`,
    'SET citus.enable_unsafe_triggers = on',
    ...betweenRestaurantTables.map(
      (key) => `ALTER TABLE ${key.table} DROP CONSTRAINT ${identifier(key.name)}`,
    ),
    ...ordered.map((table) => {
      const placement = placements.get(table);
      if (placement === 'reference') return `SELECT create_reference_table(${literal(table)})`;
      if (placement === 'coordinator') return `SELECT citus_add_local_table_to_metadata(${literal(table)})`;
      const group = table === anchor ? 'none' : (anchor as string);
      return `SELECT create_distributed_table(${literal(table)}, 'tenant_id', colocate_with => ${literal(group)})`;
    }),
    ...betweenRestaurantTables.map(
      (key) => `ALTER TABLE ${key.table} ADD CONSTRAINT ${identifier(key.name)} ${key.definition}`,
    ),
    // The rows were copied to the nodes; the coordinator's own copy is no longer read, only kept.
    "SELECT truncate_local_data_after_distributing_table(table_name) FROM citus_tables WHERE citus_table_type <> 'local'",
  ];
}

/** Runs the statements of distributionStatements, in order, on `db` (a transaction, so that one
 * Citus refuses leaves nothing placed). */
export async function placeTables(db: Db, statements: readonly string[]): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
