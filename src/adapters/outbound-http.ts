import { type LookupAddress, lookup as systemLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, fetch, type RequestInit, type Response } from 'undici';

/**
 * The range of an address a connection may not go to, or null when it may: only public unicast
 * addresses are allowed, and loopback too with allowLoopback. An IPv6 address that carries an
 * IPv4 one counts as it: IPv4-mapped (::ffff:0:0/96) and IPv4-compatible (::/96, deprecated, which
 * a URL writes in hex: `[::127.0.0.1]` is `[::7f00:1]`). Every other IPv6 form of an IPv4 address
 * (NAT64, 6to4, Teredo, SIIT) is a range of its own, never unicast.
 */
export function refusedRange(address: string, allowLoopback: boolean): string | null {
  const range = rangeOf(ipaddr.process(address));
  return range === 'unicast' || (allowLoopback && range === 'loopback') ? null : range;
}

function rangeOf(parsed: ipaddr.IPv4 | ipaddr.IPv6): string {
  const range = parsed.range();
  if (parsed.kind() === 'ipv6' && range !== 'loopback' && range !== 'unspecified') {
    const parts = (parsed as ipaddr.IPv6).parts;
    if (parts.slice(0, 6).every((part) => part === 0)) {
      const [high = 0, low = 0] = parts.slice(6);
      return new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]).range();
    }
  }
  return range;
}

/** A connection the client would not make: its host is, or resolves to, an address not allowed. */
export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
  constructor(host: string, address: string, range: string) {
    super(
      host === address
        ? `${address} is not a public internet address (${range}).`
        : `${host} resolves to ${address}, not a public internet address (${range}).`,
    );
  }
}

export interface OutboundHttpOptions {
  /** Loopback addresses too: only for test restaurants' webhooks under WEBHOOKS_ALLOW_INSECURE. */
  allowLoopback?: boolean;
  /** Resolves host names, with dns.lookup's signature (the default); tests inject their own. */
  lookup?: LookupFunction;
  /** Certificate authorities to trust instead of the system's: tests' local https servers only. */
  ca?: string;
}

/*
 * The one client for outbound HTTP (webhooks, menu image downloads; payment calls later). It checks
 * the address each connection is actually made to, so no DNS answer given between a check and the
 * connection (DNS rebinding) can lead it to a private address:
 * - a host name is resolved once, when connecting, and refused if any of its addresses is not
 *   allowed (the connection could go to any of them), before a packet is sent;
 * - an IP literal, which Node connects to without a lookup, is checked as it is;
 * - a kept-alive connection is reused only for its own origin, so it stays on the checked address.
 * Allowed: public unicast (refusedRange), loopback too with allowLoopback. Redirects are the
 * caller's choice; any connection a redirect makes goes through the same check.
 */
export class OutboundHttpClient {
  readonly #dispatcher: Agent;

  constructor(options: OutboundHttpOptions = {}) {
    const allowLoopback = options.allowLoopback ?? false;
    const connectToName = buildConnector({
      lookup: guardedLookup(options.lookup ?? systemLookup, allowLoopback),
      // HTTP/1.1 only, as Node's own fetch (undici 8 would offer HTTP/2).
      allowH2: false,
      ...(options.ca && { ca: options.ca }),
    });
    this.#dispatcher = new Agent({
      connect: (target, callback) => {
        if (isIP(target.hostname) !== 0) {
          const range = refusedRange(target.hostname, allowLoopback);
          if (range) return callback(new AddressRefusedError(target.hostname, target.hostname, range), null);
        }
        connectToName(target, callback);
      },
    });
  }

  /** The standard fetch, through this client's checked connections. */
  fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    return fetch(url, { ...init, dispatcher: this.#dispatcher });
  }
}

/**
 * A lookup for connecting: it answers what `resolve` answers only when every address of the host is
 * allowed (refusedRange), and fails the connection otherwise.
 */
export function guardedLookup(resolve: LookupFunction, allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, found) => {
      if (error) return callback(error, '');
      // Asked with `all`, a lookup answers every address of the host.
      const addresses = found as LookupAddress[];
      const [first] = addresses;
      if (!first)
        return callback(Object.assign(new Error(`${hostname} has no address.`), { code: 'ENOTFOUND' }), '');
      for (const { address } of addresses) {
        const range = refusedRange(address, allowLoopback);
        if (range) return callback(new AddressRefusedError(hostname, address, range), '');
      }
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}
