import type { Db } from '../../db/client.ts';

export interface Clock {
  now(): Date;
  /**
   * How far a sandbox clock (SANDBOX_CLOCK, src/domain/shared/sandbox-clock.ts) is ahead of the system
   * clock; absent otherwise. Rate-limit windows keep their own time: a move of it starts them anew.
   */
  readonly offsetMs?: number;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * The time the clocks of other machines read: `clock` without a sandbox clock's lead. For what is
 * checked outside Servery against real time: a webhook signature's timestamp (the receiver's replay
 * check), a second-factor code (made by an authenticator app).
 */
export function wallClockTime(clock: Clock): Date {
  return new Date(clock.now().getTime() - (clock.offsetMs ?? 0));
}

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
