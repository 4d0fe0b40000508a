import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { type Document, OpenAPIBackend, type Operation, SetMatchType } from 'openapi-backend';

/** The /v1 answers that are not operations of the document: the documents themselves. */
const undocumented = new Set(['/v1/openapi.json', '/v1/postman.json']);

interface Header {
  required?: boolean;
}

/** `/events/{id}` → `/v1/events/:id`, the route's URL as Fastify names it. */
const routeUrlOf = (path: string) => `/v1${path.replace(/\{(\w+)\}/g, ':$1')}`;

/*
 * Checks every answer of a /v1 operation against the OpenAPI document the app serves
 * (GET /v1/openapi.json), so that each test that uses the app proves the document right:
 * - the status is one the operation lists;
 * - the body matches that response's schema, and is JSON where the document says so;
 * - the headers it declares match their schemas, the required ones are there, and no header the
 *   document declares elsewhere comes with an answer that does not declare it.
 * Schemas and header values are checked by openapi-backend (Ajv, with the formats of ajv-formats);
 * which headers must or may be there, by this check (openapi-backend leaves that out).
 * Answers to paths and methods the document does not have (404, 405) are not operations, and
 * are not checked. Returns the violations found, to be read when the app is closed.
 */
export function checkAnswersAgainstDocument(app: FastifyInstance): string[] {
  const violations: string[] = [];
  let checker: Checker | undefined;
  // Made as the app gets ready, so that checking takes no time of its own in an answer.
  app.addHook('onReady', async () => {
    checker = await makeChecker(app);
  });
  // A hook of the root instance: Fastify gives it to the routes of every plugin (hooks are
  // attached to routes when the app gets ready), so it sees every answer.
  app.addHook('onSend', async (request, reply, payload) => {
    const url = request.routeOptions.url;
    if (!url?.startsWith('/v1/') || undocumented.has(url)) return payload;
    try {
      if (!checker) throw new Error('the app answered before it was ready');
      const problems = checker(request.method, url, reply.statusCode, reply.getHeaders(), payload);
      for (const problem of problems) {
        violations.push(`${request.method} ${request.url} → ${reply.statusCode}: ${problem}`);
      }
    } catch (error) {
      violations.push(`${request.method} ${request.url} → ${reply.statusCode}: ${String(error)}`);
    }
    return payload;
  });
  return violations;
}

type Checker = (
  method: string,
  url: string,
  status: number,
  headers: Record<string, unknown>,
  payload: unknown,
) => string[];

async function makeChecker(app: FastifyInstance): Promise<Checker> {
  const document = structuredClone(app.swagger()) as Document;
  const componentHeaders = Object.keys(document.components?.headers ?? {}).map((name) => name.toLowerCase());
  // quick: the definition is taken as it is (openapi-backend checks documents as OpenAPI 3.0),
  // strict: a document it cannot read fails instead of checking nothing.
  const api = new OpenAPIBackend({
    definition: document,
    quick: true,
    strict: true,
    customizeAjv: (ajv) => {
      addFormats.default(ajv);
      return ajv;
    },
  });
  await api.init();
  const operations = new Map<string, Operation>(
    api
      .getOperations()
      .map((operation) => [`${operation.method.toUpperCase()} ${routeUrlOf(operation.path)}`, operation]),
  );

  return (method, url, status, headers, payload) => {
    const operation = operations.get(`${method} ${url}`);
    if (!operation) return ['the document has no such operation'];
    const response = operation.responses?.[status];
    if (!response || '$ref' in response) return [`the operation does not list status ${status}`];
    const problems: string[] = [];

    const json = response.content?.['application/json'];
    if (json) {
      if (!String(headers['content-type']).startsWith('application/json')) {
        problems.push(`content-type is ${headers['content-type']}, not application/json`);
      }
      let body: unknown;
      try {
        body = JSON.parse(String(payload));
      } catch {
        return [...problems, `the body is not JSON: ${String(payload).slice(0, 200)}`];
      }
      const result = api.validateResponse(body, operation, status);
      for (const error of result.errors ?? []) {
        problems.push(`body${error.instancePath} ${error.message} (${JSON.stringify(error.params)})`);
      }
    } else if (payload !== undefined && payload !== null && String(payload) !== '') {
      problems.push('a body where the document declares none');
    }

    const declared = Object.entries((response.headers ?? {}) as Record<string, Header>).map(
      ([name, header]) => [name.toLowerCase(), header] as const,
    );
    const result = api.validateResponseHeaders(headers, operation, {
      statusCode: status,
      setMatchType: SetMatchType.Any,
    });
    for (const error of result.errors ?? []) {
      problems.push(`header ${error.instancePath.replace(/^\/headers\//, '')} ${error.message}`);
    }
    for (const [name, header] of declared) {
      if (header.required && headers[name] === undefined) problems.push(`header ${name} is missing`);
    }
    for (const name of componentHeaders) {
      if (headers[name] !== undefined && !declared.some(([declaredName]) => declaredName === name)) {
        problems.push(`header ${name} is sent but not declared for this answer`);
      }
    }
    return problems;
  };
}
