import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  completeSecondFactor,
  endSession,
  findSession,
  type Session,
  sessionLifetimeSeconds,
  signIn,
} from '../../domain/accounts/sessions.ts';
import { consentToApp } from '../../domain/connections/connections.service.ts';
import { onlyForTestRestaurant, restaurantsForConsent } from '../../domain/connections/consent-rules.ts';
import { scopeDescriptions } from '../../domain/connections/scope-descriptions.ts';
import { issueAuthorizationCode } from '../../domain/oauth/authorization-codes.ts';
import { AccessDenied } from '../../domain/oauth/oauth-errors.ts';
import { type Ctx, systemCtx } from '../../domain/shared/context.ts';
import type { AuthorizeOptions } from './authorize.plugin.ts';
import {
  type Authorization,
  answerAuthorization,
  csrfBinding,
  formField,
  redirectUrl,
  sendPage,
  sessionCookie,
} from './authorize-request.ts';
import { consentPage } from './pages/consent.page.ts';
import { errorPage } from './pages/error.page.ts';
import type { AppSummary } from './pages/layout.ts';
import { secondFactorPage } from './pages/second-factor.page.ts';
import { signInPage } from './pages/sign-in.page.ts';

/*
 * Failed sign-ins (wrong password or wrong second-factor code) per e-mail and IP address: 10 in
 * 15 minutes, then refused until the window ends. Only a complete sign-in forgets the count,
 * so a known password cannot be used to reset the guessing of codes.
 */
const loginLimit = { keyPrefix: 'login', points: 10, durationSeconds: 15 * 60 };

type SignedIn = Session & { token: string };
type Step = (
  request: FastifyRequest,
  reply: FastifyReply,
  authorization: Authorization,
  session: SignedIn | null,
) => Promise<FastifyReply>;

/*
 * GET shows the step the browser is at: sign in, the second factor, or the consent. Each form
 * posts to its own address with the authorization request's query, checks its CSRF token, and
 * after a sign-in returns to GET (post/redirect/get). Every request runs the authorization
 * request's checks again.
 */
export function authorizeRoutes(
  app: FastifyInstance,
  options: AuthorizeOptions & { secureCookies: boolean },
): void {
  const { db, clock } = options;
  const issuer = options.config.baseUrl;
  const ctx = systemCtx(db, clock);
  const loginLimiter = options.limiters.createLimiter(loginLimit);
  const csrf = { preHandler: app.csrfProtection };

  const answer =
    (step: Step) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const token = request.cookies[sessionCookie];
      const found = token ? await findSession(ctx, token) : null;
      const session = token && found ? { ...found, token } : null;
      const signedInAccountId = session && !session.secondFactorPending ? session.accountId : null;
      return answerAuthorization(ctx, request, reply, { issuer, signedInAccountId }, (authorization) =>
        step(request, reply, authorization, session),
      );
    };
  const backToPage = (reply: FastifyReply, authorization: Authorization) =>
    reply.redirect(`/oauth/authorize?${authorization.rawQuery}`, 303);
  const action = (path: string, authorization: Authorization) =>
    `/oauth/authorize${path}?${authorization.rawQuery}`;
  const csrfToken = (request: FastifyRequest, reply: FastifyReply) =>
    reply.generateCsrf({ userInfo: csrfBinding(request) });
  const limitKey = (request: FastifyRequest, email: string) => `${email.trim().toLowerCase()} ${request.ip}`;
  const tooManyAttempts = (reply: FastifyReply, resetSeconds: number) => {
    reply.header('retry-after', String(resetSeconds));
    const minutes = Math.ceil(resetSeconds / 60);
    return `Too many failed sign-ins. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
  };

  app.get(
    '/oauth/authorize',
    answer(async (request, reply, authorization, session) => {
      if (!session) {
        return sendPage(
          reply,
          200,
          signInPage({
            app: summary(authorization),
            action: action('/sign-in', authorization),
            csrfToken: csrfToken(request, reply),
          }),
        );
      }
      if (session.secondFactorPending) {
        return sendPage(
          reply,
          200,
          secondFactorPage({
            app: summary(authorization),
            action: action('/second-factor', authorization),
            csrfToken: csrfToken(request, reply),
          }),
        );
      }
      const restaurants = await restaurantsAllowed(ctx, authorization, session);
      const { app: consentingApp } = authorization;
      return sendPage(
        reply,
        200,
        consentPage({
          app: summary(authorization),
          email: session.email,
          restaurants,
          abilities: authorization.scopes.map((scope) => scopeDescriptions[scope]),
          notices: [
            consentingApp.status === 'pending' &&
              'This app is not approved yet. As its developer, you can connect it to restaurants you own to try it.',
            onlyForTestRestaurant(consentingApp, authorization.redirectKind) &&
              'This app returns to an address for testing, so it can be connected only to its developer’s test restaurant.',
          ].filter((notice) => typeof notice === 'string'),
          consentAction: action('/consent', authorization),
          signOutAction: action('/sign-out', authorization),
          csrfToken: csrfToken(request, reply),
        }),
      );
    }),
  );

  app.post(
    '/oauth/authorize/sign-in',
    csrf,
    answer(async (request, reply, authorization, session) => {
      const email = formField(request.body, 'email') ?? '';
      const password = formField(request.body, 'password') ?? '';
      const again = (status: number, error: string) =>
        sendPage(
          reply,
          status,
          signInPage({
            app: summary(authorization),
            action: action('/sign-in', authorization),
            csrfToken: csrfToken(request, reply),
            email,
            error,
          }),
        );
      if (!email || !password) return again(400, 'Enter your e-mail address and your password.');
      const key = limitKey(request, email);
      const limit = await loginLimiter.peek(key);
      if (!limit.allowed) return again(429, tooManyAttempts(reply, limit.resetSeconds));
      // Over-long input is a wrong password, without the cost of hashing it.
      const result =
        email.length <= 200 && password.length <= 1000 ? await signIn(ctx, { email, password }) : null;
      if (!result) {
        await loginLimiter.consume(key);
        return again(400, 'The e-mail address or the password is not right.');
      }
      if (session) await endSession(ctx, session.token);
      if (!result.secondFactorPending) await loginLimiter.reset(key);
      reply.setCookie(sessionCookie, result.token, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: options.secureCookies,
        maxAge: sessionLifetimeSeconds,
      });
      return backToPage(reply, authorization);
    }),
  );

  app.post(
    '/oauth/authorize/second-factor',
    csrf,
    answer(async (request, reply, authorization, session) => {
      if (!session?.secondFactorPending) return backToPage(reply, authorization);
      const again = (status: number, error: string) =>
        sendPage(
          reply,
          status,
          secondFactorPage({
            app: summary(authorization),
            action: action('/second-factor', authorization),
            csrfToken: csrfToken(request, reply),
            error,
          }),
        );
      const key = limitKey(request, session.email);
      const limit = await loginLimiter.peek(key);
      if (!limit.allowed) return again(429, tooManyAttempts(reply, limit.resetSeconds));
      const code = (formField(request.body, 'code') ?? '').trim();
      if (!(await completeSecondFactor(ctx, session.token, code))) {
        await loginLimiter.consume(key);
        return again(400, 'That code is not right. Enter the code your authenticator app shows now.');
      }
      await loginLimiter.reset(key);
      return backToPage(reply, authorization);
    }),
  );

  app.post(
    '/oauth/authorize/sign-out',
    csrf,
    answer(async (_request, reply, authorization, session) => {
      if (session) await endSession(ctx, session.token);
      reply.clearCookie(sessionCookie, { path: '/' });
      return backToPage(reply, authorization);
    }),
  );

  app.post(
    '/oauth/authorize/consent',
    csrf,
    answer(async (request, reply, authorization, session) => {
      if (!session || session.secondFactorPending) return backToPage(reply, authorization);
      const decision = formField(request.body, 'decision');
      if (decision === 'cancel') throw new AccessDenied('The owner did not connect the app.');
      if (decision !== 'connect') return sendPage(reply, 400, errorPage('The form could not be read.'));
      const restaurantId = formField(request.body, 'restaurant');
      const allowed = await restaurantsAllowed(ctx, authorization, session);
      if (!allowed.some((restaurant) => restaurant.id === restaurantId))
        throw new AccessDenied('The signed-in account may not connect this app to that restaurant.');
      const code = await connect(ctx, authorization, restaurantId as string);
      return reply.redirect(
        redirectUrl(authorization.redirectUri, { code, state: authorization.state, iss: issuer }),
        303,
      );
    }),
  );
}

/**
 * Where the signed-in account may connect the app. Before approval, anyone but its developer is
 * refused outright (they get no list to choose from, and no redirect: see mayRedirect).
 */
async function restaurantsAllowed(ctx: Ctx, authorization: Authorization, session: Session) {
  const { app } = authorization;
  if (app.status === 'pending' && session.accountId !== app.developerId)
    throw new AccessDenied('This app is not approved yet: only its developer can connect it.');
  return restaurantsForConsent(ctx, {
    accountId: session.accountId,
    app,
    redirectKind: authorization.redirectKind,
  });
}

/** The consent and its authorization code, in one transaction: both or neither. */
function connect(ctx: Ctx, authorization: Authorization, tenantId: string): Promise<string> {
  return ctx.db.transaction().execute(async (trx) => {
    const inTransaction: Ctx = { ...ctx, db: trx, tenantId };
    const { connectionId, scopes } = await consentToApp(inTransaction, {
      tenantId,
      appId: authorization.app.id,
      scopes: authorization.scopes,
    });
    return issueAuthorizationCode(inTransaction, {
      tenantId,
      connectionId,
      appId: authorization.app.id,
      scopes,
      redirectUri: authorization.redirectUri,
      codeChallenge: authorization.codeChallenge,
    });
  });
}

function summary(authorization: Authorization): AppSummary {
  const { app } = authorization;
  return { name: app.name, logoUrl: app.logoUrl, website: app.website };
}
