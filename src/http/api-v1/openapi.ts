import { isDeepStrictEqual } from 'node:util';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { idempotencyKeyExtension, optionalBodyExtension } from './api-route.ts';
import { ErrorSchema, errorSchemaName } from './error-responses.ts';
import { idempotencyKeyPattern } from './idempotency.ts';

/** Name of the bearer security scheme; every /v1 route's schema refers to it. */
const securityScheme = 'bearer';

/**
 * The description of each tag the operations use, in the order the document lists them. An
 * operation with a tag missing here fails `redocly lint` (rule tag-description).
 */
const tagDescriptions: Record<string, string> = {
  Reservations:
    'Tables booked ahead (Pro and Premium plans): the bookable times of a day, and creating, reading and changing reservations.',
  Connection:
    'The connection of an app to one restaurant, made with the owner’s consent: what the access token is allowed to do, and ending it.',
  Events:
    'Changes in the restaurant, fetched by polling in commit order (the same envelopes as webhooks): the events the token’s read scopes allow, plus the connection’s own `app.*` events, kept 30 days.',
  Menu: 'The restaurant’s menu: categories, products, option groups and options, each by position, sold-out items included. Each app sees only its own `external_id`s; changes are reported as `menu.*` events.',
  Orders:
    'What guests order, once it exists for apps (placed to pay on site, or paid online): read and poll them, take them over with your own reference (acknowledge), and move them through the statuses the restaurant uses; changes are reported as `order.*` events.',
  Reports:
    'Sales and products sold over restaurant-local days (at most 366), from the orders that are not cancelled: by day, week (from Monday) or month, with VAT by rate.',
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
  headers?: Record<string, Json>;
  content?: Record<string, MediaType>;
}
interface Operation {
  tags?: string[];
  [idempotencyKeyExtension]?: boolean;
  [optionalBodyExtension]?: boolean;
  parameters?: Json[];
  requestBody?: { required?: boolean };
  responses?: Record<string, Response>;
}
interface Document {
  tags?: Array<{ name: string; description?: string }>;
  paths?: Record<string, Partial<Record<(typeof methods)[number], Operation>>>;
  components?: {
    schemas?: Record<string, unknown>;
    parameters?: Record<string, Json>;
    headers?: Record<string, Json>;
  };
}

/** The header every POST takes (spec: Limits, Idempotency; idempotency.ts checks it). */
const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the POST safe to retry: 1 to 255 printable ASCII characters, a new one for each operation (a ' +
    'UUID will do), kept 24 hours per connection. A retry with the same key, method, path and body answers ' +
    'the first answer again with `Idempotent-Replayed: true`; the same key with another request is 422 ' +
    '`idempotency_key_reused`, and while the first is still running 409 `idempotency_in_progress`.',
  schema: { type: 'string', pattern: idempotencyKeyPattern.source },
  example: '5f0c8a7e-2b4d-4c1e-9a6f-3d8b7e2c1a90',
};

/** Whether a response of an operation (`keyed`: it takes an Idempotency-Key) with this status carries a header. */
type Carries = (keyed: boolean, status: number) => boolean;

/**
 * The response headers of the API (spec: Limits; docs/api-decisions.md, Headers and Rate limits),
 * each declared once under components.headers and referred to by every response that carries
 * it. `required` only where a header is on every such response.
 */
function responseHeaders(apiVersion: string): Record<string, { carries: Carries; header: Json }> {
  const always: Carries = () => true;
  // Every answer to a valid token: not a 401, and not the 429 of requests without a known token.
  const validToken: Carries = (_method, status) => status !== 401;
  const rateLimitNote =
    'On every answer to a valid access token, errors included; not on 401, nor on the 429 of requests ' +
    'without a known token (those count per address).';
  const integer = (minimum: number) => ({ type: 'integer', minimum });
  return {
    'X-Request-Id': {
      carries: always,
      header: {
        description:
          'Names this request; the same value as `request_id` in an error body. Quote it when asking for help.',
        required: true,
        schema: { type: 'string', pattern: '^req_[0-9a-f]{24}$' },
        example: 'req_4f9c2b7a1e8d3c6b5a0f9e2d',
      },
    },
    'Service-Api-Version': {
      carries: always,
      header: {
        description: 'The version of the API that answered (its date).',
        required: true,
        schema: { type: 'string', const: apiVersion },
        example: apiVersion,
      },
    },
    'RateLimit-Limit': {
      carries: validToken,
      header: {
        description: `Requests the connection may make per window (120). ${rateLimitNote}`,
        schema: integer(1),
        example: 120,
      },
    },
    'RateLimit-Remaining': {
      carries: validToken,
      header: {
        description: `Requests the connection may still make in this window, after this one. ${rateLimitNote}`,
        schema: integer(0),
        example: 119,
      },
    },
    'RateLimit-Reset': {
      carries: validToken,
      header: {
        description: `Whole seconds until the window ends and the count starts anew. ${rateLimitNote}`,
        schema: integer(0),
        example: 60,
      },
    },
    'Retry-After': {
      carries: (_method, status) => status === 429 || status === 409,
      header: {
        description: 'Seconds to wait before sending the request again: on every 429, and on 409 `conflict`.',
        schema: integer(0),
        example: 1,
      },
    },
    'WWW-Authenticate': {
      carries: (_method, status) => status === 401 || status === 403,
      header: {
        description:
          'The Bearer challenge: on every 401 (with `error="invalid_token"` when a token was sent but is not ' +
          'valid), and on 403 `insufficient_scope` with `error="insufficient_scope"` and the `scope` needed.',
        schema: { type: 'string', pattern: '^Bearer realm="servery"' },
        example: 'Bearer realm="servery", error="insufficient_scope", scope="store:write"',
      },
    },
    'Idempotent-Replayed': {
      // Only answers the operation gave are kept for a key: not 401, 413, 429 or 5xx.
      carries: (keyed, status) => keyed && ![401, 413, 429].includes(status) && status < 500,
      header: {
        description:
          '`true` when this is the first answer to an earlier request with the same Idempotency-Key, sent again.',
        schema: { type: 'string', const: 'true' },
        example: 'true',
      },
    },
  };
}

/** ErrorSchema as plain JSON, as it appears in the generated document. */
const errorJson = JSON.parse(JSON.stringify(ErrorSchema)) as Json;

function withoutDescription(schema: Json): Json {
  const { description: _description, ...rest } = schema;
  return rest;
}

/**
 * Finishes the generated document: the Error schema becomes one shared component that every error
 * answer refers to; every POST refers to the Idempotency-Key parameter and every response to the
 * headers it carries, each declared once among the components; and the tags the operations use are
 * listed with their descriptions.
 */
function finish(document: Document, apiVersion: string): Document {
  const usedTags = new Set<string>();
  let errorsReferred = false;
  const headers = Object.entries(responseHeaders(apiVersion));
  document.components ??= {};
  document.components.parameters = { [idempotencyKey.name]: idempotencyKey };
  document.components.headers = Object.fromEntries(headers.map(([name, { header }]) => [name, header]));
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of methods) {
      const operation = item[method];
      if (!operation) continue;
      for (const tag of operation.tags ?? []) usedTags.add(tag);
      // Every POST takes a key, and the operations that say so (PATCH /reservations/{id}).
      const keyed = method === 'post' || operation[idempotencyKeyExtension] === true;
      delete operation[idempotencyKeyExtension];
      // The order actions take an empty request as `{}`: their body may be left out.
      if (operation[optionalBodyExtension] && operation.requestBody) operation.requestBody.required = false;
      delete operation[optionalBodyExtension];
      if (keyed) {
        operation.parameters = [
          ...(operation.parameters ?? []),
          { $ref: `#/components/parameters/${idempotencyKey.name}` },
        ];
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = Object.fromEntries(
          headers
            .filter(([, { carries }]) => carries(keyed, Number(status)))
            .map(([name]) => [name, { $ref: `#/components/headers/${name}` }]),
        );
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
            'and every response names its request in the `X-Request-Id` header. POST requests (and ' +
            '`PATCH /reservations/{id}`) may send an `Idempotency-Key` header to be retried safely.',
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
              'An access token of the app’s connection to a restaurant (`svc_at_` and 65 more characters, ' +
              'which name the restaurant; tokens issued before 29 November 2026 have 43), ' +
              'valid for one hour and limited to the scopes the owner granted, sent as ' +
              '`Authorization: Bearer <token>`.',
          },
        },
      },
    },
    // Only the public API is described, with paths relative to the /v1 server, and the path
    // parameters as a route documents them (ApiRoute's documentedParams).
    transform: ({ schema, url }) => {
      if (!url.startsWith('/v1/')) return { schema: { ...schema, hide: true }, url };
      const { documentedParams, ...rest } = schema as typeof schema & { documentedParams?: unknown };
      return { schema: documentedParams ? { ...rest, params: documentedParams } : rest, url: url.slice(3) };
    },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) throw new Error('expected an OpenAPI document');
      const document = documentObject.openapiObject as Document;
      return finish(document, options.apiVersion) as typeof documentObject.openapiObject;
    },
  });
}
