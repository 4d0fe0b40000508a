import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';

type Hosts = Pick<Config, 'baseUrl'> & Partial<Pick<Config, 'appUrl'>>;

/*
 * The app host's earlier address forms (spec change history 2026-10-05: the API left the app host
 * for its own). They exist only where APP_URL's host differs from BASE_URL's; requests to them are
 * told apart by a Host header equal to APP_URL's host[:port] (lowercase, without a default port).
 */
function separateAppHost(config: Hosts): string | null {
  const appHost = new URL(config.appUrl ?? config.baseUrl).host;
  return appHost === new URL(config.baseUrl).host ? null : appHost;
}

/**
 * Fastify's `rewriteUrl` (runs before routing): `{app}/api/v1/...` becomes `/v1/...`, the very same
 * operation, so authentication, rate limits, idempotency (keyed on the `/v1` path) and errors are
 * those of /v1. On the API host, and with one host, `/api/v1/...` stays unknown (404).
 */
export function rewriteEarlierApiAddress(config: Hosts): ((req: IncomingMessage) => string) | undefined {
  const appHost = separateAppHost(config);
  if (!appHost) return undefined;
  return (req) => {
    const url = req.url ?? '/';
    return req.headers.host === appHost && url.startsWith('/api/v1/') ? url.slice('/api'.length) : url;
  };
}

/**
 * `{app}/.well-known/oauth-authorization-server` → 308 to the API host's metadata: permanent, so
 * clients and caches move to the new address; 308 rather than 301 because it keeps the method (for
 * GET the two agree). Browsers may read the metadata, and a cross-origin fetch follows a redirect
 * only if the redirect itself allows the origin, hence `Access-Control-Allow-Origin: *` here too.
 */
export async function earlierMetadataAddress(
  app: FastifyInstance,
  options: { config: Hosts },
): Promise<void> {
  const appHost = separateAppHost(options.config);
  if (!appHost) return;
  const metadata = `${options.config.baseUrl}/.well-known/oauth-authorization-server`;
  app.get('/.well-known/oauth-authorization-server', { constraints: { host: appHost } }, (_request, reply) =>
    reply.header('access-control-allow-origin', '*').redirect(metadata, 308),
  );
}
