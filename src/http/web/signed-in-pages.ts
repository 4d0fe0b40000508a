import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { accountCtx, type Clock, type Ctx, systemCtx } from '../../domain/shared/context.ts';
import type { Limiters } from '../../domain/shared/limits.ts';
import { formCsrf, type SessionSurface, Sessions } from '../shared/sessions.ts';
import { textProblemIn } from '../shared/validation.ts';
import { accountLinkPages } from './account-link-pages.ts';
import { languageLinks, localeOf, rememberLanguage } from './locale.ts';
import {
  type FormError,
  formField,
  messagePage,
  type PageView,
  pageHeaders,
  pageView,
  renderPage,
  sendPage,
} from './page.ts';
import { fromOwnOrigin } from './same-origin.ts';
import { missingSignInFields, tooManySignIns } from './sign-in-errors.ts';

export interface SignedInPagesOptions {
  db: Db;
  clock: Clock;
  limiters: Limiters;
  /**
   * `appUrl` (default `baseUrl`) serves the console and dashboard: when https, their cookies are
   * Secure. `webhooksAllowInsecure`: the webhook pages' addresses and sends, as the JSON API's.
   */
  config: Pick<Config, 'baseUrl'> & Partial<Pick<Config, 'appUrl' | 'webhooksAllowInsecure'>>;
}

/** What a signed-in page's handler gets besides the request. */
export interface SignedInPage {
  /** Acting as the signed-in account (the restaurant gate adds a restaurant and the role there). */
  ctx: Ctx;
  accountId: string;
  /** The surface's sessions and their sign-in limit (changes of the second factor count there). */
  sessions: Sessions;
  /**
   * The page's view, with the account and sign-out in the header; the page adds its `nav`. A page
   * with a catalog of its own (`<surface>-<area>.json`) names it: its keys come first.
   */
  view(namespace?: string): PageView;
}

export type SignedInPageHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  page: SignedInPage,
) => Promise<FastifyReply>;

/** What the handler of a page for visitors who are not signed in (the console's sign-up) gets. */
export interface SignedOutPage {
  /** The surface's sessions: whether the visitor is signed in already; signing in. */
  sessions: Sessions;
  /** The page's view, without an account in the header. */
  view(namespace?: string): PageView;
  /** The CSRF token of the page's form. */
  csrfToken(): string;
}

type PageRoute = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** `signedInPage(handler)` wraps a signed-in page; `signedInPage.signedOut(handler)` a page before sign-in. */
export interface SignedInPageWrapper {
  (handler: SignedInPageHandler): PageRoute;
  signedOut(
    handler: (request: FastifyRequest, reply: FastifyReply, page: SignedOutPage) => Promise<FastifyReply>,
  ): PageRoute;
}

const headers = pageHeaders({ formActionSelf: true, referrer: 'same-origin' });

/*
 * The pages of a signed-in web surface (the console, the dashboard) at its path (`/console`,
 * `/dashboard`), beside its JSON API and sharing its session cookie:
 * - `<path>/sign-in`, then `<path>/second-factor` if the account has one, `<path>/sign-out`;
 *   an account the surface is not for is refused like a wrong password;
 * - every form carries a CSRF token bound to the session (formCsrf) and its page's language; after
 *   a successful post the browser is sent on with 303 (post/redirect/get);
 * - pages are never cached, framed or scripted (pageHeaders).
 * Returns `signedInPage`, which wraps a page's handler: without a complete session the browser is
 * sent to sign in (or to its second factor); `signedInPage.signedOut` wraps a page open to anyone.
 */
export async function signedInPages(
  app: FastifyInstance,
  options: SignedInPagesOptions,
  /** `signUp`: the surface's sign-up page, linked from its sign-in page with the text of its catalog. */
  surface: { sessions: SessionSurface; namespace: string; signUp?: { path: string; namespace: string } },
): Promise<SignedInPageWrapper> {
  const ctx = systemCtx(options.db, options.clock);
  const secure = new URL(options.config.appUrl ?? options.config.baseUrl).protocol === 'https:';
  const sessions = new Sessions(ctx, options.limiters, surface.sessions, secure);
  const base = surface.sessions.cookie.path;
  const home = base;
  const signInPath = `${base}/sign-in`;
  const secondFactorPath = `${base}/second-factor`;

  await app.register(fastifyCookie);
  await app.register(fastifyFormbody, { bodyLimit: 16 * 1024 });
  const csrf = await formCsrf(app, {
    session: sessions.cookie,
    csrfCookie: { name: `${sessions.cookie.name.replace(/_session$/, '')}_csrf`, path: base },
    tokenOf: (request) => formField(request.body, '_csrf'),
  });
  const withCsrf = { preHandler: app.csrfProtection };

  /** The view of a page of this surface, signed in or not. */
  const viewOf = (
    request: FastifyRequest,
    extras: Pick<PageView, 'nav' | 'account'> = {},
    namespace?: string,
  ): PageView => {
    const locale = localeOf(request);
    const namespaces = namespace ? [namespace, surface.namespace] : surface.namespace;
    const view = pageView(locale, namespaces, {
      languages: languageLinks(request, locale),
      ...extras,
    });
    return { ...view, surface: { name: view.t('name'), home } };
  };

  app.addHook('preValidation', async (request, reply) => {
    const problem = textProblemIn(request.query) ?? textProblemIn(request.body);
    if (problem) {
      const view = viewOf(request);
      return sendPage(
        reply,
        400,
        messagePage(view, { title: view.t('errors.errorTitle'), message: view.t('form.badText') }),
      );
    }
  });
  // A form posted from another site is refused before anything reads it (the CSRF token too).
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'POST' || fromOwnOrigin(request)) return;
    const view = viewOf(request);
    const link = { href: home, text: view.t('form.startAgain') };
    const page = messagePage(view, {
      title: view.t('errors.errorTitle'),
      message: view.t('form.otherSite'),
      link,
    });
    return sendPage(reply, 403, page);
  });
  app.addHook('preHandler', async (request, reply) => rememberLanguage(request, reply, secure));
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(headers);
    return payload;
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const view = viewOf(request);
    const title = view.t('errors.errorTitle');
    if (error.code === 'FST_CSRF_MISSING_SECRET' || error.code === 'FST_CSRF_INVALID_TOKEN') {
      const link = { href: home, text: view.t('form.startAgain') };
      return sendPage(reply, 403, messagePage(view, { title, message: view.t('form.expired'), link }));
    }
    if (error.statusCode !== undefined && error.statusCode < 500) {
      return sendPage(reply, 400, messagePage(view, { title, message: view.t('form.unreadable') }));
    }
    request.log.error({ err: error }, 'page failed');
    return sendPage(reply, 500, messagePage(view, { title, message: view.t('form.serverError') }));
  });

  const signInPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    input: { email?: string; errors?: FormError[]; passwordSet?: boolean } = {},
  ) =>
    sendPage(
      reply,
      status,
      renderPage('web/views/sign-in-page', viewOf(request, {}, surface.signUp?.namespace), {
        action: signInPath,
        csrfToken: csrf.token(request, reply),
        signUp: surface.signUp?.path,
        forgot: `${base}/forgot-password`,
        ...input,
      }),
    );
  const secondFactorPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    errors: FormError[] = [],
  ) =>
    sendPage(
      reply,
      status,
      renderPage('web/views/second-factor-page', viewOf(request), {
        action: secondFactorPath,
        csrfToken: csrf.token(request, reply),
        errors,
      }),
    );
  /** Where a browser with this request's session belongs: home, its second factor, or sign-in. */
  const nextStep = async (request: FastifyRequest) => {
    if (await sessions.signedInAccount(request)) return home;
    const session = await sessions.current(request);
    return session?.secondFactorPending ? secondFactorPath : null;
  };

  app.get(signInPath, async (request, reply) => {
    const next = await nextStep(request);
    const { done } = request.query as { done?: string };
    if (next) return reply.redirect(next, 303);
    return signInPage(request, reply, 200, { passwordSet: done === 'password' });
  });

  app.post(signInPath, withCsrf, async (request, reply) => {
    const view = viewOf(request);
    const email = formField(request.body, 'email') ?? '';
    const password = formField(request.body, 'password') ?? '';
    const missing = missingSignInFields(view, { email, password });
    if (missing.length > 0) return signInPage(request, reply, 400, { email, errors: missing });
    const outcome = await sessions.signIn(request, reply, { email, password });
    if (outcome.kind === 'limited')
      return signInPage(request, reply, 429, {
        email,
        errors: tooManySignIns(reply, view, outcome.resetSeconds),
      });
    if (outcome.kind === 'refused')
      return signInPage(request, reply, 400, {
        email,
        errors: [{ message: view.t('signIn.wrong'), field: 'email' }],
      });
    return reply.redirect(outcome.session.secondFactorPending ? secondFactorPath : home, 303);
  });

  app.get(secondFactorPath, async (request, reply) => {
    const next = await nextStep(request);
    if (next === secondFactorPath) return secondFactorPage(request, reply, 200);
    return reply.redirect(next ?? signInPath, 303);
  });

  app.post(secondFactorPath, withCsrf, async (request, reply) => {
    const session = await sessions.current(request);
    if (!session?.secondFactorPending) return reply.redirect((await nextStep(request)) ?? signInPath, 303);
    const view = viewOf(request);
    const outcome = await sessions.secondFactor(request, session, formField(request.body, 'code') ?? '');
    if (outcome.kind === 'limited')
      return secondFactorPage(request, reply, 429, tooManySignIns(reply, view, outcome.resetSeconds));
    if (outcome.kind === 'refused')
      return secondFactorPage(request, reply, 400, [
        { message: view.t('secondFactor.wrong'), field: 'code' },
      ]);
    return reply.redirect(home, 303);
  });

  app.post(`${base}/sign-out`, withCsrf, async (request, reply) => {
    await sessions.signOut(request, reply);
    return reply.redirect(signInPath, 303);
  });

  accountLinkPages(app, {
    base,
    ctx,
    limiters: options.limiters,
    config: options.config,
    viewOf: (request) => viewOf(request, {}, 'account-links'),
    csrfToken: csrf.token,
  });

  const signedInPage: (handler: SignedInPageHandler) => PageRoute = (handler) => async (request, reply) => {
    const accountId = await sessions.signedInAccount(request);
    if (!accountId) return reply.redirect((await nextStep(request)) ?? signInPath, 303);
    const session = await sessions.current(request);
    const account = {
      email: session?.email ?? '',
      signOutAction: `${base}/sign-out`,
      csrfToken: csrf.token(request, reply),
    };
    const asAccount = accountCtx(options.db, options.clock, accountId);
    return handler(request, reply, {
      ctx: asAccount,
      accountId,
      sessions,
      view: (namespace) => viewOf(request, { account }, namespace),
    });
  };
  const signedOut: SignedInPageWrapper['signedOut'] = (handler) => async (request, reply) =>
    handler(request, reply, {
      sessions,
      view: (namespace) => viewOf(request, {}, namespace),
      csrfToken: () => csrf.token(request, reply),
    });
  return Object.assign(signedInPage, { signedOut });
}
