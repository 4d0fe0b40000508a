import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { Config } from '../../../config.ts';
import type { App } from '../../../domain/apps/apps.service.ts';
import { appsOfDeveloper } from '../../../domain/apps/apps-of-developer.ts';
import { classifyRedirectUri } from '../../../domain/apps/redirect-uri.ts';
import { addRedirectUri } from '../../../domain/apps/try-it-redirect.ts';
import { onlyForTestRestaurant } from '../../../domain/connections/consent-rules.ts';
import type { TokenResponse } from '../../../domain/oauth/token-response.schema.ts';
import { testRestaurantsOf } from '../../../domain/restaurants/restaurants-of-account.ts';
import { ApiError, InputError } from '../../../domain/shared/errors.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { redirectUrl } from '../../oauth/authorize-request.ts';
import {
  type FormError,
  formField,
  messagePage,
  type PageView,
  renderPage,
  sendPage,
} from '../../web/page.ts';
import type { SignedInPage, SignedInPageHandler, SignedInPagesOptions } from '../../web/signed-in-pages.ts';
import { consoleNavigation } from './console-navigation.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

export interface TryItOptions extends SignedInPagesOptions {
  /** `authUrl` (default `baseUrl`): where the consent page is, and so where the flow starts. */
  config: SignedInPagesOptions['config'] & Partial<Pick<Config, 'authUrl'>>;
}

/**
 * The flow under way in this browser: which app, the state and PKCE verifier the console made, and
 * once the consent page has answered, the code (a confidential app's waits there for its secret).
 * It lives in an httpOnly cookie sent to the try-it pages only, for as long as a code lives, and is
 * never written into a page; the tokens are kept nowhere.
 */
interface Flow {
  clientId: string;
  verifier: string;
  state?: string;
  code?: string;
}

const base = '/console/try-it';
const flowCookie = 'servery_try_it';
const flowSeconds = 10 * 60;

/** A problem that ends the flow, shown on the try-it page: `detail` is the OAuth error as sent, in English. */
interface Problem {
  key: 'noFlow' | 'stateMismatch' | 'wrongIssuer' | 'noCode' | 'denied' | 'authorizeError' | 'exchangeFailed';
  detail?: string;
}

/*
 * The console's "Try it" at `/console/try-it`: the developer picks one of their apps and the
 * scopes, and goes through the real OAuth flow with their own test restaurant, as an app would:
 * - the callback `<app host>/console/try-it/callback` must be one of the app's redirect URIs (the
 *   authorization server returns nowhere else); the page offers to add it (addRedirectUri);
 * - start: a fresh state and PKCE verifier (S256), kept in the flow cookie; the browser goes to
 *   `/oauth/authorize`, where the developer signs in as the restaurant's owner and consents;
 * - callback: `state` must be the flow's and `iss` our issuer, else nothing is used; an error
 *   (Cancel: access_denied) is shown; a code is exchanged at the token endpoint, a confidential
 *   app's once the developer has pasted its client secret (never kept, never logged);
 * - the tokens are shown once, with commands to call the API with them.
 * The authorization endpoint takes no restaurant hint: the consent page offers the restaurants the
 * developer owns (a confidential app returning to a loopback callback: the test restaurant only).
 */
export function tryItPages(app: FastifyInstance, signedInPage: Wrap, options: TryItOptions): void {
  const { baseUrl } = options.config;
  const consoleUrl = options.config.appUrl ?? baseUrl;
  const authUrl = options.config.authUrl ?? baseUrl;
  const callback = `${consoleUrl.replace(/\/$/, '')}${base}/callback`;
  const secure = new URL(consoleUrl).protocol === 'https:';

  /*
   * The start form's answer sends the browser on to the consent page. Browsers hold a form's
   * redirect to the page's `form-action 'self'`: where the consent page has a host of its own
   * (AUTH_URL), the try-it pages allow that one too.
   */
  const authOrigin = new URL(authUrl).origin;
  const pageOptions: RouteShorthandOptions =
    authOrigin === new URL(consoleUrl).origin
      ? {}
      : {
          onSend: async (_request, reply, payload) => {
            const policy = String(reply.getHeader('content-security-policy') ?? '');
            reply.header(
              'content-security-policy',
              policy.replace("form-action 'self'", `form-action 'self' ${authOrigin}`),
            );
            return payload;
          },
        };
  const postOptions: RouteShorthandOptions = { ...pageOptions, preHandler: app.csrfProtection };

  const setFlow = (reply: FastifyReply, flow: Flow) =>
    reply.setCookie(flowCookie, Buffer.from(JSON.stringify(flow)).toString('base64url'), {
      path: base,
      httpOnly: true,
      sameSite: 'lax',
      secure,
      maxAge: flowSeconds,
    });
  const endFlow = (reply: FastifyReply) =>
    reply.clearCookie(flowCookie, { path: base, httpOnly: true, sameSite: 'lax', secure });

  const viewOf = (page: SignedInPage): PageView => {
    const view = page.view('console-try-it');
    return { ...view, nav: consoleNavigation(view, 'try-it') };
  };
  const notFound = (reply: FastifyReply, view: PageView) =>
    sendPage(
      reply,
      404,
      messagePage(view, { title: view.t('errors.notFoundTitle'), message: view.t('errors.notFound') }),
    );

  /** The developer's app of that client id, or null (another developer's app is none of theirs). */
  const developerAppOf = async (page: SignedInPage, clientId: string | undefined): Promise<App | null> =>
    clientId === undefined
      ? null
      : ((await appsOfDeveloper(page.ctx, page.accountId)).find((found) => found.clientId === clientId) ??
        null);

  /** The try-it page: the apps, the chosen one (`clientId`; alone, the only one) with its form. */
  const showTryIt = async (
    reply: FastifyReply,
    page: SignedInPage,
    input: {
      clientId?: string;
      status?: number;
      done?: string | null;
      problem?: Problem;
      errors?: FormError[];
      checked?: string[];
    },
  ) => {
    const view = viewOf(page);
    const [apps, testRestaurants] = await Promise.all([
      appsOfDeveloper(page.ctx, page.accountId),
      testRestaurantsOf(page.ctx, page.accountId),
    ]);
    const selected =
      input.clientId === undefined
        ? apps.length === 1
          ? apps[0]
          : undefined
        : apps.find((found) => found.clientId === input.clientId);
    if (input.clientId !== undefined && !selected) return notFound(reply, view);
    const kind = classifyRedirectUri(callback);
    return sendPage(
      reply,
      input.status ?? 200,
      renderPage('console/pages/try-it', view, {
        apps,
        testRestaurants,
        selected,
        callback: {
          uri: callback,
          allowed: 'kind' in kind,
          registered: selected?.redirectUris.includes(callback) ?? false,
          testOnly: selected !== undefined && 'kind' in kind && onlyForTestRestaurant(selected, kind.kind),
        },
        checked: input.checked ?? selected?.scopes ?? [],
        done: input.done ?? null,
        problem: input.problem
          ? { message: view.t(`tryIt.problems.${input.problem.key}`), detail: input.problem.detail }
          : null,
        errors: input.errors ?? [],
      }),
    );
  };

  /** A problem that ends the flow: its cookie goes, the page says what happened. */
  const failed = (reply: FastifyReply, page: SignedInPage, problem: Problem, clientId?: string) => {
    endFlow(reply);
    return showTryIt(reply, page, { clientId, problem, status: 400 });
  };

  app.get(
    base,
    pageOptions,
    signedInPage(async (request, reply, page) => {
      const { app: clientId, done } = request.query as { app?: string; done?: string };
      return showTryIt(reply, page, { clientId, done: done === 'redirectAdded' ? done : null });
    }),
  );

  app.post(
    `${base}/redirect-uri`,
    postOptions,
    signedInPage(async (request, reply, page) => {
      const clientId = formField(request.body, 'app') ?? '';
      try {
        await writeTransaction(page.ctx.db, (trx) =>
          addRedirectUri({ ...page.ctx, db: trx }, { clientId, developerId: page.accountId }, callback),
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return notFound(reply, viewOf(page));
        if (!(error instanceof InputError)) throw error;
        const message = viewOf(page).t(
          error.param === 'redirect_uris'
            ? 'tryIt.errors.tooManyRedirectUris'
            : 'tryIt.errors.badRedirectUri',
        );
        return showTryIt(reply, page, { clientId, status: 400, errors: [{ message }] });
      }
      return reply.redirect(`${base}?app=${encodeURIComponent(clientId)}&done=redirectAdded`, 303);
    }),
  );

  app.post(
    `${base}/start`,
    postOptions,
    signedInPage(async (request, reply, page) => {
      const tried = await developerAppOf(page, formField(request.body, 'app'));
      if (!tried) return notFound(reply, viewOf(page));
      const again = (errors: FormError[] = [], checked?: string[]) =>
        showTryIt(reply, page, { clientId: tried.clientId, status: 400, errors, checked });
      // The page offers no start for these; a form sent anyway changes nothing.
      if (tried.status === 'rejected' || tried.status === 'suspended') return again();
      if (!tried.redirectUris.includes(callback)) return again();
      const sent = sentList(request.body, 'scope');
      const scopes = tried.scopes.filter((scope) => sent.includes(scope));
      if (scopes.length === 0 || scopes.length !== sent.length)
        return again([{ field: 'scope', message: viewOf(page).t('tryIt.errors.scope') }], scopes);

      const state = randomBytes(32).toString('base64url');
      const verifier = randomBytes(48).toString('base64url');
      setFlow(reply, { clientId: tried.clientId, state, verifier });
      const location = redirectUrl(`${authUrl.replace(/\/$/, '')}/oauth/authorize`, {
        response_type: 'code',
        client_id: tried.clientId,
        redirect_uri: callback,
        scope: scopes.join(' '),
        state,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        ui_locales: viewOf(page).locale,
      });
      return reply.redirect(location, 303);
    }),
  );

  app.get(
    `${base}/callback`,
    pageOptions,
    signedInPage(async (request, reply, page) => {
      const flow = flowOf(request);
      const tried = await developerAppOf(page, flow?.clientId);
      if (!flow?.state || !tried) return failed(reply, page, { key: 'noFlow' });
      const answer = request.query as Record<string, unknown>;
      // Before anything of the answer is used: it must come back to the flow this browser started.
      if (answer.state !== flow.state) return failed(reply, page, { key: 'stateMismatch' }, tried.clientId);
      if (answer.iss !== baseUrl) return failed(reply, page, { key: 'wrongIssuer' }, tried.clientId);
      if (typeof answer.error === 'string') {
        const detail = [answer.error, answer.error_description].filter((part) => typeof part === 'string');
        const key = answer.error === 'access_denied' ? 'denied' : 'authorizeError';
        return failed(reply, page, { key, detail: detail.join(': ') }, tried.clientId);
      }
      if (typeof answer.code !== 'string') return failed(reply, page, { key: 'noCode' }, tried.clientId);
      if (tried.type === 'confidential') {
        // The state is spent: the same answer cannot come back; the code waits for the secret.
        setFlow(reply, { clientId: tried.clientId, verifier: flow.verifier, code: answer.code });
        return reply.redirect(`${base}/secret`, 303);
      }
      return exchanged(request, reply, page, tried, {
        code: answer.code,
        verifier: flow.verifier,
        secret: null,
      });
    }),
  );

  /** The flow waiting for a confidential app's client secret, or null. */
  const waitingForSecret = async (request: FastifyRequest, page: SignedInPage) => {
    const flow = flowOf(request);
    const tried = await developerAppOf(page, flow?.clientId);
    return flow?.code && tried?.type === 'confidential'
      ? { flow: { ...flow, code: flow.code }, tried }
      : null;
  };
  const secretPage = (
    reply: FastifyReply,
    page: SignedInPage,
    tried: App,
    status = 200,
    errors: FormError[] = [],
  ) =>
    sendPage(reply, status, renderPage('console/pages/try-it-secret', viewOf(page), { app: tried, errors }));

  app.get(
    `${base}/secret`,
    pageOptions,
    signedInPage(async (request, reply, page) => {
      const waiting = await waitingForSecret(request, page);
      if (!waiting) return failed(reply, page, { key: 'noFlow' });
      return secretPage(reply, page, waiting.tried);
    }),
  );

  app.post(
    `${base}/secret`,
    postOptions,
    signedInPage(async (request, reply, page) => {
      const waiting = await waitingForSecret(request, page);
      if (!waiting) return failed(reply, page, { key: 'noFlow' });
      const secret = formField(request.body, 'client_secret')?.trim() ?? '';
      if (secret === '')
        return secretPage(reply, page, waiting.tried, 400, [
          { field: 'client_secret', message: viewOf(page).t('tryIt.secret.missing') },
        ]);
      return exchanged(request, reply, page, waiting.tried, {
        code: waiting.flow.code,
        verifier: waiting.flow.verifier,
        secret,
      });
    }),
  );

  /*
   * The code is exchanged at our own token endpoint through Fastify's in-process request (inject),
   * not by calling the grant: the exchange passes every check an app's does (the form's rules,
   * client authentication against the stored hash — a wrong secret counting against the
   * developer's address —, the client's limit, a suspended app refused, redirect URI, PKCE, the
   * code's single use), and learns only what an app learns.
   * A wrong secret leaves the code unused (the client is authenticated before the grant): the
   * secret form is shown again with the refusal beside the field. Anything else ends the flow.
   */
  async function exchanged(
    request: FastifyRequest,
    reply: FastifyReply,
    page: SignedInPage,
    tried: App,
    input: { code: string; verifier: string; secret: string | null },
  ): Promise<FastifyReply> {
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      host: new URL(baseUrl).host,
    };
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: callback,
      code_verifier: input.verifier,
    });
    if (input.secret === null) form.set('client_id', tried.clientId);
    else
      headers.authorization = `Basic ${Buffer.from(
        `${encodeURIComponent(tried.clientId)}:${encodeURIComponent(input.secret)}`,
      ).toString('base64')}`;
    const response = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers,
      payload: form.toString(),
      remoteAddress: request.ip,
    });
    const body = response.json() as TokenResponse | { error: string; error_description?: string };
    if ('error' in body) {
      if (body.error === 'invalid_client' && input.secret !== null)
        return secretPage(reply, page, tried, 400, [
          { field: 'client_secret', message: viewOf(page).t('tryIt.secret.wrong') },
        ]);
      const detail = [body.error, body.error_description].filter(Boolean).join(': ');
      return failed(reply, page, { key: 'exchangeFailed', detail }, tried.clientId);
    }
    endFlow(reply);
    const api = baseUrl.replace(/\/$/, '');
    const refreshAuth =
      tried.type === 'confidential'
        ? `-u "${tried.clientId}:$CLIENT_SECRET"`
        : `-d client_id=${tried.clientId}`;
    return sendPage(
      reply,
      200,
      renderPage('console/pages/try-it-tokens', viewOf(page), {
        app: tried,
        tokens: body,
        scopes: body.scope.split(' ').filter(Boolean),
        commands: {
          store: `curl -H "Authorization: Bearer ${body.access_token}" ${api}/v1/store`,
          refresh: `curl ${refreshAuth} -d grant_type=refresh_token -d refresh_token=${body.refresh_token} ${api}/oauth/token`,
        },
      }),
    );
  }
}

/** The flow cookie's flow; anything else (none, altered) is none. */
function flowOf(request: FastifyRequest): Flow | null {
  const value = request.cookies[flowCookie];
  if (!value) return null;
  try {
    const flow = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<Flow>;
    const text = (field: unknown) => field === undefined || typeof field === 'string';
    if (typeof flow.clientId !== 'string' || typeof flow.verifier !== 'string') return null;
    if (!text(flow.state) || !text(flow.code)) return null;
    return flow as Flow;
  } catch {
    return null;
  }
}

/** Every value of a repeated field of a form (checked boxes). */
function sentList(body: unknown, name: string): string[] {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
