import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Type from 'typebox';
import { createTable } from '../../src/domain/store/tables.service.ts';
import { apiRoute } from '../../src/http/api-v1/api-route.ts';
import { errorResponses } from '../../src/http/api-v1/error-responses.ts';
import { idempotencyKeyPattern } from '../../src/http/api-v1/idempotency.ts';
import { categoryFilterPattern } from '../../src/http/api-v1/menu-products.route.ts';
import { apiV1Routes } from '../../src/http/api-v1/routes.ts';
import { bearer, buildTestApp, makeTenant, type TestApp, testBaseUrl } from '../harness.ts';
import { type OrderingTenant, orderingTenant, place } from '../orders/order-helpers.ts';
import { hangCatcherMs } from '../waiting.ts';

/*
 * The public API's OpenAPI document and Postman collection, checked by independent tools: the
 * document by `redocly lint` (with the repository's redocly.yaml), the collection by a newman run
 * against the service listening on a real socket.
 */

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'node_modules/.bin');

interface Operation {
  operationId?: string;
  description?: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }>;
}
type Document = {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

let t: TestApp;
let dir: string;
let document: Document;

before(async () => {
  t = await buildTestApp();
  dir = await mkdtemp(path.join(tmpdir(), 'servery-openapi-'));
  // Served to anyone: no Authorization header.
  const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  document = res.json();
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

function operationsOf(doc: Document): Array<{ method: string; path: string; operation: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation })),
  );
}

test('the document is OpenAPI 3.1.0 with exactly the /v1 operations, each with its operationId', () => {
  assert.equal(document.openapi, '3.1.0');
  assert.deepEqual(document.servers, [
    { url: `${testBaseUrl}/v1`, description: 'This Servery installation' },
  ]);
  const listed = operationsOf(document)
    .map(({ method, path, operation }) => `${method.toUpperCase()} ${path} ${operation.operationId}`)
    .sort();
  const expected = apiV1Routes
    .map((route) => `${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')} ${route.schema.operationId}`)
    .sort();
  assert.deepEqual(listed, expected);
  // Nothing else: not /health, not the documents themselves, and paths relative to the /v1 server.
  for (const path of Object.keys(document.paths)) {
    assert.doesNotMatch(path, /^\/v1\/|^\/health|openapi\.json|postman\.json/);
  }
});

/*
 * The spec's standard error sets (Endpoints): read operations answer 400, 401, 403, 429, 500;
 * operations addressing an id add 404; POST/PUT/PATCH add 409, 413, 422. GET /me and
 * DELETE /connection answer only 400, 401, 429, 500.
 */
function specErrorStatuses(method: string, path: string): { statuses: string[]; only: boolean } {
  if ((method === 'get' && path === '/me') || (method === 'delete' && path === '/connection')) {
    return { statuses: ['400', '401', '429', '500'], only: true };
  }
  const statuses = ['400', '401', '403', '429', '500'];
  if (path.includes('{')) statuses.push('404');
  if (['post', 'put', 'patch'].includes(method)) statuses.push('409', '413', '422');
  return { statuses, only: false };
}

test("every operation needs the bearer token and lists the spec's error statuses with the Error schema", () => {
  assert.ok(document.components.schemas.Error, 'components.schemas.Error');
  for (const { method, path, operation } of operationsOf(document)) {
    const name = `${method.toUpperCase()} ${path}`;
    assert.deepEqual(operation.security, [{ bearer: [] }], name);
    assert.ok(operation.description, `${name} has a description`);
    const spec = specErrorStatuses(method, path);
    const errors = Object.keys(operation.responses).filter((status) => Number(status) >= 400);
    if (spec.only) assert.deepEqual(errors, spec.statuses, name);
    else for (const status of spec.statuses) assert.ok(errors.includes(status), `${name} lists ${status}`);
    for (const [status, response] of Object.entries(operation.responses)) {
      assert.notEqual(response.description, 'Default Response', `${name} ${status}`);
      if (Number(status) < 400) continue;
      assert.deepEqual(
        response.content,
        { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        `${name} ${status}`,
      );
    }
  }
});

/*
 * What the document states beyond the route schemas' shapes (docs/api-decisions.md, OpenAPI
 * document): optional list sizes, the Idempotency-Key, response headers, patterns, formats and
 * examples.
 */
interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
  example?: unknown;
}
type Schema = Record<string, unknown> & { properties?: Record<string, Schema> };
interface Details {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> };
  responses: Record<string, { headers?: Record<string, { $ref?: string }> }>;
}
type Components = {
  parameters: Record<string, Parameter>;
  headers: Record<string, { required?: boolean; schema: Schema; example?: unknown }>;
};
const components = () => document.components as unknown as Components;
const detailsOf = (operation: Operation) => operation as unknown as Details;
const parametersOf = (operation: Operation) =>
  (detailsOf(operation).parameters ?? []).map((parameter) =>
    parameter.$ref ? components().parameters[parameter.$ref.split('/').at(-1) ?? ''] : parameter,
  );

test('`limit` is optional, with its default, on every list', () => {
  const defaults: Record<string, number> = {
    '/events': 50,
    '/orders': 25,
    '/reservations': 25,
    '/tables': 25,
    '/areas': 25,
    '/menu/categories': 25,
    '/menu/products': 25,
    '/menu/option-groups': 25,
    '/menu/options': 25,
  };
  for (const { method, path, operation } of operationsOf(document)) {
    const limit = parametersOf(operation).find((parameter) => parameter?.name === 'limit');
    if (!(path in defaults) || method !== 'get') {
      assert.equal(limit, undefined, path);
      continue;
    }
    assert.equal(limit?.required, false, path);
    assert.equal(limit?.schema.default, defaults[path], path);
  }
});

/** Operations that take an Idempotency-Key: every POST, and PATCH /reservations/{id}. */
const keyed = (method: string, operation: Operation) =>
  method === 'post' || operation.operationId === 'updateReservation';

test('every POST (and PATCH /reservations/{id}) refers to the one Idempotency-Key parameter; no other operation has it', () => {
  const key = components().parameters['Idempotency-Key'];
  assert.deepEqual(
    { name: key?.name, in: key?.in, required: key?.required, pattern: key?.schema.pattern },
    { name: 'Idempotency-Key', in: 'header', required: false, pattern: idempotencyKeyPattern.source },
  );
  for (const { method, path, operation } of operationsOf(document)) {
    const refs = (detailsOf(operation).parameters ?? []).filter(
      (parameter) => parameter.$ref === '#/components/parameters/Idempotency-Key',
    );
    assert.equal(refs.length, keyed(method, operation) ? 1 : 0, `${method} ${path}`);
  }
});

/** The headers an answer carries (spec: Limits; docs/api-decisions.md, Headers and Rate limits). */
function expectedHeaders(isKeyed: boolean, status: number): string[] {
  const names = ['X-Request-Id', 'Service-Api-Version'];
  if (status !== 401) names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
  if (status === 409 || status === 429) names.push('Retry-After');
  if (status === 401 || status === 403) names.push('WWW-Authenticate');
  if (isKeyed && ![401, 413, 429].includes(status) && status < 500) names.push('Idempotent-Replayed');
  return names;
}

test('a request body is required except on the order actions, which take an absent one as {}', () => {
  const optional: string[] = [];
  for (const { method, path, operation } of operationsOf(document)) {
    const body = (operation as unknown as { requestBody?: { required?: boolean } }).requestBody;
    if (body && body.required !== true) optional.push(`${method.toUpperCase()} ${path}`);
  }
  assert.deepEqual(
    optional.sort(),
    ['accept', 'acknowledge', 'advance', 'cancel', 'reject'].map((action) => `POST /orders/{id}/${action}`),
  );
});

test('every response refers to the headers it carries, each declared once among the components', () => {
  const declared = components().headers;
  assert.deepEqual(Object.keys(declared).sort(), [
    'Idempotent-Replayed',
    'RateLimit-Limit',
    'RateLimit-Remaining',
    'RateLimit-Reset',
    'Retry-After',
    'Service-Api-Version',
    'WWW-Authenticate',
    'X-Request-Id',
  ]);
  // Required only where they are on every answer that refers to them.
  const required = Object.keys(declared).filter((name) => declared[name]?.required);
  assert.deepEqual(required.sort(), ['Service-Api-Version', 'X-Request-Id']);
  for (const { method, path, operation } of operationsOf(document)) {
    for (const [status, response] of Object.entries(detailsOf(operation).responses)) {
      assert.deepEqual(
        response.headers,
        Object.fromEntries(
          expectedHeaders(keyed(method, operation), Number(status)).map((name) => [
            name,
            { $ref: `#/components/headers/${name}` },
          ]),
        ),
        `${method} ${path} ${status}`,
      );
    }
  }
});

/** Every schema inside `schema` with its property name (`''` for the top). */
function* schemasIn(schema: unknown, name = ''): Generator<[string, Schema]> {
  if (typeof schema !== 'object' || schema === null) return;
  yield [name, schema as Schema];
  const { properties, items, anyOf, oneOf, allOf } = schema as Record<string, unknown>;
  for (const [child, value] of Object.entries((properties ?? {}) as Record<string, unknown>)) {
    yield* schemasIn(value, child);
  }
  for (const value of [
    items,
    ...((anyOf ?? []) as unknown[]),
    ...((oneOf ?? []) as unknown[]),
    ...((allOf ?? []) as unknown[]),
  ]) {
    yield* schemasIn(value, name);
  }
}

test('ids are uuids (events: evt_ and 32 hex), timestamps date-time, dates date', () => {
  const schemas = [
    ...Object.values(document.components.schemas),
    ...operationsOf(document).flatMap(({ operation }) => [
      ...parametersOf(operation).map((parameter) => ({
        properties: { [parameter?.name ?? '']: parameter?.schema },
      })),
      ...Object.values(detailsOf(operation).requestBody?.content ?? {}).map((media) => media.schema),
      ...Object.values(operation.responses).flatMap((response) =>
        Object.values(response.content ?? {}).map((media) => media.schema),
      ),
    ]),
  ];
  const eventId = '^evt_[0-9a-f]{32}$';
  for (const [name, schema] of schemas.flatMap((schema) => [...schemasIn(schema)])) {
    if (schema.type !== 'string') continue;
    // Every id is a uuid but an event's, the request's (req_…), an app's OAuth client id, an
    // app's own reference for a menu object (external_id, and a sync's references to them:
    // category_external_id, product_external_id) and the products list's category filter (ids or
    // `none`, comma-separated).
    const externalId = name === 'external_id' || name.endsWith('_external_id');
    if ((name === 'id' || name.endsWith('_id')) && name !== 'client_id' && !externalId) {
      const other =
        schema.pattern === eventId ||
        (name === 'request_id' && schema.pattern === '^req_') ||
        (name === 'category_id' && schema.pattern === categoryFilterPattern);
      assert.ok(schema.format === 'uuid' || other, `${name}: ${JSON.stringify(schema)}`);
    }
    if (name.endsWith('_at') || name.endsWith('_until')) assert.equal(schema.format, 'date-time', name);
    if (name === 'date') assert.equal(schema.format, 'date', name);
  }
  const getEvent = document.paths['/events/{id}']?.get as Operation;
  const [idParameter] = parametersOf(getEvent);
  assert.equal(idParameter?.schema.pattern, eventId);
  const event = getEvent.responses['200']?.content?.['application/json']?.schema as Schema;
  assert.equal(event.properties?.id?.pattern, eventId);
});

/**
 * A restaurant with five pending orders, newest first in GET /orders: its links give each operation
 * on an order one of them (orders are placed by guests, not through /v1).
 */
async function withPendingOrders(): Promise<OrderingTenant> {
  const tenant = await orderingTenant(t);
  for (let n = 0; n < 5; n += 1) await place(t, tenant);
  // Bookable too (the reservation examples): open every day, all day, with two tables.
  const hours = await t.app.inject({
    method: 'PUT',
    url: '/v1/store/hours',
    headers: { ...bearer(tenant.token), 'content-type': 'application/json' },
    payload: JSON.stringify({
      always_open: false,
      opening_hours: [0, 1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, open: '00:00', close: '00:00' })),
    }),
  });
  assert.equal(hours.statusCode, 200, hours.body);
  for (const label of ['1', '2']) await createTable({ ...t.ctx, tenantId: tenant.restaurantId }, { label });
  return tenant;
}

test('every parameter and request body has an example, and the requests they make succeed', async () => {
  const tenant = await withPendingOrders();
  const key = components().parameters['Idempotency-Key'];
  assert.match(String(key?.example), idempotencyKeyPattern);
  // In the document's order; DELETE /connection ends the token, so it goes last.
  const operations = operationsOf(document).sort(
    (a, b) => Number(a.path === '/connection') - Number(b.path === '/connection'),
  );
  // An object's operations address the one its collection's POST created (as the document's
  // links say), not the example id, which is no restaurant's.
  const created = new Map<string, string>();
  // Path values the document's links pass on from an earlier answer, per operation (an option is
  // created on its group's path, POST /menu/option-groups/{id}/options, and read at /menu/options/{id}).
  const linked = new Map<string, Record<string, string>>();
  // The orders GET /orders's links hand on (the filters of the list's examples find none of them).
  const listed = await t.app.inject({ method: 'GET', url: '/v1/orders', headers: bearer(tenant.token) });
  const links = detailsOf(
    (operationsOf(document).find((o) => o.path === '/orders') as { operation: Operation }).operation,
  ).responses['200'] as { links: Record<string, { parameters: { id: string } }> };
  for (const [operationId, link] of Object.entries(links.links)) {
    const index = Number(/data\/(\d+)\/id$/.exec(link.parameters.id)?.[1]);
    linked.set(operationId, { id: listed.json().data[index].id });
  }
  for (const { method, path, operation } of operations) {
    const name = `${method.toUpperCase()} ${path}`;
    let url = path;
    const query = new URLSearchParams();
    for (const parameter of parametersOf(operation)) {
      assert.ok(parameter?.example !== undefined, `${name}: ${parameter?.name} has an example`);
      if (parameter.in === 'path') {
        const value =
          linked.get(String(operation.operationId))?.[parameter.name] ??
          created.get(path.replace(`/{${parameter.name}}`, '')) ??
          parameter.example;
        url = url.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
      }
      if (parameter.in === 'query') query.set(parameter.name, String(parameter.example));
    }
    const body = detailsOf(operation).requestBody?.content['application/json'];
    if (body) assert.ok(body.example !== undefined, `${name}: its body has an example`);
    const res = await t.app.inject({
      method: method.toUpperCase() as 'GET',
      url: `/v1${url}${query.size > 0 ? `?${query}` : ''}`,
      headers: { ...bearer(tenant.token), ...(body && { 'content-type': 'application/json' }) },
      ...(body && { payload: JSON.stringify(body.example) }),
    });
    // The example event id is no connection's event: the one example that finds nothing.
    const answered = path === '/events/{id}' ? res.statusCode === 404 : res.statusCode < 300;
    assert.ok(answered, `${name} → ${res.statusCode} ${res.body}`);
    if (method === 'post' && res.statusCode === 201) created.set(path, res.json().id);
    const response = detailsOf(operation).responses[String(res.statusCode)] as
      | { links?: Record<string, { operationId: string; parameters: Record<string, string> }> }
      | undefined;
    const links = response?.links ?? {};
    for (const link of Object.values(links)) {
      for (const [name, expression] of Object.entries(link.parameters)) {
        if (expression !== '$response.body#/id') continue;
        linked.set(link.operationId, { ...linked.get(link.operationId), [name]: res.json().id });
      }
    }
  }
});

test('an answer that differs from the document is caught: status, body and headers', async () => {
  const wrong = apiRoute({
    method: 'GET',
    url: '/test/wrong',
    auth: { scopes: [] },
    schema: {
      operationId: 'testWrong',
      summary: 'answers what it says it does not',
      tags: ['Test'],
      querystring: Type.Object({ status: Type.Optional(Type.Integer()) }, { additionalProperties: false }),
      response: {
        200: Type.Object({ count: Type.Integer() }, { description: 'A count.' }),
        ...errorResponses(400, 401, 429, 500),
      },
    },
    // Sent as text, past the response schema's serializer, like any answer that is not what it says.
    handler: async (_ctx, request, _auth, reply) =>
      reply
        .code(request.query.status ?? 200)
        .header('retry-after', '5')
        .type('application/json')
        .send('{"count":"three"}'),
  });
  const wrongApp = await buildTestApp({ extraApiRoutes: [wrong] });
  try {
    const tenant = await makeTenant(wrongApp.ctx);
    await wrongApp.app.inject({ url: '/v1/test/wrong', headers: bearer(tenant.token) });
    await wrongApp.app.inject({ url: '/v1/test/wrong?status=418', headers: bearer(tenant.token) });
    // Its 401 (no token) is as documented: nothing to report.
    await wrongApp.app.inject({ url: '/v1/test/wrong' });
    assert.deepEqual(wrongApp.answerViolations, [
      'GET /v1/test/wrong → 200: body/count must be integer ({"type":"integer"})',
      'GET /v1/test/wrong → 200: header retry-after is sent but not declared for this answer',
      'GET /v1/test/wrong?status=418 → 418: the operation does not list status 418',
    ]);
  } finally {
    wrongApp.answerViolations.length = 0;
    await wrongApp.close();
  }
});

interface LintResult {
  exitCode: number;
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; message: string }>;
}

/** `redocly lint` in a child process (Node 24 from node_modules/.bin), offline, with our redocly.yaml. */
function redoclyLint(file: string): Promise<LintResult> {
  return new Promise((resolve, reject) => {
    execFile(
      path.join(bin, 'redocly'),
      ['lint', file, '--config', path.join(root, 'redocly.yaml'), '--format', 'json'],
      {
        cwd: root,
        timeout: hangCatcherMs,
        env: {
          ...process.env,
          PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        },
      },
      (error, stdout, stderr) => {
        const exitCode = error ? error.code : 0;
        if (typeof exitCode !== 'number') return reject(error);
        try {
          resolve({ exitCode, ...JSON.parse(stdout) });
        } catch {
          reject(new Error(`redocly lint exited ${exitCode} without a JSON report:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

test('redocly lint finds no problem in the document', async () => {
  const file = path.join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(document));
  const result = await redoclyLint(file);
  assert.deepEqual(result.problems, []);
  assert.deepEqual(result.totals, { ...result.totals, errors: 0, warnings: 0 });
  assert.equal(result.exitCode, 0);
});

test('redocly lint applies our rules: it refuses "Default Response" and an operation without a description', async () => {
  const poor = structuredClone(document);
  const [first] = operationsOf(poor);
  assert.ok(first);
  delete first.operation.description;
  const success = Object.keys(first.operation.responses).find((status) => status.startsWith('2'));
  assert.ok(success);
  const response = first.operation.responses[success];
  assert.ok(response);
  response.description = 'Default Response';
  const file = path.join(dir, 'poor.json');
  await writeFile(file, JSON.stringify(poor));
  const result = await redoclyLint(file);
  assert.equal(result.exitCode, 1);
  assert.deepEqual(result.problems.map((problem) => `${problem.severity} ${problem.ruleId}`).sort(), [
    'error operation-description',
    'error rule/response-description',
  ]);
});

/** The parts of newman's run summary this test reads. */
interface NewmanSummary {
  run: {
    failures: Array<{ at: string; error: { name: string; message: string }; source?: { name?: string } }>;
    executions: Array<{
      item: { id: string };
      request: { method: string; url: { getPath(): string } };
      response?: { code: number };
      requestError?: { message: string };
      assertions?: Array<{ assertion: string; skipped: boolean; error?: { message: string } }>;
    }>;
  };
}
interface NewmanRun {
  on(event: 'beforeItem', listener: (error: Error | null, args: { item: { id: string } }) => void): NewmanRun;
}
interface Newman {
  run(
    options: Record<string, unknown>,
    callback: (error: Error | null, summary: NewmanSummary) => void,
  ): NewmanRun;
}
const newman = createRequire(import.meta.url)('newman') as Newman;

interface PostmanItem {
  id: string;
  name: string;
  item?: PostmanItem[];
  request?: { method: string; url: { path: string[]; query?: Array<{ key: string; value: string }> } };
}
interface Collection {
  event?: unknown[];
  item: PostmanItem[];
  variable: Array<{ key: string; value: string }>;
}

/** `METHOD /path` of a request of the collection (path parameters as `:name`). */
function requestName(item: PostmanItem): string {
  return `${item.request?.method} /${item.request?.url.path.join('/')}`;
}

/** The service on a real socket (once for the file) and the collection it serves there. */
let served: Promise<{ origin: string; collection: Collection }> | undefined;
function servedCollection(): Promise<{ origin: string; collection: Collection }> {
  served ??= (async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const origin = `http://127.0.0.1:${port}`;
    const res = await fetch(`${origin}/v1/postman.json`);
    assert.equal(res.status, 200);
    return { origin, collection: (await res.json()) as Collection };
  })();
  return served;
}

/**
 * `newman run` of the served collection as it is, with a fresh tenant's token: the run's summary,
 * the ids of the requests it began (skipped ones too) and the tenant.
 */
async function newmanRun(variables: Record<string, string> = {}) {
  const { origin, collection } = await servedCollection();
  const tenant = await withPendingOrders();
  const begun: string[] = [];
  const summary = await new Promise<NewmanSummary>((resolve, reject) => {
    newman
      .run(
        {
          collection,
          envVar: Object.entries({
            baseUrl: `${origin}/v1`,
            bearerToken: tenant.token,
            // The service's day is the test clock's, not the machine's.
            today: t.clock.now().toISOString().slice(0, 10),
            ...variables,
          }).map(([key, value]) => ({ key, value })),
          // newman's bounds of a request and of the whole run, as hang-catchers only.
          timeoutRequest: hangCatcherMs,
          timeout: hangCatcherMs,
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      )
      .on('beforeItem', (_error, { item }) => begun.push(item.id));
  });
  const failures = summary.run.failures.map(
    (f) => `${f.at} ${f.source?.name}: ${f.error.name} ${f.error.message}`,
  );
  assert.deepEqual(failures, []);
  // Every request sent passed its tests: a documented 2xx status and a body matching its schema.
  for (const execution of summary.run.executions) {
    const name = `${execution.request.method} ${execution.request.url.getPath()}`;
    assert.equal(execution.requestError, undefined, name);
    assert.ok(
      execution.response && execution.response.code < 300,
      `${name} answered ${execution.response?.code}`,
    );
    assert.deepEqual(
      execution.assertions?.map((a) => [
        a.assertion.replace(/^Status is .*/, 'Status'),
        a.skipped,
        a.error ?? null,
      ]),
      [
        ['Status', false, null],
        ['The body matches the schema of its status', false, null],
      ],
      name,
    );
  }
  return { summary, begun, tenant, collection };
}

const destructiveRequests = [
  'PUT /menu',
  'DELETE /menu/categories/:id',
  'DELETE /menu/products/:id',
  'DELETE /menu/options/:id',
  'DELETE /menu/option-groups/:id',
  'PUT /store/hours',
  'DELETE /store/closures/:date',
  'POST /store/pause',
  'DELETE /store/pause',
  'DELETE /connection',
];

test('the collection has every operation, the destructive ones in its last folder, DELETE /connection last', async () => {
  const { collection } = await servedCollection();
  const requests = collection.item.flatMap((folder) => folder.item ?? []);
  assert.equal(requests.length, apiV1Routes.length);
  const last = collection.item.at(-1);
  assert.equal(last?.name, 'Destructive');
  assert.deepEqual(last.item?.map(requestName), destructiveRequests);
  for (const folder of collection.item.slice(0, -1)) {
    for (const item of folder.item ?? [])
      assert.ok(!destructiveRequests.includes(requestName(item)), requestName(item));
  }
  const variables = Object.fromEntries(collection.variable.map(({ key, value }) => [key, value]));
  assert.deepEqual(
    {
      baseUrl: variables.baseUrl,
      bearerToken: variables.bearerToken,
      runDestructive: variables.runDestructive,
      today: variables.today,
    },
    { baseUrl: `${testBaseUrl}/v1`, bearerToken: '', runDestructive: 'false', today: '' },
  );
  // Local dates in a query are the run's day ({{today}}, set by the collection's pre-request script).
  const availability = requests.find((item) => requestName(item) === 'GET /reservations/availability');
  const query = availability?.request?.url.query ?? [];
  assert.equal(query.find((parameter) => parameter.key === 'date')?.value, '{{today}}');
  assert.match(JSON.stringify(collection.event), /pm\.variables\.set\('today', new Date\(\)/);
});

test('newman runs the served collection: every request passes its tests, the destructive ones are skipped', async () => {
  const { summary, begun, tenant, collection } = await newmanRun();
  const requests = collection.item.flatMap((folder) => folder.item ?? []);
  const destructive = collection.item.at(-1)?.item ?? [];
  // Each request began; all but the destructive ones were sent, in the collection's order.
  assert.deepEqual(
    begun,
    requests.map((item) => item.id),
  );
  assert.deepEqual(
    summary.run.executions.map((execution) => execution.item.id),
    requests.filter((item) => !destructive.includes(item)).map((item) => item.id),
  );
  const me = await t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(tenant.token) });
  assert.equal(me.statusCode, 200);
  // Making the collection left the served document as it was.
  const again = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
  assert.deepEqual(again.json(), document);
});

test('with runDestructive=true newman also sends the destructive requests, which pass, DELETE /connection last', async () => {
  const { summary, tenant, collection } = await newmanRun({ runDestructive: 'true' });
  const requests = collection.item.flatMap((folder) => folder.item ?? []);
  assert.deepEqual(
    summary.run.executions.map((execution) => execution.item.id),
    requests.map((item) => item.id),
  );
  const last = summary.run.executions.at(-1);
  assert.equal(`${last?.request.method} ${last?.request.url.getPath()}`, 'DELETE /v1/connection');
  const me = await t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(tenant.token) });
  assert.equal(me.statusCode, 401);
});
