import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import type { EventType } from '../events/events.store.ts';
import { recordEvents } from '../events/events.store.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import type { ListOrder } from '../shared/paging.ts';

/*
 * What the menu's services share:
 * - every call acts for one restaurant (the ctx's tenant);
 * - external_id belongs to the app that set it: only that app sees the value, every other reader
 *   (another app, the dashboard, events) sees null; an app uses a value for one object per kind
 *   (409 external_id_taken), and another app may use the same value for an object of its own;
 * - a change records its event in the caller's transaction: `*.updated` with `changed` (the
 *   resource's field names) and `previous` (their earlier values), and nothing at all when no
 *   field changed.
 */

/*
 * Menu writes of one restaurant take turns: each holds the restaurant's menu lock (an advisory
 * transaction lock) until its transaction ends. A whole-menu sync and single-object writes
 * touching the same products, groups and links would otherwise lock rows in different orders and
 * deadlock; readers never wait for it.
 */
export async function lockMenu(ctx: Ctx): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`servery.menu:${tenantOf(ctx)}`}, 0))`.execute(
    ctx.db,
  );
  await countMenuChange(ctx);
}

/**
 * Counts a change of the restaurant's menu (migration 0039): the menu lock's holder, and a menu
 * image's download when its outcome is written. Readers that keep a menu (the storefront's pages)
 * read the count with the store and keep what they read under it.
 */
export async function countMenuChange(ctx: Ctx): Promise<void> {
  await ctx.db
    .insertInto('menu_versions')
    .values({ tenant_id: tenantOf(ctx), version: 1 })
    .onConflict((conflict) =>
      conflict.column('tenant_id').doUpdateSet({ version: sql`menu_versions.version + 1` }),
    )
    .execute();
}

/**
 * Counts a removal of menu products in the restaurant (see migration 0022): every transaction that
 * deletes products calls it, so the orders list knows its products found on the menu may be gone.
 */
export async function countProductRemoval(ctx: Ctx): Promise<void> {
  await ctx.db
    .updateTable('restaurants')
    .set((eb) => ({ product_removals: eb('product_removals', '+', 1) }))
    .where('id', '=', tenantOf(ctx))
    .execute();
}

/** Lists of menu objects: the least recently changed first (spec: List filters). */
export const updateOrder: ListOrder<'updated_at'> = { key: 'updated_at', direction: 'asc' };

/** The app whose external_ids the ctx's actor sees and sets: a connection's app; nobody else has any. */
export async function viewerApp(ctx: Ctx): Promise<string | null> {
  return ctx.actor.kind === 'connection' ? ctx.actor.appId : null;
}

/** The external_id as `viewer` sees it: its own value, else null. */
export function shownExternalId(
  row: { external_id: string | null; external_id_app_id: string | null },
  viewer: string | null,
): string | null {
  return viewer !== null && row.external_id_app_id === viewer ? row.external_id : null;
}

const controlCharacter = /\p{Cc}/u;

/** Spec: external_id has no leading or trailing space and no control characters (400 on `param`). */
export function checkExternalIdText(value: string, param = 'external_id'): void {
  if (value.trim() !== value)
    throw new ApiError('invalid_request', `${param} has no leading or trailing space.`, { param });
  if (controlCharacter.test(value))
    throw new ApiError('invalid_request', `${param} must not contain control characters.`, { param });
}

type MenuTable = 'menu_categories' | 'menu_products' | 'menu_option_groups' | 'menu_options';

/**
 * 409 external_id_taken when the external_id's app already uses the value for another object of the
 * kind; other apps' values never collide with it (spec: Errors, "app already uses").
 */
export async function checkExternalIdFree(
  ctx: Ctx,
  table: MenuTable,
  external: { external_id: string | null; external_id_app_id: string | null },
  exceptId: string | null,
): Promise<void> {
  if (external.external_id === null || external.external_id_app_id === null) return;
  let query = ctx.db
    .selectFrom(table)
    .select('id')
    .where('tenant_id', '=', tenantOf(ctx))
    .where('external_id_app_id', '=', external.external_id_app_id)
    .where('external_id', '=', external.external_id);
  if (exceptId !== null) query = query.where('id', '<>', exceptId);
  if (await query.executeTakeFirst()) throw externalIdTaken(external.external_id);
}

function externalIdTaken(value: string): ApiError {
  return new ApiError(
    'external_id_taken',
    `Your app already uses external_id "${value}" for another object of this kind.`,
    { param: 'external_id' },
  );
}

/** A write racing another for the same external_id loses on the unique index: the same 409. */
export async function orTaken<T>(write: Promise<T>, value: string | null | undefined): Promise<T> {
  try {
    return await write;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '23505' && typeof value === 'string') throw externalIdTaken(value);
    throw error;
  }
}

/**
 * What a write does to the stored external_id (value and owner), from the sent value:
 * undefined leaves it; null clears the caller's own value (another app's stays: the caller sees
 * none to clear); a value becomes the caller's (an object has one external_id, whoever set it last).
 */
export function externalIdWrite(
  sent: string | null | undefined,
  current: { external_id: string | null; external_id_app_id: string | null },
  viewer: string | null,
): { external_id: string | null; external_id_app_id: string | null } {
  // The two columns alone, never the row passed in: the result is spread into an update, and one
  // that sets the key (tenant_id) is refused on Citus.
  const kept = { external_id: current.external_id, external_id_app_id: current.external_id_app_id };
  if (sent === undefined) return kept;
  if (viewer === null)
    throw new ApiError('invalid_request', 'external_id is set by apps only.', { param: 'external_id' });
  if (sent === null)
    return current.external_id_app_id === viewer ? { external_id: null, external_id_app_id: null } : kept;
  checkExternalIdText(sent);
  return { external_id: sent, external_id_app_id: viewer };
}

export function externalIdChanged(
  before: { external_id: string | null; external_id_app_id: string | null },
  after: { external_id: string | null; external_id_app_id: string | null },
): boolean {
  return before.external_id !== after.external_id || before.external_id_app_id !== after.external_id_app_id;
}

/** The object's id, or 404 when it is no UUID (and so names nothing; it must not reach a uuid column). */
export function knownId(id: string, notFound: (id: string) => ApiError): string {
  if (!isUuid(id)) throw notFound(id);
  return id;
}

/** Fields that changed between two shapes of a resource (external_id is decided by the stored owner). */
export function changedFields<T extends object>(
  fields: readonly (keyof T & string)[],
  before: T,
  after: T,
): (keyof T & string)[] {
  return fields.filter((field) => !isDeepStrictEqual(before[field], after[field]));
}

/** A menu event: the object as it is after the change, without any app's external_id. */
export async function recordMenuEvent(
  ctx: Ctx,
  type: EventType,
  object: { external_id: string | null } & Record<string, unknown>,
  extra: { changed?: readonly string[]; previous?: Record<string, unknown> } = {},
): Promise<void> {
  await recordMenuEvents(ctx, [{ type, object, ...extra }]);
}

export interface MenuEvent {
  type: EventType;
  object: { external_id: string | null } & Record<string, unknown>;
  changed?: readonly string[];
  previous?: Record<string, unknown>;
}

/** Whether the ctx's restaurant is live (a test restaurant's events and images are marked and capped). */
export async function isLive(ctx: Ctx): Promise<boolean> {
  const { livemode } = await ctx.db
    .selectFrom('restaurants')
    .select('livemode')
    .where('id', '=', tenantOf(ctx))
    .executeTakeFirstOrThrow();
  return livemode;
}

/** Menu events of one write, in order, as recordMenuEvent records each, in a few statements (many objects at once). */
export async function recordMenuEvents(ctx: Ctx, events: readonly MenuEvent[]): Promise<void> {
  if (events.length === 0) return;
  const tenantId = tenantOf(ctx);
  const livemode = await isLive(ctx);
  await recordEvents(
    ctx,
    events.map(({ type, object, changed, previous }) => ({
      tenantId,
      type,
      connectionId: null,
      livemode,
      data: {
        object: { ...object, external_id: null },
        ...(changed && { changed }),
        ...(previous && {
          previous: 'external_id' in previous ? { ...previous, external_id: null } : previous,
        }),
      },
    })),
  );
}

/** Where a new object goes when no position is sent: after the last one. */
export function nextPosition(max: number | string | null | undefined): number {
  return max === null || max === undefined ? 0 : Number(max) + 1;
}
