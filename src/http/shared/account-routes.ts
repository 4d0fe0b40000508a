import Type from 'typebox';
import { confirmTotpSetup, disableTotp, hasTotp, startTotpSetup } from '../../domain/accounts/totp.ts';
import { actingAccount, type Ctx } from '../../domain/shared/context.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import {
  type SignedInRoute,
  type SurfaceServices,
  signedInAccount,
  signedInRoute,
} from './signed-in-route.ts';

const noQuery = Type.Object({}, { additionalProperties: false });
const noBody = noQuery;
const CodeSchema = Type.Object({ code: Type.String({ maxLength: 20 }) }, { additionalProperties: false });
const SessionSchema = Type.Object(
  { object: Type.Literal('session'), email: Type.String(), second_factor_required: Type.Boolean() },
  { additionalProperties: false },
);
const SecondFactorSchema = Type.Object(
  { object: Type.Literal('second_factor'), enabled: Type.Boolean() },
  { additionalProperties: false },
);

const tooMany = (message: string, resetSeconds: number) =>
  new ApiError('rate_limited', message, { headers: { 'retry-after': String(resetSeconds) } });
const wrongCode = () => new ApiError('invalid_request', 'That code is not right.', { param: 'code' });

/*
 * The account routes of a signed-in surface's API under `api` (`/console/api`, `/dashboard/api`):
 * - sign-in with e-mail and password (`POST <api>/sessions`), then the second factor if the
 *   account has one (`POST <api>/sessions/second-factor`); sign-out (`DELETE <api>/sessions`);
 * - the signed-in account's second factor (`<api>/account/second-factor`): GET whether it is on;
 *   POST starts a setup (a secret and its otpauth:// URI for an authenticator app, not in force
 *   yet); POST …/confirm {code} puts it in force with a code of the new secret; DELETE {code}
 *   turns it off with a current code. Wrong codes count against the sign-in limit of the account
 *   (Sessions.secondFactorChange, as on the account pages).
 */
// Sessions are written by the Sessions plumbing itself, outside the request's transaction.
export function accountRoutes(api: string): SignedInRoute[] {
  const secondFactor = `${api}/account/second-factor`;
  const withCode =
    (change: (ctx: Ctx, accountId: string, code: string) => Promise<boolean>) =>
    async (ctx: Ctx, code: string, { sessions }: SurfaceServices) => {
      const accountId = actingAccount(ctx);
      const outcome = await sessions.secondFactorChange(ctx, accountId, code, change);
      if (outcome.kind === 'limited')
        throw tooMany('Too many wrong codes. Try again later.', outcome.resetSeconds);
      if (outcome.kind === 'refused') throw wrongCode();
      return { object: 'second_factor' as const, enabled: await hasTotp(ctx, accountId) };
    };
  const confirm = withCode(confirmTotpSetup);
  const disable = withCode(disableTotp);
  return [
    signedInRoute({
      method: 'POST',
      url: `${api}/sessions`,
      auth: { session: 'none' },
      transaction: false,
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
      handler: async (_ctx, request, reply, { sessions }) => {
        const outcome = await sessions.signIn(request, reply, request.body);
        if (outcome.kind === 'limited')
          throw tooMany('Too many failed sign-ins. Try again later.', outcome.resetSeconds);
        if (outcome.kind === 'refused')
          throw new ApiError('unauthorized', 'The e-mail address or the password is not right.');
        const { session } = outcome;
        return {
          object: 'session',
          email: session.email,
          second_factor_required: session.secondFactorPending,
        };
      },
    }),
    signedInRoute({
      method: 'POST',
      url: `${api}/sessions/second-factor`,
      auth: { session: 'none' },
      transaction: false,
      schema: { querystring: noQuery, body: CodeSchema, response: { 200: SessionSchema } },
      handler: async (_ctx, request, _reply, { sessions }) => {
        const session = await sessions.current(request);
        if (!session?.secondFactorPending)
          throw new ApiError('unauthorized', 'Sign in with e-mail and password first.');
        const outcome = await sessions.secondFactor(request, session, request.body.code);
        if (outcome.kind === 'limited')
          throw tooMany('Too many failed sign-ins. Try again later.', outcome.resetSeconds);
        if (outcome.kind === 'refused') throw wrongCode();
        return { object: 'session', email: session.email, second_factor_required: false };
      },
    }),
    signedInRoute({
      method: 'DELETE',
      url: `${api}/sessions`,
      auth: { session: 'none' },
      transaction: false,
      schema: { querystring: noQuery },
      handler: async (_ctx, request, reply, { sessions }) => {
        await sessions.signOut(request, reply);
        return undefined;
      },
    }),
    signedInRoute({
      method: 'GET',
      url: secondFactor,
      auth: signedInAccount,
      schema: { querystring: noQuery, response: { 200: SecondFactorSchema } },
      handler: async (ctx) => ({ object: 'second_factor', enabled: await hasTotp(ctx, actingAccount(ctx)) }),
    }),
    signedInRoute({
      method: 'POST',
      url: secondFactor,
      auth: signedInAccount,
      schema: {
        querystring: noQuery,
        body: noBody,
        response: {
          200: Type.Object(
            { object: Type.Literal('second_factor_setup'), secret: Type.String(), uri: Type.String() },
            { additionalProperties: false },
          ),
        },
      },
      handler: async (ctx) => ({
        object: 'second_factor_setup',
        ...(await startTotpSetup(ctx, actingAccount(ctx))),
      }),
    }),
    signedInRoute({
      method: 'POST',
      url: `${secondFactor}/confirm`,
      auth: signedInAccount,
      schema: { querystring: noQuery, body: CodeSchema, response: { 200: SecondFactorSchema } },
      handler: (ctx, request, _reply, services) => confirm(ctx, request.body.code, services),
    }),
    signedInRoute({
      method: 'DELETE',
      url: secondFactor,
      auth: signedInAccount,
      schema: { querystring: noQuery, body: CodeSchema, response: { 200: SecondFactorSchema } },
      handler: (ctx, request, _reply, services) => disable(ctx, request.body.code, services),
    }),
  ];
}
