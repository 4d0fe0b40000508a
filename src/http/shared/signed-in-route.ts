import type { FastifyReply, FastifySchema } from 'fastify';
import type { Ctx, Role } from '../../domain/shared/context.ts';
import type { Limiter } from '../../domain/shared/limits.ts';
import type { WebhookRouteOptions } from './delivery-log.route.ts';
import type { Method, TypedRequest } from './route.ts';
import type { Sessions } from './sessions.ts';

/** Who may call a route of a signed-in surface (the console, the dashboard). */
export type SignedInAuth =
  /** Anyone: signing in, the second factor of a sign-in, signing out. */
  | { readonly session: 'none' }
  /** A complete session of an account that may use the surface. */
  | { readonly session: 'account' }
  /**
   * …whose role in the restaurant of the path's `restaurant_id` is one of these (the restaurant
   * gate); for anyone else the restaurant is `not_found`.
   */
  | { readonly session: 'account'; readonly restaurantRoles: readonly Role[] };

/** What a surface's handlers reach besides the ctx: made once per surface. */
export interface SurfaceServices {
  sessions: Sessions;
  webhooks: WebhookRouteOptions;
  /** Resends and test events of the delivery log (manualSendLimit). */
  manualSends: Limiter;
}

/**
 * One operation of a signed-in surface's JSON API. The handler's ctx acts as the signed-in
 * account (in the path's restaurant, with its role, when the auth names roles) and, for every
 * method but GET, inside one transaction, unless `transaction` is false (the delivery log's sends:
 * each step commits, so the log keeps what was sent). It answers with its result (200, or the
 * status it set on `reply`); `undefined` answers 204 without a body.
 */
export interface SignedInRoute<S extends FastifySchema = FastifySchema> {
  readonly method: Method;
  /** The whole path, Fastify syntax (`/dashboard/api/restaurants/:restaurant_id/store`). */
  readonly url: string;
  readonly auth: SignedInAuth;
  readonly transaction?: false;
  readonly schema: S;
  readonly handler: (
    ctx: Ctx,
    request: TypedRequest<S>,
    reply: FastifyReply,
    services: SurfaceServices,
  ) => Promise<unknown>;
}

export function signedInRoute<S extends FastifySchema>(route: SignedInRoute<S>): SignedInRoute {
  return route as unknown as SignedInRoute;
}

/** The restaurant routes' owners-only auth (every restaurant route so far). */
export const ownersOnly: SignedInAuth = { session: 'account', restaurantRoles: ['owner'] };
export const signedInAccount: SignedInAuth = { session: 'account' };
