import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { confirmTotpSetup, disableTotp, hasTotp, startTotpSetup } from '../../domain/accounts/totp.ts';
import { type Clock, type Ctx, systemCtx } from '../../domain/shared/context.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import type { Limiter, Limiters } from '../../domain/shared/limits.ts';
import { writeTransaction } from '../../domain/shared/write-collisions.ts';
import { acceptJsonBodies } from './json-body.ts';
import { type SessionSurface, Sessions } from './sessions.ts';

export interface SignedInApiOptions {
  db: Db;
  clock: Clock;
  limiters: Limiters;
  /** `appUrl` (default `baseUrl`) serves the console and dashboard: when https, their cookies are Secure. */
  config: Pick<Config, 'baseUrl'> & Partial<Pick<Config, 'appUrl' | 'webhooksAllowInsecure'>>;
}

/** What a signed-in route gets: the account and a ctx whose db is the request's transaction when it writes. */
export type SignedInHandler<T> = (ctx: Ctx, accountId: string, request: FastifyRequest) => Promise<T>;

/** Wraps a signed-in route's handler (see signedInApi). */
export type SignedIn = <T>(
  writes: boolean,
  handler: SignedInHandler<T>,
) => (request: FastifyRequest) => Promise<T>;

const noQuery = Type.Object({}, { additionalProperties: false });
const SessionSchema = Type.Object(
  { object: Type.Literal('session'), email: Type.String(), second_factor_required: Type.Boolean() },
  { additionalProperties: false },
);

/*
 * The JSON API of a signed-in web surface (the console, the dashboard):
 * - sign-in with e-mail and password (`POST <api>/sessions`), then the second factor if the account
 *   has one (`POST <api>/sessions/second-factor`); sign-out (`DELETE <api>/sessions`);
 * - the session is a cookie, HttpOnly and SameSite=Strict, limited to the surface's path;
 * - CSRF: every write (any method but GET/HEAD) must be sent as `Content-Type: application/json`,
 *   which a cross-site form cannot send and cross-site script only after a CORS preflight that we
 *   never answer with CORS headers; SameSite=Strict keeps the cookie off cross-site requests anyway;
 * - answers are never cached; errors are the API's error shape.
 * Returns `signedIn`, which wraps a route's handler: 401 without a full session of an allowed
 * account; writes run in one transaction.
 */
export async function signedInApi(
  app: FastifyInstance,
  options: SignedInApiOptions,
  surface: SessionSurface,
): Promise<SignedIn> {
  const { db, clock } = options;
  const ctx = systemCtx(db, clock);
  const secure = new URL(options.config.appUrl ?? options.config.baseUrl).protocol === 'https:';
  const sessions = new Sessions(ctx, options.limiters, surface, secure);
  const api = `${surface.cookie.path}/api`;

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

  const tooMany = (resetSeconds: number) =>
    new ApiError('rate_limited', 'Too many failed sign-ins. Try again later.', {
      headers: { 'retry-after': String(resetSeconds) },
    });

  app.post(
    `${api}/sessions`,
    {
      schema: {
        querystring: noQuery,
        body: Type.Object(
          {
            email: Type.String({ minLength: 1, maxLength: 200 }),
            password: Type.String({ minLength: 1, maxLength: 1000 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: SessionSchema },
      },
    },
    async (request, reply) => {
      const outcome = await sessions.signIn(
        request,
        reply,
        request.body as { email: string; password: string },
      );
      if (outcome.kind === 'limited') throw tooMany(outcome.resetSeconds);
      if (outcome.kind === 'refused')
        throw new ApiError('unauthorized', 'The e-mail address or the password is not right.');
      const { session } = outcome;
      return { object: 'session', email: session.email, second_factor_required: session.secondFactorPending };
    },
  );

  app.post(
    `${api}/sessions/second-factor`,
    {
      schema: {
        querystring: noQuery,
        body: Type.Object({ code: Type.String({ maxLength: 20 }) }, { additionalProperties: false }),
        response: { 200: SessionSchema },
      },
    },
    async (request) => {
      const session = await sessions.current(request);
      if (!session?.secondFactorPending)
        throw new ApiError('unauthorized', 'Sign in with e-mail and password first.');
      const outcome = await sessions.secondFactor(request, session, (request.body as { code: string }).code);
      if (outcome.kind === 'limited') throw tooMany(outcome.resetSeconds);
      if (outcome.kind === 'refused')
        throw new ApiError('invalid_request', 'That code is not right.', { param: 'code' });
      return { object: 'session', email: session.email, second_factor_required: false };
    },
  );

  app.delete(`${api}/sessions`, { schema: { querystring: noQuery } }, async (request, reply) => {
    await sessions.signOut(request, reply);
    return reply.code(204).send();
  });

  const signedIn: SignedIn =
    <T>(writes: boolean, handler: SignedInHandler<T>) =>
    async (request: FastifyRequest): Promise<T> => {
      const accountId = await sessions.signedInAccount(request);
      if (!accountId) throw new ApiError('unauthorized', 'Sign in first.');
      if (!writes) return handler(ctx, accountId, request);
      return writeTransaction(db, (trx) => handler({ ...ctx, db: trx }, accountId, request));
    };
  secondFactorRoutes(app, api, signedIn, sessions.limiter);
  return signedIn;
}

const SecondFactorSchema = Type.Object(
  { object: Type.Literal('second_factor'), enabled: Type.Boolean() },
  { additionalProperties: false },
);
const CodeSchema = Type.Object({ code: Type.String({ maxLength: 20 }) }, { additionalProperties: false });

/*
 * The signed-in account's second factor (`<api>/account/second-factor`): GET whether it is on;
 * POST starts a setup (a secret and its otpauth:// URI for an authenticator app, not in force
 * yet); POST …/confirm {code} puts it in force with a code of the new secret; DELETE {code} turns
 * it off with a current code. Wrong codes count against the sign-in limit of the account (10 in
 * 15 minutes), so a stolen session cannot guess its way to switching the second factor off.
 */
function secondFactorRoutes(app: FastifyInstance, api: string, signedIn: SignedIn, limiter: Limiter): void {
  const base = `${api}/account/second-factor`;
  const wrongCode = () => new ApiError('invalid_request', 'That code is not right.', { param: 'code' });
  const withCode = (check: (ctx: Ctx, accountId: string, code: string) => Promise<boolean>) =>
    signedIn(true, async (ctx, accountId, request) => {
      const key = `second-factor ${accountId}`;
      const limit = await limiter.peek(key);
      if (!limit.allowed)
        throw new ApiError('rate_limited', 'Too many wrong codes. Try again later.', {
          headers: { 'retry-after': String(limit.resetSeconds) },
        });
      if (!(await check(ctx, accountId, (request.body as { code: string }).code.trim()))) {
        await limiter.consume(key);
        throw wrongCode();
      }
      return { object: 'second_factor' as const, enabled: await hasTotp(ctx, accountId) };
    });

  app.get(
    base,
    { schema: { querystring: noQuery, response: { 200: SecondFactorSchema } } },
    signedIn(false, async (ctx, accountId) => ({
      object: 'second_factor' as const,
      enabled: await hasTotp(ctx, accountId),
    })),
  );
  app.post(
    base,
    {
      schema: {
        querystring: noQuery,
        body: noQuery,
        response: {
          200: Type.Object(
            { object: Type.Literal('second_factor_setup'), secret: Type.String(), uri: Type.String() },
            { additionalProperties: false },
          ),
        },
      },
    },
    signedIn(true, async (ctx, accountId) => ({
      object: 'second_factor_setup' as const,
      ...(await startTotpSetup(ctx, accountId)),
    })),
  );
  app.post(
    `${base}/confirm`,
    { schema: { querystring: noQuery, body: CodeSchema, response: { 200: SecondFactorSchema } } },
    withCode(confirmTotpSetup),
  );
  app.delete(
    base,
    { schema: { querystring: noQuery, body: CodeSchema, response: { 200: SecondFactorSchema } } },
    withCode(disableTotp),
  );
}
