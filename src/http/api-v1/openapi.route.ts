import type { FastifyInstance } from 'fastify';
import { postmanCollection } from './postman-collection.ts';

/**
 * `GET /v1/openapi.json` (OpenAPI 3.1, generated from the route schemas) and `GET /v1/postman.json`
 * (a Postman collection generated from it, postman-collection.ts). Both are public and built once.
 */
export async function openApiRoutes(app: FastifyInstance): Promise<void> {
  let postman: Promise<unknown> | undefined;
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/postman.json', { schema: { hide: true } }, async () => {
    postman ??= postmanCollection(app.swagger());
    return postman;
  });
}
