import type { FastifyRequest } from 'fastify';
import { authenticateClient, type Client } from '../../domain/oauth/client-authentication.ts';
import { readClientCredentials } from '../../domain/oauth/client-credentials.ts';
import { InvalidClient } from '../../domain/oauth/oauth-errors.ts';
import type { TokenLimits } from '../../domain/oauth/token-limits.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import type { OAuthForm } from './form-body.ts';

/*
 * Client authentication of a token or revocation request:
 * - an address with 20 failed authentications this minute → temporarily_unavailable;
 * - credentials read and verified (client-credentials.ts, client-authentication.ts); a failure
 *   (invalid_client) counts against the address.
 */
export async function authenticateRequestClient(
  ctx: Ctx,
  limits: TokenLimits,
  request: FastifyRequest,
  form: OAuthForm,
): Promise<Client> {
  await limits.checkAddress(request.ip);
  try {
    return await authenticateClient(ctx, readClientCredentials(request.headers.authorization, form));
  } catch (error) {
    if (error instanceof InvalidClient) await limits.countFailedAuthentication(request.ip);
    throw error;
  }
}
