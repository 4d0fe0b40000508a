import type { FastifyInstance } from 'fastify';
import { redeemAuthorizationCode } from '../../domain/oauth/authorization-code-grant.ts';
import { checkClientNotSuspended } from '../../domain/oauth/client-authentication.ts';
import { refreshTokens } from '../../domain/oauth/refresh-token-grant.ts';
import { readTokenRequest } from '../../domain/oauth/token-request.ts';
import { TokenResponseSchema } from '../../domain/oauth/token-response.schema.ts';
import { systemCtx } from '../../domain/shared/context.ts';
import { authenticateRequestClient } from './client-auth.ts';
import { formOf } from './form-body.ts';
import type { OAuthRouteOptions } from './oauth.plugin.ts';

/*
 * `POST /oauth/token` (spec: Token request): client authentication, the client's limit, a
 * suspended app refused, the request's parameters, then the grant, atomic: a code exchange in one
 * transaction, a refresh in one statement or one transaction (refresh-token-grant.ts). A grant
 * either issues its tokens or refuses; only the refusals that revoke a family change anything,
 * and that change is committed before the refusal is answered.
 */
export async function tokenRoute(app: FastifyInstance, options: OAuthRouteOptions): Promise<void> {
  const { db, clock, limits } = options;
  app.post('/oauth/token', { schema: { response: { 200: TokenResponseSchema } } }, async (request) => {
    const form = formOf(request.body);
    const client = await authenticateRequestClient(systemCtx(db, clock), limits, request, form);
    await limits.countClientRequest(client.clientId);
    checkClientNotSuspended(client);
    const tokenRequest = readTokenRequest(form);
    const outcome =
      tokenRequest.grantType === 'authorization_code'
        ? await db
            .transaction()
            .execute((trx) => redeemAuthorizationCode(systemCtx(trx, clock), client, tokenRequest))
        : await refreshTokens(systemCtx(db, clock), client, tokenRequest);
    if ('refused' in outcome) throw outcome.refused;
    return outcome.issued;
  });
}
