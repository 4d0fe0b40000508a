import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { refusedRange } from '../../adapters/outbound-http.ts';
import { ApiError } from '../shared/errors.ts';
import { characterCount } from '../shared/text.ts';

export const maxWebhookUrlLength = 500;

/**
 * Whether receivers may be insecure (the WEBHOOKS_ALLOW_INSECURE setting, for development and
 * tests): then `http` and loopback addresses (127.0.0.0/8, ::1, `localhost`) are accepted too.
 * It never applies to live restaurants:
 * - a restaurant's own webhook gets it only when the restaurant is a test restaurant;
 * - the app's webhook may be set to such an address, but the delivery worker sends to an
 *   insecure address (http, or one resolving to loopback) only events of test restaurants.
 * Every other private or non-unicast address stays refused either way.
 */
export interface AddressRules {
  readonly allowInsecure: boolean;
  /** Resolves a host name to its addresses; by default the system's resolver (tests fake it). */
  readonly resolve?: (hostname: string) => Promise<string[]>;
}

const systemResolve = async (hostname: string) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((found) => found.address);

/** Why an address is refused: pages say it in the person's language (the message is English). */
export type AddressRefusal =
  | 'too_long'
  | 'not_url'
  | 'not_https'
  | 'credentials'
  | 'unresolvable'
  | 'not_public';

/** A refused webhook address: a 400 on `url`, with the reason and the host it is about. */
export class WebhookAddressRefused extends ApiError {
  readonly reason: AddressRefusal;
  readonly host: string | undefined;
  constructor(reason: AddressRefusal, message: string, host?: string) {
    super('invalid_request', message, { param: 'url' });
    this.reason = reason;
    this.host = host;
  }
}

const refused = (reason: AddressRefusal, message: string, host?: string) =>
  new WebhookAddressRefused(reason, message, host);

/*
 * A webhook address:
 * - an absolute `https` URL (`http` only with allowInsecure), at most 500 characters;
 * - no user name or password in it;
 * - every address its host resolves to is public unicast (see checkPublicHost).
 */
export async function checkWebhookUrl(value: string, rules: AddressRules): Promise<URL> {
  if (characterCount(value) > maxWebhookUrlLength)
    throw refused('too_long', `The webhook address must have at most ${maxWebhookUrlLength} characters.`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refused('not_url', 'The webhook address must be an absolute https URL.');
  }
  if (url.protocol !== 'https:' && !(rules.allowInsecure && url.protocol === 'http:'))
    throw refused('not_https', 'The webhook address must be an https URL.');
  if (url.username || url.password)
    throw refused('credentials', 'The webhook address must not contain a user name or password.');
  await checkPublicHost(url.hostname, rules);
  return url;
}

/**
 * Refuses a host unless every address it resolves to (or the IP literal it is) is public unicast:
 * private, loopback, link-local, unique-local, multicast, unspecified, carrier-grade NAT, reserved
 * and documentation ranges are refused, IPv4-mapped IPv6 addresses as the IPv4 address they carry.
 * One bad address among several refuses the host, as the connection could go to any of them.
 * This is the early, clear refusal when an address is set; what guarantees it at each send is the
 * outbound client, which checks the address it connects to (DNS rebinding).
 */
export async function checkPublicHost(hostname: string, rules: AddressRules): Promise<void> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await (rules.resolve ?? systemResolve)(host);
    } catch {
      throw refused('unresolvable', `The webhook address's host ${hostname} cannot be resolved.`, hostname);
    }
  }
  if (addresses.length === 0)
    throw refused('unresolvable', `The webhook address's host ${hostname} has no address.`, hostname);
  for (const address of addresses) {
    const range = refusedRange(address, rules.allowInsecure);
    if (range)
      throw refused(
        'not_public',
        `The webhook address's host ${hostname} is not a public internet address (${range}).`,
        hostname,
      );
  }
}
