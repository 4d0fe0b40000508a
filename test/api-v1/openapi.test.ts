import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { apiV1Routes } from '../../src/http/api-v1/routes.ts';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp, testBaseUrl } from '../harness.ts';

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
let tenant: Tenant;
let dir: string;
let document: Document;

before(async () => {
  t = await buildTestApp();
  tenant = await makeTenant(t.ctx);
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
        timeout: 30_000,
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
      item: { name: string };
      request: { method: string; url: { getPath(): string } };
      response?: { code: number };
      requestError?: { message: string };
      assertions?: Array<{ assertion: string; skipped: boolean; error?: { message: string } }>;
    }>;
  };
}
interface Newman {
  run(
    options: Record<string, unknown>,
    callback: (error: Error | null, summary: NewmanSummary) => void,
  ): unknown;
}
const newman = createRequire(import.meta.url)('newman') as Newman;

interface PostmanItem {
  name: string;
  item?: PostmanItem[];
  request?: { method: string; url: { path: string[] } };
  event?: unknown[];
}

function requestsOf(items: PostmanItem[]): PostmanItem[] {
  return items.flatMap((item) => (item.item ? requestsOf(item.item) : [item]));
}

test('newman runs the Postman collection against the listening service: GET /me answers 200', async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const res = await fetch(`${origin}/v1/postman.json`);
  assert.equal(res.status, 200);
  const collection = (await res.json()) as {
    item: PostmanItem[];
    variable: Array<{ key: string; value: string }>;
  };
  assert.deepEqual(
    collection.variable.map(({ key, value }) => [key, value]),
    [
      ['baseUrl', `${testBaseUrl}/v1`],
      ['bearerToken', ''],
    ],
  );

  const requests = requestsOf(collection.item);
  const isEndConnection = (item: PostmanItem) =>
    item.request?.method === 'DELETE' && item.request.url.path.join('/') === 'connection';
  // Ending the connection revokes the token: that request runs last, so the others keep a valid one.
  collection.item = [
    ...requests.filter((item) => !isEndConnection(item)),
    ...requests.filter(isEndConnection),
  ];
  const me = requests.find(
    (item) => item.request?.method === 'GET' && item.request.url.path.join('/') === 'me',
  );
  assert.ok(me, 'the collection has GET /me');
  me.event = [
    {
      listen: 'test',
      script: {
        type: 'text/javascript',
        exec: ["pm.test('GET /me answers 200', () => pm.response.to.have.status(200));"],
      },
    },
  ];

  const summary = await new Promise<NewmanSummary>((resolve, reject) => {
    newman.run(
      {
        collection,
        envVar: [
          { key: 'baseUrl', value: `${origin}/v1` },
          { key: 'bearerToken', value: tenant.token },
        ],
        timeoutRequest: 10_000,
        timeout: 40_000,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });

  const failures = summary.run.failures.map(
    (f) => `${f.at} ${f.source?.name}: ${f.error.name} ${f.error.message}`,
  );
  assert.deepEqual(failures, []);
  const executions = summary.run.executions;
  assert.equal(executions.length, requests.length);
  for (const execution of executions) {
    const name = `${execution.request.method} ${execution.request.url.getPath()}`;
    assert.equal(execution.requestError, undefined, name);
    assert.ok(execution.response, name);
    assert.ok(execution.response.code < 500, `${name} answered ${execution.response.code}`);
  }
  const meRun = executions.find((e) => e.request.method === 'GET' && e.request.url.getPath() === '/v1/me');
  assert.ok(meRun, 'GET /me ran');
  assert.equal(meRun.response?.code, 200);
  assert.deepEqual(
    meRun.assertions?.map((a) => [a.assertion, a.skipped, a.error?.message ?? null]),
    [['GET /me answers 200', false, null]],
  );
  // The run's DELETE /connection did use the token: it is revoked now.
  const afterwards = await t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(tenant.token) });
  assert.equal(afterwards.statusCode, 401);
  // Making the collection left the served document as it was.
  const again = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
  assert.deepEqual(again.json(), document);
});
