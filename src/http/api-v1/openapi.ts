import { isDeepStrictEqual } from 'node:util';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorSchemaName } from './error-responses.ts';

/** Name of the bearer security scheme; every /v1 route's schema refers to it. */
const securityScheme = 'bearer';

/**
 * The description of each tag the operations use, in the order the document lists them. An
 * operation with a tag missing here fails `redocly lint` (rule tag-description).
 */
const tagDescriptions: Record<string, string> = {
  Connection:
    'The connection of an app to one restaurant, made with the owner’s consent: what the access token is allowed to do, and ending it.',
  Events:
    'Changes in the restaurant, fetched by polling in commit order (the same envelopes as webhooks): the events the token’s read scopes allow, plus the connection’s own `app.*` events, kept 30 days.',
  Store:
    'Whether the restaurant takes orders now and what decides it: weekly hours, special days and pauses in the restaurant’s time zone, order types, lead times and preorders.',
  Tables:
    'The restaurant’s tables and the areas they are in, in creation order: seats, minimum party size and whether guests may book them online. Readable with `store:read` or `reservations:read`.',
};

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
}
interface Response {
  description?: string;
  content?: Record<string, MediaType>;
}
interface Operation {
  tags?: string[];
  responses?: Record<string, Response>;
}
interface Document {
  tags?: Array<{ name: string; description?: string }>;
  paths?: Record<string, Partial<Record<(typeof methods)[number], Operation>>>;
  components?: { schemas?: Record<string, unknown> };
}

/** ErrorSchema as plain JSON, as it appears in the generated document. */
const errorJson = JSON.parse(JSON.stringify(ErrorSchema)) as Json;

function withoutDescription(schema: Json): Json {
  const { description: _description, ...rest } = schema;
  return rest;
}

/**
 * Finishes the generated document: the Error schema becomes one shared component that every error
 * answer refers to, and the tags the operations use are listed with their descriptions.
 */
function finish(document: Document): Document {
  const usedTags = new Set<string>();
  let errorsReferred = false;
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of methods) {
      const operation = item[method];
      if (!operation) continue;
      for (const tag of operation.tags ?? []) usedTags.add(tag);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) < 400) continue;
        for (const media of Object.values(response.content ?? {})) {
          if (media.schema && isDeepStrictEqual(withoutDescription(media.schema), errorJson)) {
            media.schema = { $ref: `#/components/schemas/${errorSchemaName}` };
            errorsReferred = true;
          }
        }
      }
    }
  }
  if (errorsReferred) {
    document.components ??= {};
    document.components.schemas = {
      ...document.components.schemas,
      [errorSchemaName]: { ...errorJson, description: 'The body of every error answer of the API.' },
    };
  }
  const described = Object.keys(tagDescriptions).filter((name) => usedTags.has(name));
  const undescribed = [...usedTags].filter((name) => !(name in tagDescriptions));
  document.tags = [...described, ...undescribed].map((name) => {
    const description = tagDescriptions[name];
    return description === undefined ? { name } : { name, description };
  });
  return document;
}

/**
 * The OpenAPI 3.1 document of the public API (`app.swagger()`), generated from the schemas of the
 * /v1 routes registered after this; every other route is left out. Paths are relative to the
 * server `${baseUrl}/v1`.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  options: { baseUrl: string; apiVersion: string },
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Servery API',
        version: options.apiVersion,
        description: [
          'The public API of Servery, for apps connected to a restaurant with its owner’s consent.',
          '',
          'Every request is authenticated with the access token of the app’s connection to one restaurant ' +
            '(`Authorization: Bearer <token>`) and acts on that restaurant only. Requests and responses are ' +
            'JSON. Every error answer has the same body: `{"error": {"code", "message", "request_id", "param"?}}`, ' +
            'and every response names its request in the `X-Request-Id` header. POST requests may send an ' +
            '`Idempotency-Key` header to be retried safely.',
        ].join('\n'),
        contact: { name: 'Servery API support', url: options.baseUrl },
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: `${options.baseUrl}/v1`, description: 'This Servery installation' }],
      security: [{ [securityScheme]: [] }],
      components: {
        securitySchemes: {
          [securityScheme]: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'svc_at_…',
            description:
              'An access token of the app’s connection to a restaurant (`svc_at_` and 43 more characters), ' +
              'valid for one hour and limited to the scopes the owner granted, sent as ' +
              '`Authorization: Bearer <token>`.',
          },
        },
      },
    },
    // Only the public API is described, with paths relative to the /v1 server.
    transform: ({ schema, url }) =>
      url.startsWith('/v1/') ? { schema, url: url.slice(3) } : { schema: { ...schema, hide: true }, url },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) throw new Error('expected an OpenAPI document');
      return finish(documentObject.openapiObject as Document) as typeof documentObject.openapiObject;
    },
  });
}
