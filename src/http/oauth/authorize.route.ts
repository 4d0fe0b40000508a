import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Session } from '../../domain/accounts/sessions.ts';
import { consentToApp } from '../../domain/connections/connections.service.ts';
import { onlyForTestRestaurant, restaurantsForConsent } from '../../domain/connections/consent-rules.ts';
import { issueAuthorizationCode } from '../../domain/oauth/authorization-codes.ts';
import { AccessDenied } from '../../domain/oauth/oauth-errors.ts';
import { type Ctx, systemCtx } from '../../domain/shared/context.ts';
import type { BrowserSession, Sessions } from '../shared/sessions.ts';
import { type FormError, formField, type PageView, sendPage } from '../web/page.ts';
import { missingSignInFields, tooManySignIns } from '../web/sign-in-errors.ts';
import type { AuthorizeOptions } from './authorize.plugin.ts';
import { type Authorization, answerAuthorization, redirectUrl } from './authorize-request.ts';
import { consentPage } from './pages/consent.page.ts';
import { errorPage } from './pages/error.page.ts';
import { secondFactorPage } from './pages/second-factor.page.ts';
import { signInPage } from './pages/sign-in.page.ts';
import { type AppSummary, consentView } from './pages/view.ts';

type Step = (
  request: FastifyRequest,
  reply: FastifyReply,
  authorization: Authorization,
  session: BrowserSession | null,
  view: PageView,
) => Promise<FastifyReply>;

/*
 * GET shows the step the browser is at: sign in, the second factor, or the consent. Each form
 * posts to its own address with the authorization request's query, checks its CSRF token, and
 * after a sign-in returns to GET (post/redirect/get). Every request runs the authorization
 * request's checks again.
 */
export function authorizeRoutes(
  app: FastifyInstance,
  options: AuthorizeOptions & {
    sessions: Sessions;
    csrfToken: (request: FastifyRequest, reply: FastifyReply) => string;
  },
): void {
  const { db, clock, sessions, csrfToken } = options;
  const issuer = options.config.baseUrl;
  const ctx = systemCtx(db, clock);
  const csrf = { preHandler: app.csrfProtection };

  const answer =
    (step: Step) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const session = await sessions.current(request);
      const signedInAccountId = session && !session.secondFactorPending ? session.accountId : null;
      return answerAuthorization(ctx, request, reply, { issuer, signedInAccountId }, (authorization) =>
        step(request, reply, authorization, session, consentView(request)),
      );
    };
  const backToPage = (reply: FastifyReply, authorization: Authorization) =>
    reply.redirect(`/oauth/authorize?${authorization.rawQuery}`, 303);
  const action = (path: string, authorization: Authorization) =>
    `/oauth/authorize${path}?${authorization.rawQuery}`;

  app.get(
    '/oauth/authorize',
    answer(async (request, reply, authorization, session, view) => {
      if (!session) {
        return sendPage(
          reply,
          200,
          signInPage(view, {
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
          secondFactorPage(view, {
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
        consentPage(view, {
          app: summary(authorization),
          email: session.email,
          restaurants,
          // The catalog's keys are the scopes themselves, colon and all.
          abilities: authorization.scopes.map((scope) => view.t(`scopes.${scope}`, { nsSeparator: false })),
          notices: [
            consentingApp.status === 'pending' && view.t('connect.pendingApp'),
            onlyForTestRestaurant(consentingApp, authorization.redirectKind) &&
              view.t('connect.testRedirect'),
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
    answer(async (request, reply, authorization, _session, view) => {
      const email = formField(request.body, 'email') ?? '';
      const password = formField(request.body, 'password') ?? '';
      const again = (status: number, errors: FormError[]) =>
        sendPage(
          reply,
          status,
          signInPage(view, {
            app: summary(authorization),
            action: action('/sign-in', authorization),
            csrfToken: csrfToken(request, reply),
            email,
            errors,
          }),
        );
      const missing = missingSignInFields(view, { email, password });
      if (missing.length > 0) return again(400, missing);
      const outcome = await sessions.signIn(request, reply, { email, password });
      if (outcome.kind === 'limited') return again(429, tooManySignIns(reply, view, outcome.resetSeconds));
      if (outcome.kind === 'refused')
        return again(400, [{ message: view.t('signIn.wrong'), field: 'email' }]);
      return backToPage(reply, authorization);
    }),
  );

  app.post(
    '/oauth/authorize/second-factor',
    csrf,
    answer(async (request, reply, authorization, session, view) => {
      if (!session?.secondFactorPending) return backToPage(reply, authorization);
      const again = (status: number, errors: FormError[]) =>
        sendPage(
          reply,
          status,
          secondFactorPage(view, {
            app: summary(authorization),
            action: action('/second-factor', authorization),
            csrfToken: csrfToken(request, reply),
            errors,
          }),
        );
      const outcome = await sessions.secondFactor(request, session, formField(request.body, 'code') ?? '');
      if (outcome.kind === 'limited') return again(429, tooManySignIns(reply, view, outcome.resetSeconds));
      if (outcome.kind === 'refused')
        return again(400, [{ message: view.t('secondFactor.wrong'), field: 'code' }]);
      return backToPage(reply, authorization);
    }),
  );

  app.post(
    '/oauth/authorize/sign-out',
    csrf,
    answer(async (request, reply, authorization) => {
      await sessions.signOut(request, reply);
      return backToPage(reply, authorization);
    }),
  );

  app.post(
    '/oauth/authorize/consent',
    csrf,
    answer(async (request, reply, authorization, session, view) => {
      if (!session || session.secondFactorPending) return backToPage(reply, authorization);
      const decision = formField(request.body, 'decision');
      if (decision === 'cancel') throw new AccessDenied('The owner did not connect the app.');
      if (decision !== 'connect') return sendPage(reply, 400, errorPage(view, view.t('form.unreadable')));
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
