import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { createTokenLimits, type TokenLimits } from '../../domain/oauth/token-limits.ts';
import type { Clock } from '../../domain/shared/context.ts';
import type { Limiters } from '../../domain/shared/limits.ts';
import { acceptOnlyFormBodies } from './form-body.ts';
import { metadataRoute } from './metadata.route.ts';
import { oauthErrorHandler } from './oauth-error-reply.ts';
import { revokeRoute } from './revoke.route.ts';
import { tokenRoute } from './token.route.ts';

export interface OAuthOptions {
  db: Db;
  clock: Clock;
  /** `authUrl` defaults to `baseUrl` (the authorization page on the API's host). */
  config: Pick<Config, 'baseUrl'> & Partial<Pick<Config, 'authUrl'>>;
  /** Where the token endpoint's limits count (the service's limiters). */
  limiters: Limiters;
}

export interface OAuthRouteOptions extends OAuthOptions {
  limits: TokenLimits;
}

/*
 * The OAuth endpoints outside /v1: token and revocation in a scope of their own (form bodies
 * only, OAuth-shaped errors, `Cache-Control: no-store` on every answer, no CORS), and the
 * metadata document.
 */
export async function oauthPlugin(app: FastifyInstance, options: OAuthOptions): Promise<void> {
  const routeOptions: OAuthRouteOptions = { ...options, limits: createTokenLimits(options.limiters) };
  await app.register(async (tokens) => {
    acceptOnlyFormBodies(tokens);
    tokens.setErrorHandler(oauthErrorHandler);
    tokens.addHook('onSend', async (_request, reply, payload) => {
      reply.header('cache-control', 'no-store');
      return payload;
    });
    await tokens.register(tokenRoute, routeOptions);
    await tokens.register(revokeRoute, routeOptions);
  });
  await app.register(metadataRoute, routeOptions);
}
