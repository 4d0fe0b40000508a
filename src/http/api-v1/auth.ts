import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/client.ts';
import { type ApiAuth, checkAccessToken } from '../../domain/connections/access-tokens.ts';
import type { Clock } from '../../domain/shared/context.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import { requireFeature } from '../../domain/shared/plans.ts';
import type { RouteAuth } from './api-route.ts';
import { type ApiRateLimits, countConnectionRequest, refusalOfUnknownToken } from './rate-limit.ts';

/*
 * A Bearer challenge (RFC 6750 §3): `Bearer realm="servery"` and the given parameters, each a
 * quoted-string. RFC 6750 allows none of `"` and `\` (nor anything beyond printable ASCII) in
 * its values, so those are replaced rather than escaped.
 */
function bearerChallenge(parameters: Record<string, string> = {}): string {
  const quoted = (value: string) => `"${value.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "'")}"`;
  const all = { realm: 'servery', ...parameters };
  return `Bearer ${Object.entries(all)
    .map(([name, value]) => `${name}=${quoted(value)}`)
    .join(', ')}`;
}

function unauthorized(message: string, invalidToken: boolean): ApiError {
  const challenge = invalidToken
    ? bearerChallenge({ error: 'invalid_token', error_description: message })
    : bearerChallenge();
  return new ApiError('unauthorized', message, { headers: { 'www-authenticate': challenge } });
}

/** `Authorization: Bearer <token>`: the scheme in any case, one or more spaces (RFC 9110 §11.1, RFC 6750 §2.1). */
const bearerCredentials = /^bearer +([!-~]+)$/i;

/** What authentication needs besides the request. */
export interface AuthDeps {
  db: Db;
  clock: Clock;
  limits: ApiRateLimits;
}

/*
 * Authentication and authorisation of a /v1 request, in this order:
 * - a missing, malformed or unknown token → 401 unauthorized with WWW-Authenticate, or 429
 *   rate_limited once its IP address sent too many of them (see rate-limit.ts);
 * - an expired or revoked token, an ended connection or a suspended app → 401 unauthorized with
 *   WWW-Authenticate (never counted: the token is ours, the caller only has to refresh);
 * - a valid token counts against its connection's rate limit → 429 rate_limited past it;
 * - an inactive subscription → 403 account_inactive, except on routes that work regardless;
 * - none of the route's scopes on the token → 403 insufficient_scope, naming the scope;
 * - the restaurant's plan lacks the route's feature → 403 plan_required.
 */
export async function authenticate(
  { db, clock, limits }: AuthDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  route: RouteAuth,
): Promise<ApiAuth> {
  const refuseUnknown = (error: ApiError) => refusalOfUnknownToken(limits, request, error);
  const header = request.headers.authorization;
  if (!header) {
    throw await refuseUnknown(unauthorized('Send an access token: Authorization: Bearer <token>.', false));
  }
  const match = bearerCredentials.exec(header);
  if (!match?.[1]) {
    throw await refuseUnknown(unauthorized('The Authorization header must be: Bearer <token>.', true));
  }
  const check = await checkAccessToken(db, match[1], clock.now());
  if (check.status === 'unknown') {
    throw await refuseUnknown(unauthorized('The access token is not valid.', true));
  }
  if (check.status === 'invalid') throw unauthorized(check.reason, true);
  const { auth } = check;
  await countConnectionRequest(limits, auth.connectionId, reply);
  if (!auth.subscriptionActive && !route.whenInactive) {
    throw new ApiError('account_inactive', "The restaurant's subscription is inactive.");
  }
  if (route.scopes.length > 0 && !route.scopes.some((scope) => auth.scopes.includes(scope))) {
    const needed = route.scopes.join(' ');
    throw new ApiError('insufficient_scope', `This operation needs the scope ${route.scopes.join(' or ')}.`, {
      headers: { 'www-authenticate': bearerChallenge({ error: 'insufficient_scope', scope: needed }) },
    });
  }
  if (route.feature) requireFeature(auth.plan, route.feature);
  return auth;
}
