import type { FastifyInstance } from 'fastify';
import Converter from 'openapi-to-postmanv2';

/**
 * `GET /v1/openapi.json` (OpenAPI 3.1, generated from the route schemas) and `GET /v1/postman.json`
 * (a Postman collection generated from it). Both are public and built once.
 */
export async function openApiRoutes(app: FastifyInstance): Promise<void> {
  let postman: Promise<unknown> | undefined;
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/postman.json', { schema: { hide: true } }, async () => {
    postman ??= toPostman(app.swagger());
    return postman;
  });
}

function toPostman(openapi: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    Converter.convert(
      { type: 'json', data: openapi as object },
      {
        folderStrategy: 'Tags',
        requestParametersResolution: 'Example',
        exampleParametersResolution: 'Example',
      },
      (error, result) => {
        if (error) return reject(error);
        const first = result.result ? result.output?.[0] : undefined;
        if (!first) return reject(new Error(`OpenAPI to Postman failed: ${result.reason}`));
        resolve(first.data);
      },
    );
  });
}
