import type { FastifyReply, FastifySchema, RouteShorthandOptions } from 'fastify';
import type { TSchema } from 'typebox';
import type { ApiAuth } from '../../domain/connections/access-tokens.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import type { Feature } from '../../domain/shared/plans.ts';
import type { Scope } from '../../domain/shared/scopes.ts';
import type { Method, TypedRequest } from '../shared/route.ts';

/** Who may call a route (checked for every /v1 route before anything else). */
export interface RouteAuth {
  /** Any one of these scopes suffices; empty = any valid token. */
  readonly scopes: readonly Scope[];
  /** The feature the route is, when not every plan includes it (domain/shared/plans.ts); absent = every plan. */
  readonly feature?: Feature;
  /** Also while the restaurant's subscription is inactive (`GET /me`, `DELETE /connection`). */
  readonly whenInactive?: boolean;
  /** A limit of this operation per connection, besides the one of all requests (`PUT /menu`). */
  readonly perConnection?: OperationLimit;
}

export interface OperationLimit {
  /** Names the limit's counts. */
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

export type Destructive = 'data' | 'access';
/** The document's extension carrying ApiRoute.destructive on an operation. */
export const destructiveExtension = 'x-destructive';
/** The schema's mark of ApiRoute.idempotencyKey, read (and removed) by openapi.ts. */
export const idempotencyKeyExtension = 'x-idempotency-key';
/** The schema's mark of ApiRoute.bodyMayBeAbsent (a request body not required), read by openapi.ts. */
export const optionalBodyExtension = 'x-optional-body';

/** One operation of the public API: its schema, who may call it, and a thin handler. */
export interface ApiRoute<S extends FastifySchema = FastifySchema> {
  readonly method: Method;
  /** Path below /v1, Fastify syntax (`/orders/:id`). */
  readonly url: string;
  readonly auth: RouteAuth;
  readonly schema: S & {
    operationId: string;
    summary: string;
    tags: string[];
    /**
     * The path parameters as the OpenAPI document states them, where they say more than `params`
     * checks: the route checks the rest itself, later than Fastify would (GET /events/{id}).
     */
    documentedParams?: TSchema;
  };
  /**
   * What a plain run of the Postman collection must not do (`x-destructive` in the document; the
   * collection puts these requests in a folder it skips unless asked): `data` removes or replaces
   * the restaurant's data or stops it taking orders; `access` ends the app's access, so it also runs
   * after every other request.
   */
  readonly destructive?: Destructive;
  /**
   * Takes an `Idempotency-Key` though not a POST (every POST does): `PATCH /reservations/{id}`.
   * Marked in the generated schema with `x-idempotency-key`, which openapi.ts turns into the header
   * parameter.
   */
  readonly idempotencyKey?: true;
  /**
   * Values later operations take from this one's answer, by status (OpenAPI links, e.g. an event id
   * from the list for `GET /events/{id}`); the Postman collection passes them on.
   */
  readonly links?: RouteShorthandOptions['links'];
  /**
   * A request without any body (no Content-Type either) reads as `{}`: the order moves, whose body
   * is "empty or `{}`" (decisions.md). Elsewhere an operation with a body schema needs a body.
   */
  readonly bodyMayBeAbsent?: true;
  /** Body limit in bytes when not the default 64 KB. */
  readonly bodyLimit?: number;
  /**
   * A write's slow outside work, run before its transaction opens (ctx on the database, outside
   * any transaction), so no transaction or lock waits on another server: downloading new menu
   * images (domain/menu/menu-images.ts). Runs once even when the write is run again.
   */
  readonly beforeWrite?: (ctx: Ctx, request: TypedRequest<S>) => Promise<void>;
  readonly handler: (
    ctx: Ctx,
    request: TypedRequest<S>,
    auth: ApiAuth,
    reply: FastifyReply,
  ) => Promise<unknown>;
}

export function apiRoute<S extends FastifySchema>(route: ApiRoute<S>): ApiRoute {
  return route as unknown as ApiRoute;
}
