import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { ApiError } from '../../domain/shared/errors.ts';
import { sendError } from './error-reply.ts';

/*
 * Unknown path → 404 not_found; a known path with a method it does not have → 405
 * method_not_allowed with `Allow`. Fastify answers both with 404, so every route is also
 * recorded in a router of our own that tells which methods a path has. Both are never cached.
 * `page` may answer either as a page instead (a browser on the site's pages: site/not-found-page.ts);
 * when it returns null, the answer is the API's JSON error.
 */
export function notFoundOrMethodNotAllowed(
  app: FastifyInstance,
  page?: (request: FastifyRequest, reply: FastifyReply, error: ApiError) => FastifyReply | null,
): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  const paths = FindMyWay({ ignoreTrailingSlash: false });
  const methodsByRoute = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let known = methodsByRoute.get(route.url);
    if (!known) {
      known = new Set();
      methodsByRoute.set(route.url, known);
      paths.on('GET', route.url, () => {}, { url: route.url });
    }
    for (const method of methods) known.add(method);
  });
  return (request, reply) => {
    // Never cached: /oauth/token and /oauth/revoke must say so on every answer, a 405 included.
    reply.header('cache-control', 'no-store');
    const path = request.url.split('?')[0] ?? '/';
    const found = paths.find('GET', path);
    const allowed = found ? methodsByRoute.get((found.store as { url: string }).url) : undefined;
    const error =
      allowed && !allowed.has(request.method)
        ? new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}.`, {
            headers: { allow: [...allowed].sort().join(', ') },
          })
        : new ApiError('not_found', `Nothing is at ${request.method} ${path}.`);
    return page?.(request, reply, error) ?? sendError(request, reply, error);
  };
}
