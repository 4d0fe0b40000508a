import type { FastifyRequest } from 'fastify';

/**
 * Whether a form post comes from one of our own pages: without an Origin header (older browsers,
 * non-browser clients) it may, as the CSRF token still decides on the signed-in surfaces; with one,
 * its scheme, host and port must be this request's (behind a trusted proxy, as the proxy says).
 */
export function fromOwnOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return (
    URL.canParse(origin) && new URL(origin).origin === new URL(`${request.protocol}://${request.host}`).origin
  );
}
