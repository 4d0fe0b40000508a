import type { Db } from '../db/client.ts';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Who is acting: an app through its connection, or the operator/system itself. */
export type Actor =
  | { readonly kind: 'connection'; readonly connectionId: string; readonly scopes: readonly string[] }
  | { readonly kind: 'system' };

/**
 * What every domain call receives first: the database (the request's transaction when it writes),
 * the clock, the tenant it acts in (null for calls above any one restaurant) and the actor.
 */
export interface Ctx {
  readonly db: Db;
  readonly clock: Clock;
  readonly tenantId: string | null;
  readonly actor: Actor;
}

export function systemCtx(db: Db, clock: Clock = systemClock): Ctx {
  return { db, clock, tenantId: null, actor: { kind: 'system' } };
}
