import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { actInRestaurant } from '../../domain/restaurants/restaurant-gate.ts';
import { accountCtx, type Clock, type Ctx, systemCtx } from '../../domain/shared/context.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import type { Limiters } from '../../domain/shared/limits.ts';
import { writeTransaction } from '../../domain/shared/write-collisions.ts';
import { manualSendLimit } from '../../domain/webhooks/delivery-log.service.ts';
import { webhookRouteOptions } from './delivery-log.route.ts';
import { acceptJsonBodies } from './json-body.ts';
import { type SessionSurface, Sessions } from './sessions.ts';
import type { SignedInRoute, SurfaceServices } from './signed-in-route.ts';

export interface SignedInApiOptions {
  db: Db;
  clock: Clock;
  limiters: Limiters;
  /** `appUrl` (default `baseUrl`) serves the console and dashboard: when https, their cookies are Secure. */
  config: Pick<Config, 'baseUrl'> & Partial<Pick<Config, 'appUrl' | 'webhooksAllowInsecure'>>;
}

const noQuery = Type.Object({}, { additionalProperties: false });

/*
 * The JSON API of a signed-in web surface (the console, the dashboard): its route list, each
 * route through the same pipeline:
 * - the session is a cookie, HttpOnly and SameSite=Strict, limited to the surface's path
 *   (sessions.ts); a route that needs it answers 401 without a complete session of an account
 *   that may use the surface, before anything else;
 * - a route of a restaurant goes through the restaurant gate with the route's roles (404 for
 *   anyone else) and its ctx acts there as the account with its role;
 * - CSRF: every write (any method but GET/HEAD) must be sent as `Content-Type: application/json`,
 *   which a cross-site form cannot send and cross-site script only after a CORS preflight that we
 *   never answer with CORS headers; SameSite=Strict keeps the cookie off cross-site requests anyway;
 * - writes run in one transaction (see SignedInRoute);
 * - answers are never cached; errors are the API's error shape.
 */
export async function signedInApi(
  app: FastifyInstance,
  options: SignedInApiOptions,
  surface: SessionSurface,
  routes: readonly SignedInRoute[],
): Promise<void> {
  const { db, clock } = options;
  const secure = new URL(options.config.appUrl ?? options.config.baseUrl).protocol === 'https:';
  const services: SurfaceServices = {
    sessions: new Sessions(systemCtx(db, clock), options.limiters, surface, secure),
    webhooks: webhookRouteOptions(options),
    manualSends: options.limiters.createLimiter(manualSendLimit),
  };

  await app.register(fastifyCookie);
  // Bodiless writes (DELETE, POST …/rotate) send the JSON content type too: an empty body is `{}`.
  acceptJsonBodies(app, 'as-empty-object');
  app.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (request.method === 'GET' || request.method === 'HEAD') return;
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json')
      throw new ApiError(
        'invalid_request',
        'Requests that change something must be sent as application/json.',
      );
  });

  const accounts = new WeakMap<FastifyRequest, string>();
  for (const route of routes) {
    const { auth } = route;
    const inTransaction = route.method !== 'GET' && route.transaction !== false;
    app.route({
      method: route.method,
      url: route.url,
      schema: { querystring: noQuery, ...route.schema },
      // Who asks comes first, before the request is validated (as on /v1).
      onRequest: async (request) => {
        if (auth.session === 'none') return;
        const accountId = await services.sessions.signedInAccount(request);
        if (!accountId) throw new ApiError('unauthorized', 'Sign in first.');
        accounts.set(request, accountId);
      },
      handler: async (request, reply) => {
        const accountId = accounts.get(request);
        const run = async (db: Db) => {
          let ctx: Ctx = accountId ? accountCtx(db, clock, accountId) : systemCtx(db, clock);
          if ('restaurantRoles' in auth) {
            const { restaurant_id } = request.params as { restaurant_id: string };
            ctx = await actInRestaurant(ctx, restaurant_id, auth.restaurantRoles);
          }
          return route.handler(ctx, request as never, reply, services);
        };
        const result = inTransaction ? await writeTransaction(db, run) : await run(db);
        return result === undefined ? reply.code(204).send() : result;
      },
    });
  }
}
