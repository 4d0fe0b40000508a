import type { FastifyInstance } from 'fastify';
import { languages } from '../../domain/restaurants/restaurants.service.ts';
import { scopes } from '../../domain/shared/scopes.ts';
import type { OAuthRouteOptions } from './oauth.plugin.ts';

const clientAuthMethods = ['client_secret_basic', 'client_secret_post', 'none'];

/*
 * `GET /.well-known/oauth-authorization-server` (spec: Metadata; RFC 8414): every field the spec
 * lists, `issuer` being the API's base URL. Browsers may read it (Access-Control-Allow-Origin: *);
 * no other OAuth endpoint allows that.
 */
export async function metadataRoute(app: FastifyInstance, options: OAuthRouteOptions): Promise<void> {
  const { baseUrl } = options.config;
  const authUrl = options.config.authUrl ?? baseUrl;
  const metadata = {
    issuer: baseUrl,
    authorization_endpoint: `${authUrl}/oauth/authorize`,
    token_endpoint: `${baseUrl}/oauth/token`,
    revocation_endpoint: `${baseUrl}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: clientAuthMethods,
    revocation_endpoint_auth_methods_supported: clientAuthMethods,
    scopes_supported: scopes,
    authorization_response_iss_parameter_supported: true,
    ui_locales_supported: languages,
    service_documentation: `${baseUrl}/v1/openapi.json`,
  };
  app.get('/.well-known/oauth-authorization-server', async (_request, reply) =>
    reply.header('access-control-allow-origin', '*').send(metadata),
  );
}
