import type { Db } from '../../db/client.ts';
import { type Clock, type Ctx, tenantOf } from '../shared/context.ts';
import { writeTransaction } from '../shared/write-collisions.ts';
import { lockMenu, recordMenuEvents } from './menu-writes.ts';
import { optionOf, optionsOf } from './option-group-rows.ts';
import { productsWithIds } from './products.service.ts';

/** Restaurants handled per run of the job; the next run takes the rest. */
const restaurantsPerRun = 100;

/*
 * Sold out until a time, then back on sale by itself (decisions.md, Additions beyond the spec): the
 * worker's job. Products and options whose `unavailable_until` has passed (by the ctx's clock, so a
 * sandbox clock moves it too) become `available: true, unavailable_until: null` with updated_at now,
 * each recording menu.product.updated / menu.option.updated with `changed` ["available",
 * "unavailable_until"] and `previous`. Each restaurant in a transaction of its own, under its menu
 * lock; the partial indexes of migration 0019 find the due ones (on Citus that search asks every
 * shard: the worker's, once a minute). Answers how many objects it put back.
 */
export async function putBackOnSale(db: Db, clock: Clock): Promise<number> {
  const now = clock.now();
  const due = await db
    .selectFrom('menu_products')
    .select('tenant_id')
    .where('unavailable_until', '<=', now)
    .union(db.selectFrom('menu_options').select('tenant_id').where('unavailable_until', '<=', now))
    .limit(restaurantsPerRun)
    .execute();
  let count = 0;
  for (const { tenant_id } of due) {
    count += await writeTransaction(db, (trx) =>
      putBackIn({ db: trx, clock, tenantId: tenant_id, actor: { kind: 'system' } }),
    );
  }
  return count;
}

/** One restaurant's products and options whose sold-out time has passed, back on sale. */
async function putBackIn(ctx: Ctx): Promise<number> {
  await lockMenu(ctx);
  const now = ctx.clock.now();
  const back = { available: true, unavailable_until: null, updated_at: now };
  const products = await ctx.db
    .selectFrom('menu_products')
    .select(['id', 'available', 'unavailable_until'])
    .where('tenant_id', '=', tenantOf(ctx))
    .where('unavailable_until', '<=', now)
    .orderBy('id')
    .execute();
  const options = await ctx.db
    .selectFrom('menu_options')
    .select(['id', 'available', 'unavailable_until'])
    .where('tenant_id', '=', tenantOf(ctx))
    .where('unavailable_until', '<=', now)
    .orderBy('id')
    .execute();
  if (products.length > 0)
    await ctx.db
      .updateTable('menu_products')
      .set(back)
      .where('tenant_id', '=', tenantOf(ctx))
      .where('id', 'in', ids(products))
      .execute();
  if (options.length > 0)
    await ctx.db
      .updateTable('menu_options')
      .set(back)
      .where('tenant_id', '=', tenantOf(ctx))
      .where('id', 'in', ids(options))
      .execute();
  const dueProducts = byId(products);
  const dueOptions = byId(options);
  const optionRows =
    options.length === 0 ? [] : await optionsOf(ctx).where('id', 'in', ids(options)).orderBy('id').execute();
  await recordMenuEvents(ctx, [
    ...(await productsWithIds(ctx, ids(products), null)).map((product) => ({
      type: 'menu.product.updated' as const,
      object: product,
      ...liftedFrom(dueProducts, product.id),
    })),
    ...optionRows.map((row) => ({
      type: 'menu.option.updated' as const,
      object: optionOf(row, null),
      ...liftedFrom(dueOptions, row.id),
    })),
  ]);
  return products.length + options.length;
}

interface DueRow {
  id: string;
  available: boolean;
  unavailable_until: Date | null;
}

const ids = (rows: readonly DueRow[]) => rows.map((row) => row.id);
const byId = (rows: readonly DueRow[]) => new Map(rows.map((row) => [row.id, row]));

/**
 * `changed` and `previous` of an object put back on sale: its end time, and `available`, which was
 * false (an end time is kept only while sold out; named only where it differed).
 */
function liftedFrom(due: ReadonlyMap<string, DueRow>, id: string) {
  const row = due.get(id);
  if (!row) throw new Error(`${id} was not due`);
  const previous = { ...(!row.available && { available: false }), unavailable_until: row.unavailable_until };
  return { changed: Object.keys(previous), previous };
}
