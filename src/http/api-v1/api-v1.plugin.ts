import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../../db/availability.ts';
import type { Db } from '../../db/client.ts';
import type { ApiAuth } from '../../domain/connections/access-tokens.ts';
import type { Clock } from '../../domain/shared/context.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import type { ImageFetcher } from '../../domain/shared/image-fetcher.ts';
import type { Limiters } from '../../domain/shared/limits.ts';
import { writeTransaction } from '../../domain/shared/write-collisions.ts';
import { errorHandler, sendError, toApiError } from '../shared/error-reply.ts';
import {
  type ApiRoute,
  destructiveExtension,
  idempotencyKeyExtension,
  optionalBodyExtension,
} from './api-route.ts';
import { authenticate } from './auth.ts';
import { type HeldKey, holdIdempotencyKey, KeysToFree, settleHeldKey } from './idempotency.ts';
import { apiRateLimits, countOperationRequest, operationLimiter } from './rate-limit.ts';
import { apiV1Routes } from './routes.ts';

export interface ApiV1Options {
  db: Db;
  clock: Clock;
  limiters: Limiters;
  /** Downloads menu images before a write's transaction (ApiRoute.beforeWrite); without, the worker does. */
  images?: ImageFetcher;
  /** Operations beyond the public list (tests of the shared mechanisms add theirs). */
  extraRoutes?: readonly ApiRoute[];
  /** A restaurant's storefront address by its slug (writes' ctx.storefront: e-mails link there). */
  storefront?: (slug: string) => string;
}

const defaultBodyLimit = 64 * 1024;

/**
 * The errors of an operation that takes no body: a body too large for the parser is the 400 of any
 * body there (the preValidation below; docs/api-decisions.md, Input), not a 413: the spec lists
 * 413 for POST, PUT and PATCH only, and `DELETE /connection` answers 400, 401, 429 and 500 alone.
 */
function refuseAnyBody(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const bodyTooLarge = !(error instanceof ApiError) && toApiError(error).code === 'payload_too_large';
  return bodyTooLarge
    ? sendError(request, reply, new ApiError('invalid_request', 'This operation takes no request body.'))
    : errorHandler(error, request, reply);
}
const noQuery = { type: 'object', properties: {}, additionalProperties: false } as const;

interface RequestState {
  auth: ApiAuth;
  heldKey: HeldKey | null;
}

/*
 * The public API under /v1. Every operation gets the same pipeline:
 * authenticate and count the request against the rate limits, and the operation's own limit if it
 * has one (onRequest) → validate →
 * Idempotency-Key on POST (preHandler) → the route's slow outside work, before any transaction
 * (beforeWrite: image downloads) → the handler in ctx, inside one transaction when it
 * writes (run again when it collides with another change, write-collisions.ts), its answer
 * recorded for the key in that same transaction → error answers recorded for the key on the way
 * out (onSend).
 */
export async function apiV1Plugin(app: FastifyInstance, options: ApiV1Options): Promise<void> {
  const { db, clock } = options;
  const authDeps = { db, clock, limits: apiRateLimits(options.limiters) };
  const state = new WeakMap<FastifyRequest, RequestState>();
  const stateOf = (request: FastifyRequest): RequestState => {
    const found = state.get(request);
    if (!found) throw new Error(`no authentication state for ${request.method} ${request.url}`);
    return found;
  };

  const keysToFree = new KeysToFree(db);
  app.addHook('onClose', async () => keysToFree.close());
  app.addHook('onSend', async (request, reply, payload) => {
    const held = state.get(request)?.heldKey;
    if (held && !held.settled && typeof payload === 'string') {
      try {
        await settleHeldKey(db, clock, held, reply.statusCode, payload);
        held.settled = true;
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        keysToFree.later(held.request, held.lockId);
      }
    }
    return payload;
  });

  for (const route of [...apiV1Routes, ...(options.extraRoutes ?? [])]) {
    const writes = route.method !== 'GET';
    const ownLimit = route.auth.perConnection;
    const ownLimiter = ownLimit && operationLimiter(options.limiters, ownLimit);
    app.route({
      method: route.method,
      url: route.url,
      bodyLimit: route.bodyLimit ?? defaultBodyLimit,
      schema: {
        querystring: noQuery,
        ...route.schema,
        security: [{ bearer: [] }],
        ...(route.destructive && { [destructiveExtension]: route.destructive }),
        ...(route.idempotencyKey && { [idempotencyKeyExtension]: true }),
        ...(route.bodyMayBeAbsent && { [optionalBodyExtension]: true }),
      },
      links: route.links,
      ...(route.schema.body === undefined && { errorHandler: refuseAnyBody }),
      onRequest: async (request, reply) => {
        const auth = await authenticate(authDeps, request, reply, route.auth);
        if (ownLimit && ownLimiter) await countOperationRequest(ownLimiter, ownLimit, auth.connectionId);
        state.set(request, { auth, heldKey: null });
      },
      preValidation: async (request) => {
        if (
          route.bodyMayBeAbsent &&
          request.body === undefined &&
          request.headers['content-type'] === undefined
        )
          request.body = {};
        // An operation without a body schema takes no body (an empty object is tolerated).
        if (route.schema.body === undefined && request.body !== undefined) {
          const { body } = request;
          const fields =
            typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.keys(body) : [''];
          if (fields.length > 0) {
            throw new ApiError(
              'invalid_request',
              'This operation takes no request body.',
              fields[0] ? { param: fields[0] } : {},
            );
          }
        }
      },
      preHandler: async (request, reply) => {
        if (route.method !== 'POST' && !route.idempotencyKey) return;
        const current = stateOf(request);
        current.heldKey = await holdIdempotencyKey(db, clock, current.auth, request, reply, keysToFree);
      },
      handler: async (request, reply) => {
        const { auth, heldKey } = stateOf(request);
        const base = {
          clock,
          tenantId: auth.tenantId,
          actor: {
            kind: 'connection',
            connectionId: auth.connectionId,
            appId: auth.appId,
            scopes: auth.scopes,
          },
        } as const;
        if (!writes) return route.handler({ ...base, db }, request as never, auth, reply);
        // Only here may a request wait on other servers (ctx.images): no transaction is open.
        if (route.beforeWrite)
          await route.beforeWrite({ ...base, db, images: options.images }, request as never);
        const storefront = options.storefront?.(auth.connection.tenant.slug);
        const body = await writeTransaction(db, async (trx) => {
          const result = await route.handler({ ...base, db: trx, storefront }, request as never, auth, reply);
          const serialized = reply.serialize(result) as string;
          if (heldKey) await settleHeldKey(trx, clock, heldKey, reply.statusCode, serialized);
          return serialized;
        });
        if (heldKey) heldKey.settled = true;
        return reply.type('application/json; charset=utf-8').send(body);
      },
    });
  }
}
