import Converter from 'openapi-to-postmanv2';
import { type Destructive, destructiveExtension } from './api-route.ts';

/*
 * The Postman collection of the public API, converted from the OpenAPI document and made safe to
 * run as it is (`newman run`, or Run in Postman):
 * - requests send the documented examples; optional query parameters and headers are listed but
 *   switched off (one `Idempotency-Key` example sent to two POSTs would be refused as reused);
 * - every request tests its answer: a documented 2xx status and a body matching that status's
 *   schema (inlined from the document);
 * - a value a request needs from an earlier answer (an OpenAPI link of the earlier operation, e.g.
 *   an event id from the list) is passed on in a collection variable;
 * - destructive operations (`x-destructive`) are moved to the last folder, which skips them unless
 *   `runDestructive` is `true`; one that ends access runs last of all;
 * - a local-date query parameter (`format: date`) sends `{{today}}`, the run's UTC date unless the
 *   variable is given: the documented example is a fixed date, and availability answers only for
 *   dates from yesterday to a year ahead.
 */

const destructiveFolder = 'Destructive';

const howToRun =
  'Running the collection: set `baseUrl` (this installation’s `…/v1`) and `bearerToken` (an access token ' +
  'of a connection to a test restaurant), e.g. `newman run postman.json --env-var baseUrl=… --env-var ' +
  'bearerToken=…`. Every request sends the documented examples and tests that the answer has a documented ' +
  '2xx status and a body matching its schema. The requests that end the connection, remove or replace the ' +
  `restaurant’s data or stop it taking orders are in the last folder, ${destructiveFolder}, and are skipped ` +
  'unless `runDestructive` is `true` (`--env-var runDestructive=true`); `DELETE /connection` then runs last ' +
  'and revokes the token. Skipping needs newman 6.1.1 or later, or a current Postman: older runners would ' +
  'send them. Local dates in query parameters are today’s (UTC) unless `today` is set.';

const folderDescription =
  'Requests that end the connection, remove or replace the restaurant’s data or stop it taking orders. ' +
  'The folder’s pre-request script skips each of them unless the variable `runDestructive` is `true`; ' +
  '`DELETE /connection` comes last, since it revokes the token.';

type Json = Record<string, unknown>;
interface Link {
  operationId: string;
  parameters: Record<string, string>;
}
interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; schema?: Json }[];
  [destructiveExtension]?: Destructive;
  responses: Record<string, { content?: Record<string, { schema: Json }>; links?: Record<string, Link> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Json> };
}

interface Variable {
  key: string;
  value: string;
  type?: string;
  description?: string;
}
interface Script {
  listen: 'prerequest' | 'test';
  script: { type: 'text/javascript'; exec: string[] };
}
interface Item {
  name: string;
  description?: string;
  item?: Item[];
  event?: Script[];
  request?: {
    method: string;
    url: { path: string[]; variable?: Variable[]; query?: { key: string; value: string }[] };
  };
}
interface Collection {
  info: { description: { content: string; type: string } };
  item: Item[];
  event?: Script[];
  variable?: Variable[];
}

/** The collection of an OpenAPI document of the API (`app.swagger()`, which it leaves as it is). */
export async function postmanCollection(openapi: object): Promise<Collection> {
  const document = openapi as Document;
  const collection = await convert(document);
  const requests = collection.item
    .flatMap((folder) => folder.item ?? [])
    .map((item) => ({ item, operation: operationFor(document, item) }));
  const byOperationId = new Map(requests.map((request) => [request.operation.operationId, request.item]));
  const variables: Variable[] = [];

  for (const { item, operation } of requests) {
    // Per status: collection variable → keys of its value in the answer.
    const passOn: Record<string, Record<string, string[]>> = {};
    for (const [status, response] of Object.entries(operation.responses)) {
      for (const link of Object.values(response.links ?? {})) {
        const target = byOperationId.get(link.operationId);
        for (const [parameter, expression] of Object.entries(link.parameters)) {
          const key = `${link.operationId}.${parameter}`;
          passOn[status] = { ...passOn[status], [key]: responsePointer(expression) };
          const pathVariable = target?.request?.url.variable?.find((variable) => variable.key === parameter);
          if (!pathVariable)
            throw new Error(`${operation.operationId}: no ${link.operationId} with {${parameter}}`);
          if (variables.some((variable) => variable.key === key)) continue;
          variables.push({
            key,
            value: pathVariable.value,
            type: 'string',
            description: `\`${parameter}\` of ${link.operationId}: from the answer of ${operation.operationId} in a run, else the documented example.`,
          });
          pathVariable.value = `{{${key}}}`;
        }
      }
    }
    item.event = [script('test', testScript(document, operation, passOn))];
    const localDates = (operation.parameters ?? [])
      .filter((parameter) => parameter.in === 'query' && parameter.schema?.format === 'date')
      .map((parameter) => parameter.name);
    for (const query of item.request?.url.query ?? []) {
      if (localDates.includes(query.key)) query.value = '{{today}}';
    }
  }

  // A request ending access runs after the other destructive ones (the sort is stable).
  const destructive = requests
    .filter(({ operation }) => operation[destructiveExtension])
    .sort((a, b) => Number(endsAccess(a.operation)) - Number(endsAccess(b.operation)))
    .map(({ item }) => item);
  const folders = collection.item
    .map((folder) => ({ ...folder, item: folder.item?.filter((item) => !destructive.includes(item)) }))
    .filter((folder) => folder.item?.length);
  const { description } = collection.info;
  return {
    ...collection,
    info: {
      ...collection.info,
      description: { ...description, content: `${description.content}\n\n${howToRun}` },
    },
    event: [
      script('prerequest', [
        "if (!pm.variables.get('today')) pm.variables.set('today', new Date().toISOString().slice(0, 10));",
      ]),
    ],
    item: [
      ...folders,
      {
        name: destructiveFolder,
        description: folderDescription,
        event: [
          script('prerequest', [
            "if (String(pm.variables.get('runDestructive')) !== 'true') pm.execution.skipRequest();",
          ]),
        ],
        item: destructive,
      },
    ],
    variable: [
      ...(collection.variable ?? []),
      {
        key: 'bearerToken',
        value: '',
        type: 'string',
        description: 'An access token of the app’s connection to a restaurant (svc_at_…).',
      },
      {
        key: 'runDestructive',
        value: 'false',
        type: 'string',
        description: `\`true\`: a run also sends the requests of the ${destructiveFolder} folder, ending the connection last.`,
      },
      {
        key: 'today',
        value: '',
        type: 'string',
        description:
          'The local date query parameters send (`YYYY-MM-DD`); empty: today’s UTC date when the run starts a request.',
      },
      ...variables,
    ],
  };
}

function endsAccess(operation: Operation): boolean {
  return operation[destructiveExtension] === 'access';
}

function convert(document: Document): Promise<Collection> {
  return new Promise((resolve, reject) => {
    Converter.convert(
      // A copy: the converter changes the document it is given.
      { type: 'json', data: structuredClone(document) },
      {
        folderStrategy: 'Tags',
        requestParametersResolution: 'Example',
        exampleParametersResolution: 'Example',
        // Optional query parameters and headers are listed with their examples, switched off.
        enableOptionalParameters: false,
        // One bearer authentication on the collection, {{bearerToken}}, which every request inherits.
        alwaysInheritAuthentication: true,
      },
      (error, result) => {
        if (error) return reject(error);
        const first = result.result ? result.output?.[0] : undefined;
        if (!first) return reject(new Error(`OpenAPI to Postman failed: ${result.reason}`));
        resolve(first.data as Collection);
      },
    );
  });
}

/** The operation a converted request was made from (its path `:name` is the document's `{name}`). */
function operationFor(document: Document, item: Item): Operation {
  const request = item.request;
  const path = `/${request?.url.path.map((part) => part.replace(/^:(.+)$/, '{$1}')).join('/')}`;
  const operation = request && document.paths[path]?.[request.method.toLowerCase()];
  if (!operation) throw new Error(`no operation for ${request?.method} ${path}`);
  return operation;
}

/** The keys of a link's `$response.body#/…` JSON pointer (the only kind of link expression used). */
function responsePointer(expression: string): string[] {
  const pointer = /^\$response\.body#(\/.*)$/.exec(expression)?.[1];
  if (pointer === undefined) throw new Error(`unsupported link expression ${expression}`);
  return pointer
    .slice(1)
    .split('/')
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Tests of the documented 2xx status and schema, then the values passed on to later requests. */
function testScript(
  document: Document,
  operation: Operation,
  passOn: Record<string, Record<string, string[]>>,
): string[] {
  const schemas: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!status.startsWith('2')) continue;
    const schema = response.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${operation.operationId} ${status}: no JSON schema to test the body with`);
    schemas[status] = inlined(schema, document.components?.schemas ?? {});
  }
  const lines = [
    `const schemas = ${JSON.stringify(schemas, null, 2)};`,
    `pm.test('Status is ${Object.keys(schemas).join(' or ')}', () => pm.expect(String(pm.response.code)).to.be.oneOf(Object.keys(schemas)));`,
    "pm.test('The body matches the schema of its status', () => {",
    "  pm.expect(Object.keys(schemas), 'a documented status').to.include(String(pm.response.code));",
    '  pm.response.to.have.jsonSchema(schemas[pm.response.code]);',
    '});',
  ];
  if (Object.keys(passOn).length > 0) {
    lines.push(
      '// Values later requests take from this answer (OpenAPI links).',
      `const passOn = ${JSON.stringify(passOn)};`,
      'for (const [variable, pointer] of Object.entries(passOn[pm.response.code] ?? {})) {',
      '  const value = pointer.reduce((value, key) => value?.[key], pm.response.json());',
      '  if (value !== undefined) pm.collectionVariables.set(variable, value);',
      '}',
    );
  }
  return lines.flatMap((line) => line.split('\n'));
}

/** `schema` with every `#/components/schemas/…` reference replaced by the schema it names. */
function inlined(schema: unknown, components: Record<string, Json>, names: string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((part) => inlined(part, components, names));
  if (typeof schema !== 'object' || schema === null) return schema;
  const { $ref, ...rest } = schema as Json;
  const own = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, inlined(value, components, names)]),
  );
  if ($ref === undefined) return own;
  const name = String($ref).replace(/^#\/components\/schemas\//, '');
  const target = components[name];
  if (!target || names.includes(name)) throw new Error(`cannot inline ${String($ref)}`);
  return { ...(inlined(target, components, [...names, name]) as Json), ...own };
}

function script(listen: Script['listen'], exec: string[]): Script {
  return { listen, script: { type: 'text/javascript', exec } };
}
