import { type RawBuilder, sql } from 'kysely';
import { recordEvent } from '../events/events.store.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { maxDownloadsPerRequest, maxTestRestaurantImages, takeImages } from './menu-images.ts';
import {
  type MenuSync,
  type MenuSynced,
  type MenuSyncInput,
  type SyncKind,
  type SyncWarning,
  syncKinds,
  syncLimits,
} from './menu-sync.schema.ts';
import { type MenuRows, planSync, type SyncPlan, type TableWrites } from './menu-sync-plan.ts';
import { countProductRemoval, isLive, lockMenu, viewerApp } from './menu-writes.ts';

/*
 * PUT /menu, the whole-menu sync of an app (spec: PUT /menu; decisions.md: Menu):
 * - at most 200 categories, 5,000 products, 2,000 option groups and 20,000 options a body
 *   (422 limit_exceeded);
 * - under the restaurant's menu lock, the stored menu is read once and the sync planned in memory
 *   (menu-sync-plan.ts), every refusal coming before any write;
 * - the plan is written with a few bulk statements (rows as one JSON parameter each), in the
 *   request's one transaction;
 * - a sync that changes something records one menu.synced naming the connection, no per-object
 *   events; one that changes nothing writes nothing; a dry run writes nothing either.
 */
export async function syncMenu(ctx: Ctx, input: MenuSyncInput): Promise<MenuSync> {
  if (ctx.actor.kind !== 'connection') throw new Error('a menu sync is an app’s');
  checkLimits(input);
  await lockMenu(ctx);
  const viewer = await viewerApp(ctx);
  if (viewer === null) throw new Error('a connection has an app');
  const plan = await planSync(input, await storedMenu(ctx), viewer, ctx.clock.now());
  const dryRun = input.dry_run ?? false;
  plan.warnings.push(...(await imageWarnings(ctx, input, dryRun)));
  if (plan.changed && !dryRun) {
    await writePlan(ctx, plan);
    await recordSynced(ctx, { connection_id: ctx.actor.connectionId, mode: input.mode, plan });
  }
  return {
    object: 'menu_sync',
    mode: input.mode,
    dry_run: dryRun,
    changed: plan.changed,
    counts: plan.counts,
    ids: dryRun ? existingIds(plan) : plan.ids,
    warnings: plan.warnings,
  };
}

function checkLimits(input: MenuSyncInput): void {
  const sent: Record<SyncKind, number> = {
    categories: input.categories?.length ?? 0,
    products: input.products?.length ?? 0,
    option_groups: input.option_groups?.length ?? 0,
    options: (input.option_groups ?? []).reduce((sum, group) => sum + (group.options?.length ?? 0), 0),
  };
  for (const kind of syncKinds)
    if (sent[kind] > syncLimits[kind])
      throw new ApiError(
        'limit_exceeded',
        `A sync carries at most ${syncLimits[kind]} ${kind.replace('_', ' ')}; this one has ${sent[kind]}.`,
        { param: kind === 'options' ? 'option_groups' : kind },
      );
}

/**
 * The body's images (menu-images.ts): the new ones the request downloaded before its transaction
 * are known by now; the rest are queued for the worker (images_deferred) or, in a test restaurant
 * holding its 50, skipped (images_capped). A dry run records nothing.
 */
async function imageWarnings(ctx: Ctx, input: MenuSyncInput, dryRun: boolean): Promise<SyncWarning[]> {
  const urls = (input.products ?? []).flatMap((product) => (product.image_url ? [product.image_url] : []));
  const outcomes = [...(await takeImages(ctx, urls, { dryRun })).values()];
  const warnings: SyncWarning[] = [];
  const deferred = outcomes.filter((outcome) => outcome === 'deferred').length;
  if (deferred > 0)
    warnings.push({
      code: 'images_deferred',
      message: `${deferred} new image(s) beyond the ${maxDownloadsPerRequest} downloaded per request ${dryRun ? 'would be' : 'are'} downloaded in the background.`,
    });
  const capped = outcomes.filter((outcome) => outcome === 'capped').length;
  if (capped > 0)
    warnings.push({
      code: 'images_capped',
      message: `${capped} new image(s) skipped: a test restaurant keeps at most ${maxTestRestaurantImages} images.`,
    });
  return warnings;
}

/** A dry run creates nothing: its ids are those of the objects that exist. */
function existingIds(plan: SyncPlan): MenuSync['ids'] {
  const created = new Set(
    [plan.categories, plan.products, plan.groups, plan.options].flatMap((writes) =>
      writes.create.map((row) => row.id),
    ),
  );
  const existing = (ids: Record<string, string>) =>
    Object.fromEntries(Object.entries(ids).filter(([, id]) => !created.has(id)));
  return {
    categories: existing(plan.ids.categories),
    products: existing(plan.ids.products),
    option_groups: existing(plan.ids.option_groups),
    options: existing(plan.ids.options),
  };
}

/** The columns of each menu table as the bulk statements read them from JSON (all but tenant_id). */
const columns = {
  menu_categories: {
    id: 'uuid',
    external_id: 'text',
    external_id_app_id: 'uuid',
    name: 'text',
    position: 'integer',
    tax_class: 'text',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  menu_products: {
    id: 'uuid',
    external_id: 'text',
    external_id_app_id: 'uuid',
    category_id: 'uuid',
    name: 'text',
    description: 'text',
    price: 'integer',
    available: 'boolean',
    unavailable_until: 'timestamptz',
    position: 'integer',
    allergens: 'text[]',
    diets: 'text[]',
    image_url: 'text',
    tax_class: 'text',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  menu_option_groups: {
    id: 'uuid',
    external_id: 'text',
    external_id_app_id: 'uuid',
    product_id: 'uuid',
    name: 'text',
    min_select: 'integer',
    max_select: 'integer',
    position: 'integer',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  menu_options: {
    id: 'uuid',
    external_id: 'text',
    external_id_app_id: 'uuid',
    group_id: 'uuid',
    name: 'text',
    price_delta: 'integer',
    available: 'boolean',
    unavailable_until: 'timestamptz',
    position: 'integer',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  menu_product_option_groups: { product_id: 'uuid', group_id: 'uuid', position: 'integer' },
} as const;
type Table = keyof typeof columns;

/*
 * The restaurant's whole menu, the columns the sync compares and writes: no timestamps (a
 * changed row gets a new updated_at; created_at stays), `unavailable_until` as text (thousands of
 * rows are read without making Dates of them).
 */
async function storedMenu(ctx: Ctx): Promise<MenuRows> {
  const tenantId = tenantOf(ctx);
  const all = async <R>(table: Table): Promise<R[]> => {
    const select = Object.entries(columns[table])
      .filter(([column]) => column !== 'created_at' && column !== 'updated_at')
      .map(([column, type]) => (type === 'timestamptz' ? `${column}::text AS ${column}` : column))
      .join(', ');
    const { rows } = await sql<R>`SELECT ${sql.raw(select)} FROM ${sql.table(table)}
      WHERE tenant_id = ${tenantId}`.execute(ctx.db);
    return rows;
  };
  return {
    categories: await all('menu_categories'),
    products: await all('menu_products'),
    groups: await all('menu_option_groups'),
    options: await all('menu_options'),
    links: await all('menu_product_option_groups'),
  };
}

/** The rows as a record set: one JSON parameter, typed column by column. */
function recordSet(table: Table, rows: readonly object[]): RawBuilder<unknown> {
  const types = Object.entries(columns[table])
    .map(([column, type]) => `${column} ${type}`)
    .join(', ');
  return sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(${sql.raw(types)})`;
}

async function insertRows(ctx: Ctx, table: Table, rows: readonly object[]): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns[table]).join(', ');
  await sql`INSERT INTO ${sql.table(table)} (tenant_id, ${sql.raw(names)})
    SELECT ${tenantOf(ctx)}::uuid, ${sql.raw(names)} FROM ${recordSet(table, rows)}`.execute(ctx.db);
}

async function updateRows(ctx: Ctx, table: Table, rows: readonly object[]): Promise<void> {
  if (rows.length === 0) return;
  const set = Object.keys(columns[table])
    .filter((column) => column !== 'id' && column !== 'created_at')
    .map((column) => `${column} = v.${column}`)
    .join(', ');
  await sql`UPDATE ${sql.table(table)} AS t SET ${sql.raw(set)} FROM ${recordSet(table, rows)}
    WHERE t.tenant_id = ${tenantOf(ctx)} AND t.id = v.id`.execute(ctx.db);
}

/** The ids as a set to match in one parameter. */
const idSet = (ids: readonly string[]) =>
  sql`(SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`;

async function deleteRows(ctx: Ctx, table: Table, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`DELETE FROM ${sql.table(table)} WHERE tenant_id = ${tenantOf(ctx)} AND id IN ${idSet(ids)}`.execute(
    ctx.db,
  );
}

async function writeTable(ctx: Ctx, table: Table, writes: TableWrites<object>): Promise<void> {
  await insertRows(ctx, table, writes.create);
  await updateRows(ctx, table, writes.update);
}

/**
 * Writes the plan in an order the foreign keys allow: what others refer to is created first and
 * deleted last (categories ← products ← option groups ← options; links between products and groups).
 */
async function writePlan(ctx: Ctx, plan: SyncPlan): Promise<void> {
  const ids = (writes: TableWrites<{ id: string }>) => writes.remove.map((row) => row.id);
  await writeTable(ctx, 'menu_categories', plan.categories);
  await writeTable(ctx, 'menu_products', plan.products);
  await writeTable(ctx, 'menu_option_groups', plan.groups);
  await writeTable(ctx, 'menu_options', plan.options);
  if (plan.links.products.length > 0) {
    await sql`DELETE FROM menu_product_option_groups
      WHERE tenant_id = ${tenantOf(ctx)} AND product_id IN ${idSet(plan.links.products)}`.execute(ctx.db);
    await insertRows(ctx, 'menu_product_option_groups', plan.links.rows);
  }
  await deleteRows(ctx, 'menu_options', ids(plan.options));
  await deleteRows(ctx, 'menu_option_groups', ids(plan.groups));
  await deleteRows(ctx, 'menu_products', ids(plan.products));
  if (plan.products.remove.length > 0) await countProductRemoval(ctx);
  await deleteRows(ctx, 'menu_categories', ids(plan.categories));
}

/** One menu.synced for the whole sync: what it did and which connection made it (no external_ids). */
async function recordSynced(
  ctx: Ctx,
  sync: { connection_id: string; mode: MenuSyncInput['mode']; plan: SyncPlan },
): Promise<void> {
  const tenantId = tenantOf(ctx);
  const livemode = await isLive(ctx);
  const object: MenuSynced = {
    object: 'menu_sync',
    connection_id: sync.connection_id,
    mode: sync.mode,
    counts: sync.plan.counts,
  };
  await recordEvent(ctx, { tenantId, type: 'menu.synced', connectionId: null, livemode, data: { object } });
}
