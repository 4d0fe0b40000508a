import type { FastifyInstance } from 'fastify';
import type { ImageStore } from '../adapters/image-store.ts';
import { ApiError } from '../domain/shared/errors.ts';

/*
 * `GET /images/<key>`: the hosted menu images (domain/menu/menu-images.ts), public like the menus
 * that show them. A key is the SHA-256 of the image's bytes, so what an address serves never
 * changes: cached for a year as immutable, with the key as ETag (a revalidation answers 304).
 * An unknown key is 404.
 */
export async function imagesRoute(app: FastifyInstance, options: { store: ImageStore }): Promise<void> {
  app.get<{ Params: { key: string } }>('/images/:key', { schema: { hide: true } }, async (request, reply) => {
    const image = await options.store.get(request.params.key);
    if (!image) throw new ApiError('not_found', 'No such image.');
    const etag = `"${request.params.key.replace(/\.\w+$/, '')}"`;
    reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('etag', etag)
      .header('x-content-type-options', 'nosniff');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type(image.contentType).send(image.bytes);
  });
}
