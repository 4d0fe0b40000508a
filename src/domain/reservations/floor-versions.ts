import DataLoader from 'dataloader';
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { perRestaurant } from '../../db/restaurant-batches.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';

/*
 * Availability's memory in each process (migrations 0025, 0031): what a process computed for a
 * restaurant's date, kept for as long as the restaurant's floor version (the count of changes to
 * its floor, and its name, zone, language and mode) stands still. Every
 * request reads the version first (the reads of one pass of the event loop in one query per
 * restaurant, as the store's), so each process answers as the database is, whichever process wrote.
 */

/** Something kept for a restaurant's date, computed from the floor at `version`. */
export interface Versioned {
  version: string;
}

/**
 * A restaurant's floor version: its row `fv` of floor_versions (the triggers' count) and what
 * availability reads of its row `r` in restaurants.
 */
export const floorVersion = sql<string>`concat_ws('|', fv.version, r.timezone, r.language, r.livemode, r.name)`;

/** At most this many restaurant dates per database; the oldest kept go first. */
const maxKept = 2_000;
const keptByDb = new WeakMap<Db, Map<string, Versioned>>();
const loaders = new WeakMap<Db, DataLoader<string, string>>();

function versionLoader(db: Db): DataLoader<string, string> {
  let loader = loaders.get(db);
  if (!loader) {
    loader = new DataLoader(
      (tenantIds) =>
        perRestaurant(
          tenantIds,
          (tenantId) => tenantId,
          async (keys, tenantId) => {
            // The count of floor changes, and the restaurant's own columns availability reads.
            const row = await db
              .selectFrom('floor_versions as fv')
              .innerJoin('restaurants as r', 'r.id', 'fv.tenant_id')
              .select(floorVersion.as('version'))
              .where('fv.tenant_id', '=', tenantId as string)
              .executeTakeFirst();
            return keys.map(() => row?.version ?? '0');
          },
        ),
      { cache: false, maxBatchSize: 100, batchScheduleFn: (run) => setImmediate(run) },
    );
    loaders.set(db, loader);
  }
  return loader;
}

/**
 * What the process keeps for the restaurant's `date` if it is still current, else `compute()`'s
 * answer, kept. Inside a transaction nothing is kept or reused: its reads may not be committed.
 */
export async function keptFor<T extends Versioned>(
  ctx: Ctx,
  date: string,
  compute: () => Promise<T>,
): Promise<T> {
  if (ctx.db.isTransaction) return compute();
  const tenantId = tenantOf(ctx);
  const version = await versionLoader(ctx.db).load(tenantId);
  let kept = keptByDb.get(ctx.db);
  if (!kept) {
    kept = new Map();
    keptByDb.set(ctx.db, kept);
  }
  const key = `${tenantId}|${date}`;
  const found = kept.get(key);
  if (found?.version === version) return found as T;
  const computed = await compute();
  kept.delete(key);
  if (kept.size >= maxKept) kept.delete(kept.keys().next().value as string);
  kept.set(key, computed);
  return computed;
}
