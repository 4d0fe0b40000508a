import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ApiError } from '../../domain/shared/errors.ts';
import { textProblem } from '../../domain/shared/text.ts';
import { parseTimestamp } from '../../domain/shared/timestamps.ts';

/*
 * Request validation, the same for every surface. Unknown fields are never stripped: every object
 * schema is closed (additionalProperties: false), so an unknown field or query parameter is a 400
 * with `param`. Bodies are taken as sent (no type coercion); query strings and path parameters are
 * text, so they are coerced to the schema's types — numbers only from decimal digits (`0x10`,
 * `1e1`, ` 1` are refused). Before the schema, every string of every part must pass the text rule
 * (src/domain/shared/text.ts); `date-time` is the one timestamp reader (src/domain/shared/timestamps.ts) and
 * `date` a real calendar date.
 */
function ajv(coerce: boolean, allErrors = false): Ajv {
  const instance = new Ajv({
    allErrors,
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerce,
    strict: false,
  });
  addFormats.default(instance);
  instance.addFormat('date-time', { type: 'string', validate: (text) => parseTimestamp(text) !== null });
  return instance;
}

const strict = ajv(false);
const coercing = ajv(true);
/** For a page's form, which shows every problem of a submit at once. */
const everyProblem = ajv(false, true);

type Problem = Pick<ErrorObject, 'keyword' | 'instancePath' | 'message'>;

/*
 * Bodies parsed from JSON text without any `\u` escape nor a bidirectional control: JSON carries a
 * NUL or a lone surrogate only as such an escape (raw, they are no JSON or no UTF-8, refused by
 * json-body.ts), so no string in them can break the text rule and the walk below is skipped.
 */
const escapeFree = new WeakSet<object>();

/** Records that `body` was parsed from JSON text without `\u` escapes. */
export function parsedWithoutEscapes(body: unknown): void {
  if (typeof body === 'object' && body !== null) escapeFree.add(body);
}

/**
 * The first string in `value` (a parsed body, query or path parameters) that breaks the text rule.
 * Its path is built only once one is found: a body may hold tens of thousands of strings.
 */
export function textProblemIn(value: unknown): Problem | null {
  if (typeof value === 'object' && value !== null && escapeFree.has(value)) return null;
  const keys: string[] = [];
  const walk = (item: unknown): string | null => {
    if (typeof item === 'string') return textProblem(item);
    if (typeof item !== 'object' || item === null) return null;
    for (const key in item) {
      if (!Object.hasOwn(item, key)) continue;
      keys.push(key);
      const message = walk((item as Record<string, unknown>)[key]);
      if (message !== null) return message;
      keys.pop();
    }
    return null;
  };
  const message = walk(value);
  if (message === null) return null;
  const instancePath = keys.map((key) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  return { keyword: 'text', instancePath, message };
}

const decimal = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?$/ } as const;

/** The first query or path parameter sent for a number that is not written in decimal digits. */
function nonDecimalNumber(
  schema: { properties?: Record<string, { type?: unknown }> },
  data: unknown,
): Problem | null {
  if (typeof data !== 'object' || data === null) return null;
  for (const [name, value] of Object.entries(data)) {
    const type = schema.properties?.[name]?.type;
    if (typeof value !== 'string' || (type !== 'integer' && type !== 'number')) continue;
    if (!decimal[type].test(value))
      return { keyword: 'type', instancePath: `/${name}`, message: 'must be written in decimal digits' };
  }
  return null;
}

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const validate: ValidateFunction = (httpPart === 'body' ? strict : coercing).compile(schema);
  const checked = (data: unknown) => {
    const problem =
      textProblemIn(data) ?? (httpPart === 'body' ? null : nonDecimalNumber(schema as never, data));
    checked.errors = problem ? [problem as ErrorObject] : null;
    if (problem) return false;
    const valid = validate(data);
    checked.errors = validate.errors ?? null;
    return valid;
  };
  checked.errors = null as ErrorObject[] | null;
  return checked;
};

/** `/products/3/price` → `products[3].price` */
export function paramOf(instancePath: string, child?: string): string | undefined {
  const parts = instancePath.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  let param = '';
  for (const part of parts) {
    const name = part.replace(/~1/g, '/').replace(/~0/g, '~');
    param += /^\d+$/.test(name) ? `[${name}]` : param ? `.${name}` : name;
  }
  return param || undefined;
}
/** What a value of each format must be, in the words of a 400's message. */
const formatHints: Record<string, string> = {
  'date-time': 'a timestamp naming an instant, with Z or an offset (RFC 3339, e.g. 2030-06-30T18:00:00Z)',
  date: 'a date that exists, YYYY-MM-DD',
  uuid: 'a UUID',
};

/** The 400 for a failed schema check of one part of the request. */
export function validationError(error: ErrorObject, part: string): ApiError {
  const where = part === 'querystring' ? 'query parameter' : part === 'params' ? 'path parameter' : 'field';
  if (error.keyword === 'additionalProperties') {
    const param = paramOf(error.instancePath, String(error.params.additionalProperty));
    return new ApiError('invalid_request', `Unknown ${where}: ${param}.`, { param });
  }
  if (error.keyword === 'required') {
    const param = paramOf(error.instancePath, String(error.params.missingProperty));
    return new ApiError('invalid_request', `Missing required ${where}: ${param}.`, { param });
  }
  const param = paramOf(error.instancePath);
  if (!param)
    return new ApiError(
      'invalid_request',
      `The request ${part === 'body' ? 'body' : where} ${error.message}.`,
    );
  const hint = error.keyword === 'format' ? formatHints[String(error.params.format)] : undefined;
  const message = hint === undefined ? error.message : `must be ${hint}`;
  return new ApiError('invalid_request', `Invalid ${where} ${param}: ${message}.`, { param });
}

/**
 * A value built from a page's form, checked against the JSON API's schema of the same input, so
 * that a page accepts exactly what the API does; else the 400 the API would answer (with `param`).
 */
export function checkedInput<T>(schema: object, value: T): T {
  const validate = strict.compile(schema);
  const problem = validate(value) ? textProblemIn(value) : (validate.errors?.[0] ?? null);
  if (problem) throw validationError(problem as never, 'body');
  return value;
}

/**
 * Every field of `value` the API's schema of the input refuses (their `param`s, each once), for a
 * page's form to show all of a submit's errors at once: checkedInput stops at the first, as the
 * API's answer names one.
 */
export function inputProblems(schema: object, value: unknown): string[] {
  const validate = everyProblem.compile(schema);
  const text = textProblemIn(value);
  const problems = text ? [text] : validate(value) ? [] : (validate.errors ?? []);
  const params = problems.map((problem) => validationError(problem as ErrorObject, 'body').param);
  return [...new Set(params.filter((param): param is string => param !== undefined))];
}
