import type { FastifyInstance } from 'fastify';
import Converter from 'openapi-to-postmanv2';

/**
 * `GET /v1/openapi.json` (OpenAPI 3.1, generated from the route schemas) and `GET /v1/postman.json`
 * (a Postman collection generated from it). Both are public and built once.
 *
 * The collection's requests go to `{{baseUrl}}` (the server of the document by default) and inherit
 * the collection's bearer authentication with `{{bearerToken}}`: set both in an environment, or with
 * `newman run --env-var baseUrl=… --env-var bearerToken=…`.
 */
export async function openApiRoutes(app: FastifyInstance): Promise<void> {
  let postman: Promise<unknown> | undefined;
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/postman.json', { schema: { hide: true } }, async () => {
    // A copy: the converter changes the document it is given, which app.swagger() keeps and serves.
    postman ??= toPostman(structuredClone(app.swagger()));
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
        // One bearer authentication on the collection, {{bearerToken}}, which every request inherits.
        alwaysInheritAuthentication: true,
      },
      (error, result) => {
        if (error) return reject(error);
        const first = result.result ? result.output?.[0] : undefined;
        if (!first) return reject(new Error(`OpenAPI to Postman failed: ${result.reason}`));
        resolve(withTokenVariable(first.data as Collection));
      },
    );
  });
}

interface Collection {
  variable?: Array<{ key: string; value: string; type?: string; description?: string }>;
}

/** The collection declares the token variable its authentication uses, empty, next to `baseUrl`. */
function withTokenVariable(collection: Collection): Collection {
  const variables = collection.variable ?? [];
  if (variables.some((variable) => variable.key === 'bearerToken')) return collection;
  return {
    ...collection,
    variable: [
      ...variables,
      {
        key: 'bearerToken',
        value: '',
        type: 'string',
        description: 'An access token of the app’s connection to a restaurant (svc_at_…).',
      },
    ],
  };
}
