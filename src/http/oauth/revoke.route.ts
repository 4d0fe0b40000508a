import type { FastifyInstance } from 'fastify';
import { InvalidRequest } from '../../domain/oauth/oauth-errors.ts';
import { revokeToken } from '../../domain/oauth/revocation.ts';
import { systemCtx } from '../../domain/shared/context.ts';
import { authenticateRequestClient } from './client-auth.ts';
import { formOf } from './form-body.ts';
import type { OAuthRouteOptions } from './oauth.plugin.ts';

const tokenTypeHints = ['access_token', 'refresh_token'];

/*
 * `POST /oauth/revoke` (spec: Revocation):
 * - client authentication as at the token endpoint (→ invalid_client, 401);
 * - `token` missing, or a `token_type_hint` other than access_token and refresh_token →
 *   invalid_request; the hint is not needed otherwise (the kind is told by the token's form);
 * - then 200 with an empty body, whatever the token was.
 */
export async function revokeRoute(app: FastifyInstance, options: OAuthRouteOptions): Promise<void> {
  const { db, clock, limits } = options;
  app.post('/oauth/revoke', async (request, reply) => {
    const form = formOf(request.body);
    const client = await authenticateRequestClient(systemCtx(db, clock), limits, request, form);
    const { token, token_type_hint: hint } = form;
    if (token === undefined) throw new InvalidRequest('token is missing.');
    if (hint !== undefined && !tokenTypeHints.includes(hint))
      throw new InvalidRequest('token_type_hint must be access_token or refresh_token.');
    await db.transaction().execute((trx) => revokeToken(systemCtx(trx, clock), client, token));
    return reply.code(200).send();
  });
}
