import type { Limiters, LimitState } from '../shared/limits.ts';
import { TemporarilyUnavailable } from './oauth-errors.ts';

/** decisions.md, "Limits the spec leaves open". */
export const tokenEndpointLimits = {
  requestsPerClientPerMinute: 60,
  failedAuthenticationsPerAddressPerMinute: 20,
} as const;

export interface TokenLimits {
  /** Before authenticating: refuses an address that failed too often this minute. */
  checkAddress(address: string): Promise<void>;
  /** After a failed client authentication from the address. */
  countFailedAuthentication(address: string): Promise<void>;
  /** After a successful one: counts the request against the client. */
  countClientRequest(clientId: string): Promise<void>;
}

/*
 * The token endpoint's own limits (decisions.md):
 * - 60 requests a minute per client, counted once the client has authenticated (a client id is
 *   public: requests failing to authenticate as it must not use up its allowance);
 * - 20 failed client authentications a minute per IP address; then the address is refused for
 *   the rest of the minute, good credentials or not.
 * Over a limit → temporarily_unavailable (429) with Retry-After in whole seconds.
 */
export function createTokenLimits(limiters: Limiters): TokenLimits {
  const perClient = limiters.createLimiter({
    keyPrefix: 'oauth_token_client',
    points: tokenEndpointLimits.requestsPerClientPerMinute,
    durationSeconds: 60,
  });
  const failuresPerAddress = limiters.createLimiter({
    keyPrefix: 'oauth_failed_client_auth',
    points: tokenEndpointLimits.failedAuthenticationsPerAddressPerMinute,
    durationSeconds: 60,
  });
  return {
    checkAddress: async (address) => {
      const state = await failuresPerAddress.peek(address);
      if (!state.allowed) throw tooMany(state, 'failed client authentications from this address');
    },
    countFailedAuthentication: async (address) => {
      await failuresPerAddress.consume(address);
    },
    countClientRequest: async (clientId) => {
      const state = await perClient.consume(clientId);
      if (!state.allowed) throw tooMany(state, 'requests from this client');
    },
  };
}

function tooMany(state: LimitState, what: string): TemporarilyUnavailable {
  const seconds = Math.max(1, state.resetSeconds);
  return new TemporarilyUnavailable(`Too many ${what}; retry in ${seconds} seconds.`, seconds);
}
