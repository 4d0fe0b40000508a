import { characterCount } from '../shared/text.ts';

/*
 * What a registered redirect URI must be (spec: Authentication, Redirect URIs):
 * - at most 300 characters, an absolute URI without a fragment;
 * - `https` without credentials, or
 * - loopback `http://127.0.0.1:<port>/…`, `http://localhost:<port>/…`, `http://[::1]:<port>/…`, or
 * - a custom scheme containing a dot (`com.example.pos:/callback`).
 * Loopback and custom schemes are for public apps, and for confidential apps only with the
 * developer's test restaurant (checked at consent).
 */
export type RedirectUriKind = 'https' | 'loopback' | 'custom';

/** Which rule a refused redirect URI breaks (the console names it in the developer's language). */
export type RedirectUriRule =
  | 'tooLong'
  | 'notAbsolute'
  | 'fragment'
  | 'credentials'
  | 'noHost'
  | 'httpNotLoopback'
  | 'scheme';

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The kind of a redirect URI, or the reason it cannot be registered. */
export function classifyRedirectUri(
  uri: string,
): { kind: RedirectUriKind } | { problem: string; rule: RedirectUriRule } {
  if (characterCount(uri) > 300) return { problem: 'is longer than 300 characters', rule: 'tooLong' };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { problem: 'is not an absolute URI', rule: 'notAbsolute' };
  }
  if (uri.includes('#')) return { problem: 'must not have a fragment', rule: 'fragment' };
  if (url.username || url.password) return { problem: 'must not carry credentials', rule: 'credentials' };
  if (url.protocol === 'https:')
    return url.hostname ? { kind: 'https' } : { problem: 'has no host', rule: 'noHost' };
  if (url.protocol === 'http:') {
    return loopbackHosts.has(url.hostname)
      ? { kind: 'loopback' }
      : { problem: 'must use https (http only for loopback)', rule: 'httpNotLoopback' };
  }
  return url.protocol.slice(0, -1).includes('.')
    ? { kind: 'custom' }
    : { problem: 'must be https, loopback http, or a custom scheme containing a dot', rule: 'scheme' };
}
