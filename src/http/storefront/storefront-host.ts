import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';

type Hosts = Pick<Config, 'baseUrl'> & Partial<Pick<Config, 'authUrl' | 'appUrl' | 'storefrontDomain'>>;

/** A restaurant's slug (restaurants.service.ts): lowercase letters, digits, inner hyphens. */
const slugPattern = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

/*
 * Storefronts by Host (decisions.md, Hosts): a request whose Host is `<slug>.{storefront_domain}`
 * (STOREFRONT_DOMAIN, by default BASE_URL's host) is served as `/s/<slug>/…`, the same pages and
 * guest API, so `https://pizza-roma.example.com/cart` is `/s/pizza-roma/cart`. Only the pages'
 * static files (`/assets/…`) and the menu's pictures (`/images/…`) stay where they are. The service's own hosts (BASE_URL, AUTH_URL,
 * APP_URL) are never storefronts, even when they look like `<name>.{storefront_domain}`.
 * Fastify's `rewriteUrl` runs before routing: this returns the URL to route, given the URL after
 * the other rewrites.
 */
export function rewriteStorefrontHost(config: Hosts): (req: IncomingMessage, url: string) => string {
  const domain = (config.storefrontDomain ?? new URL(config.baseUrl).host).toLowerCase();
  const ownHosts = new Set(
    [config.baseUrl, config.authUrl, config.appUrl].flatMap((url) => (url ? [new URL(url).host] : [])),
  );
  return (req, url) => {
    const host = req.headers.host?.toLowerCase();
    if (!host || ownHosts.has(host) || !host.endsWith(`.${domain}`)) return url;
    const slug = host.slice(0, -(domain.length + 1));
    if (!slugPattern.test(slug) || url.startsWith('/assets/') || url.startsWith('/images/')) return url;
    return `/s/${slug}${url.startsWith('/?') || url === '/' ? url.slice(1) : url}`;
  };
}

/**
 * Whether a request came by a restaurant's own host: rewriteStorefrontHost rewrote its URL to
 * `/s/<slug>/…` (the one rewrite of page addresses; earlier-addresses.ts rewrites API ones only).
 */
export function byRestaurantHost(request: FastifyRequest): boolean {
  return request.originalUrl !== request.url;
}
