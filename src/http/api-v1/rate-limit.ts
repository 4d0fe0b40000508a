import type { FastifyReply, FastifyRequest } from 'fastify';
import { connectionRateLimit } from '../../domain/connections/rate-limit.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import type { Limiter, Limiters } from '../../domain/shared/limits.ts';
import type { OperationLimit } from './api-route.ts';

/** Requests without a known token per IP address (spec: Limits). */
export const unknownTokenRateLimit = { limit: 30, windowSeconds: 60 } as const;

/** The limits of /v1: requests per connection, and requests without a known token per IP address. */
export interface ApiRateLimits {
  readonly perConnection: Limiter;
  readonly perAddress: Limiter;
}

export function apiRateLimits(limiters: Limiters): ApiRateLimits {
  return {
    perConnection: limiters.createLimiter({
      keyPrefix: 'api-connection',
      points: connectionRateLimit.limit,
      durationSeconds: connectionRateLimit.windowSeconds,
    }),
    perAddress: limiters.createLimiter({
      keyPrefix: 'api-unknown-token',
      points: unknownTokenRateLimit.limit,
      durationSeconds: unknownTokenRateLimit.windowSeconds,
    }),
  };
}

/*
 * Counts a request with a valid token against its connection:
 * - its answer, whatever it turns out to be, carries RateLimit-Limit, RateLimit-Remaining and
 *   RateLimit-Reset (seconds to the new window);
 * - past the limit → 429 rate_limited with Retry-After.
 */
export async function countConnectionRequest(
  limits: ApiRateLimits,
  connectionId: string,
  reply: FastifyReply,
): Promise<void> {
  const state = await limits.perConnection.consume(connectionId);
  reply.headers({
    'ratelimit-limit': String(state.limit),
    'ratelimit-remaining': String(state.remaining),
    'ratelimit-reset': String(state.resetSeconds),
  });
  if (!state.allowed) {
    throw new ApiError(
      'rate_limited',
      `This connection made more than ${state.limit} requests in this window; retry after ${state.resetSeconds} s.`,
      { headers: { 'retry-after': String(state.resetSeconds) } },
    );
  }
}

/*
 * Counts a request without a known token (none, malformed or never issued) against its IP
 * address: past the limit, 429 rate_limited with Retry-After takes the place of its 401.
 */
export async function refusalOfUnknownToken(
  limits: ApiRateLimits,
  request: FastifyRequest,
  unauthorized: ApiError,
): Promise<ApiError> {
  const state = await limits.perAddress.consume(request.ip);
  if (state.allowed) return unauthorized;
  return new ApiError(
    'rate_limited',
    `Too many requests without a valid access token from this address; retry after ${state.resetSeconds} s.`,
    { headers: { 'retry-after': String(state.resetSeconds) } },
  );
}

/** The limiter of an operation's own limit per connection (RouteAuth.perConnection). */
export function operationLimiter(limiters: Limiters, limit: OperationLimit): Limiter {
  return limiters.createLimiter({
    keyPrefix: `api-operation-${limit.name}`,
    points: limit.limit,
    durationSeconds: limit.windowSeconds,
  });
}

/** Counts a request against its operation's own limit: past it → 429 rate_limited with Retry-After. */
export async function countOperationRequest(
  limiter: Limiter,
  limit: OperationLimit,
  connectionId: string,
): Promise<void> {
  const state = await limiter.consume(connectionId);
  if (!state.allowed)
    throw new ApiError(
      'rate_limited',
      `This connection made more than ${limit.limit} ${limit.name} requests in ${limit.windowSeconds} s; ` +
        `retry after ${state.resetSeconds} s.`,
      { headers: { 'retry-after': String(state.resetSeconds) } },
    );
}
