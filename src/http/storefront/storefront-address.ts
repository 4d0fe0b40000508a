import type { Config } from '../../config.ts';

/** What a storefront's address is made of. */
export type StorefrontHosts = Pick<Config, 'baseUrl'> & Partial<Pick<Config, 'storefrontDomain'>>;

/*
 * A restaurant's storefront address as guests are given it (a table's printed QR code): its own
 * host `<slug>.{storefront_domain}` when STOREFRONT_DOMAIN names a domain apart from BASE_URL's
 * host, else `{base_url}/s/<slug>` (by default the storefront domain is BASE_URL's host, whose
 * subdomains need not resolve). Both are served (storefront-host.ts); the scheme is BASE_URL's.
 */
export function storefrontAddress(config: StorefrontHosts, slug: string): string {
  const base = new URL(config.baseUrl);
  const domain = config.storefrontDomain?.toLowerCase();
  if (domain && domain !== base.host) return `${base.protocol}//${slug}.${domain}`;
  return `${config.baseUrl.replace(/\/$/, '')}/s/${slug}`;
}

/** The address in a table's QR code: the storefront's table link `/t/{qr_key}` (docs/storefront.md). */
export function tableAddress(config: StorefrontHosts, slug: string, qrKey: string): string {
  return `${storefrontAddress(config, slug)}/t/${qrKey}`;
}
