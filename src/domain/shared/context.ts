import type { Db } from '../../db/client.ts';
import type { ImageFetcher } from './image-fetcher.ts';

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

/** What an account may be in a restaurant. */
export type Role = 'owner' | 'staff';

/**
 * Who is acting: an app through its connection; a signed-in account (with its role in the
 * restaurant it acts in, once the restaurant gate let it in: domain/restaurants/restaurant-gate.ts);
 * a guest ordering at the storefront; or the service itself (the operator's CLI, background jobs).
 */
export type Actor =
  | {
      readonly kind: 'connection';
      readonly connectionId: string;
      /** The connection's app: whose external_ids and acknowledgements the actor sees. */
      readonly appId: string;
      readonly scopes: readonly string[];
    }
  | { readonly kind: 'account'; readonly accountId: string; readonly role: Role | null }
  | { readonly kind: 'guest' }
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
  /**
   * Downloads menu images, where this caller may wait for other servers: an API write before its
   * transaction (ApiRoute.beforeWrite) and the worker. Absent elsewhere: new images are then left
   * to the worker (domain/menu/menu-images.ts).
   */
  readonly images?: ImageFetcher;
  /**
   * The restaurant's storefront address (http/storefront/storefront-address.ts), where the caller
   * knows the service's addresses: the API and the pages. A guest's reservation e-mail links there
   * to cancel; the worker and the CLI send none.
   */
  readonly storefront?: string;
}

/** The restaurant the ctx acts in; an operation of one restaurant called above any is a bug. */
export function tenantOf(ctx: Ctx): string {
  if (ctx.tenantId === null) throw new Error('an operation of one restaurant called without one');
  return ctx.tenantId;
}

export function systemCtx(db: Db, clock: Clock = systemClock): Ctx {
  return { db, clock, tenantId: null, actor: { kind: 'system' } };
}

/** The ctx of a signed-in account, above any one restaurant until the restaurant gate. */
export function accountCtx(db: Db, clock: Clock, accountId: string): Ctx {
  return { db, clock, tenantId: null, actor: { kind: 'account', accountId, role: null } };
}

/** The account a signed-in account's ctx acts as. */
export function actingAccount(ctx: Ctx): string {
  if (ctx.actor.kind !== 'account') throw new Error(`an account's operation called by ${ctx.actor.kind}`);
  return ctx.actor.accountId;
}

/** The actor as an event records it (`events.actor`): who made the change. */
export function actorRecord(actor: Actor): { kind: Actor['kind']; id?: string; role?: Role } {
  switch (actor.kind) {
    case 'connection':
      return { kind: 'connection', id: actor.connectionId };
    case 'account':
      return { kind: 'account', id: actor.accountId, ...(actor.role && { role: actor.role }) };
    case 'guest':
      return { kind: 'guest' };
    case 'system':
      return { kind: 'system' };
  }
}
