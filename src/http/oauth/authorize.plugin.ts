import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { type Clock, systemCtx } from '../../domain/shared/context.ts';
import type { Limiters } from '../../domain/shared/limits.ts';
import { consentSessions, formCsrf, Sessions } from '../shared/sessions.ts';
import { textProblemIn } from '../shared/validation.ts';
import { formField, pageHeaders, sendPage } from '../web/page.ts';
import { authorizeRoutes } from './authorize.route.ts';
import { errorPage } from './pages/error.page.ts';
import { consentView } from './pages/view.ts';

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
 * Headers of every consent page answer (see pageHeaders): no form-action, as the redirect after
 * the consent form goes to the app's own address; no Referer at all, as the query holds the app's
 * state.
 */
const headers = pageHeaders({ formActionSelf: false, referrer: 'no-referrer' });

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
    if (problem) {
      const view = consentView(request);
      return sendPage(reply, 400, errorPage(view, view.t('form.badText')));
    }
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(headers);
    return payload;
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const view = consentView(request);
    if (error.code === 'FST_CSRF_MISSING_SECRET' || error.code === 'FST_CSRF_INVALID_TOKEN') {
      const retry = `/oauth/authorize?${request.url.split('?').slice(1).join('?')}`;
      return sendPage(
        reply,
        403,
        errorPage(view, view.t('form.expired'), { retry: { href: retry, text: view.t('form.startAgain') } }),
      );
    }
    if (error.statusCode !== undefined && error.statusCode < 500) {
      return sendPage(reply, 400, errorPage(view, view.t('form.unreadable')));
    }
    request.log.error({ err: error }, 'consent page failed');
    return sendPage(reply, 500, errorPage(view, view.t('form.serverError')));
  });
  authorizeRoutes(app, {
    ...options,
    sessions,
    csrfToken: csrf.token,
  });
}
