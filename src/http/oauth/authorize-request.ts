import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RedirectUriKind } from '../../domain/apps/redirect-uri.ts';
import { OAuthError, ServerError } from '../../domain/oauth/oauth-errors.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import type { Scope } from '../../domain/shared/scopes.ts';
import { sendPage } from '../web/page.ts';
import {
  type AuthorizeQuery,
  type AuthorizingApp,
  checkAppActive,
  checkClient,
  checkNoRepeatedParameters,
  checkPkce,
  checkRedirectUri,
  checkResponseType,
  checkScope,
  checkState,
  mayRedirect,
} from './authorize-checks.ts';
import { NoRedirect } from './authorize-errors.ts';
import { errorPage } from './pages/error.page.ts';
import { consentView } from './pages/view.ts';

/** A valid authorization request. */
export interface Authorization {
  app: AuthorizingApp;
  redirectUri: string;
  redirectKind: RedirectUriKind;
  state: string;
  scopes: Scope[];
  codeChallenge: string;
  /** The request's query string, carried by every form and redirect of the consent page. */
  rawQuery: string;
}

/**
 * Runs the checks of the authorization request, then `step` (a page or a form of the consent
 * page); answers every error of either as the spec says: an error page when the request may not
 * be answered at its redirect URI, otherwise a redirect with `error`, `error_description`,
 * `state` and `iss`. A failure of our own is `server_error`, on the redirect when allowed.
 */
export async function answerAuthorization(
  ctx: Ctx,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { issuer: string; signedInAccountId: string | null },
  step: (authorization: Authorization) => Promise<FastifyReply>,
): Promise<FastifyReply> {
  const query = request.query as AuthorizeQuery;
  let target: { redirectUri: string; allowed: boolean } | null = null;
  try {
    checkNoRepeatedParameters(query);
    const app = await checkClient(ctx, query);
    const { redirectUri, redirectKind } = checkRedirectUri(app, query);
    checkAppActive(app);
    target = { redirectUri, allowed: mayRedirect(app, input.signedInAccountId) };
    checkResponseType(query);
    const state = checkState(query);
    const codeChallenge = checkPkce(query);
    const scopes = checkScope(app, query);
    const rawQuery = request.url.split('?').slice(1).join('?');
    return await step({ app, redirectUri, redirectKind, state, scopes, codeChallenge, rawQuery });
  } catch (error) {
    // The descriptions are written for the app's makers, in English.
    const page = (message: string) => errorPage(consentView(request), message, { messageLang: 'en' });
    if (error instanceof NoRedirect) return sendPage(reply, 400, page(error.message));
    const oauthError = error instanceof OAuthError ? error : new ServerError();
    if (!(error instanceof OAuthError)) request.log.error({ err: error }, 'authorization request failed');
    if (!target?.allowed) return sendPage(reply, oauthError.status, page(oauthError.message));
    const state = query.state;
    return reply.redirect(
      redirectUrl(target.redirectUri, {
        error: oauthError.code,
        error_description: oauthError.message,
        ...(typeof state === 'string' && state ? { state } : {}),
        iss: input.issuer,
      }),
      303,
    );
  }
}

/**
 * The redirect URI with the answer's parameters added to its query. The URI is kept as the app
 * sent it (no re-serialisation of its own query).
 */
export function redirectUrl(redirectUri: string, params: Record<string, string>): string {
  const separator = redirectUri.includes('?') ? '&' : '?';
  return `${redirectUri}${separator}${new URLSearchParams(params).toString()}`;
}
