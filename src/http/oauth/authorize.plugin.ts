import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { type Clock, systemCtx } from '../../domain/shared/context.ts';
import type { Limiters } from '../../domain/shared/limits.ts';
import { consentSessions, formCsrf, Sessions } from '../shared/sessions.ts';
import { textProblemIn } from '../shared/validation.ts';
import { authorizeRoutes } from './authorize.route.ts';
import { formField, sendPage } from './authorize-request.ts';
import { errorPage } from './pages/error.page.ts';

export interface AuthorizeOptions {
  db: Db;
  clock: Clock;
  limiters: Limiters;
  /**
   * `baseUrl` is the issuer, `iss` on every redirect; `authUrl` (default `baseUrl`) is where the
   * consent page is served: when https, its cookies are Secure.
   */
  config: Pick<Config, 'baseUrl'> & Partial<Pick<Config, 'authUrl'>>;
}

/*
 * Headers of every consent page answer:
 * - not cached (a page carries a CSRF token and the signed-in e-mail);
 * - never in a frame (clickjacking the Connect button);
 * - no script, styles only inline, images (the app's logo) only over https;
 * - no Referer: the query holds the app's state.
 * There is deliberately no form-action: browsers apply it to the redirect after a form, which
 * goes to the app's own address.
 */
const pageHeaders = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src https:; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/**
 * `{auth_url}/oauth/authorize`: the consent page where a restaurant owner signs in and connects
 * an app. Its session cookie is the whole site's (path `/`, SameSite=Lax: apps send the browser
 * here); its CSRF cookie is the page's own.
 */
export async function authorizePlugin(app: FastifyInstance, options: AuthorizeOptions): Promise<void> {
  const authUrl = options.config.authUrl ?? options.config.baseUrl;
  const secureCookies = new URL(authUrl).protocol === 'https:';
  await app.register(fastifyCookie);
  await app.register(fastifyFormbody, { bodyLimit: 16 * 1024 });
  const sessions = new Sessions(
    systemCtx(options.db, options.clock),
    options.limiters,
    consentSessions,
    secureCookies,
  );
  const csrf = await formCsrf(app, {
    session: sessions.cookie,
    csrfCookie: { name: 'servery_csrf', path: '/oauth/authorize' },
    tokenOf: (request) => formField(request.body, '_csrf'),
  });
  // The text rule (src/domain/shared/text.ts) for the request's query and form: refused with an error page.
  app.addHook('preValidation', async (request, reply) => {
    const problem = textProblemIn(request.query) ?? textProblemIn(request.body);
    if (problem) return sendPage(reply, 400, errorPage(`A parameter of this request ${problem.message}.`));
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(pageHeaders);
    return payload;
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.code === 'FST_CSRF_MISSING_SECRET' || error.code === 'FST_CSRF_INVALID_TOKEN') {
      const retry = `/oauth/authorize?${request.url.split('?').slice(1).join('?')}`;
      return sendPage(
        reply,
        403,
        errorPage('This form has expired or was not sent from this page.', {
          href: retry,
          text: 'Start again',
        }),
      );
    }
    if (error.statusCode !== undefined && error.statusCode < 500) {
      return sendPage(reply, 400, errorPage('The form could not be read.'));
    }
    request.log.error({ err: error }, 'consent page failed');
    return sendPage(reply, 500, errorPage('Something went wrong on our side. Please try again later.'));
  });
  authorizeRoutes(app, {
    ...options,
    sessions,
    csrfToken: csrf.token,
  });
}
