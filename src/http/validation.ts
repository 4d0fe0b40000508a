import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ApiError } from '../domain/errors.ts';

/*
 * Request validation. Unknown fields are never stripped: every object schema is closed
 * (additionalProperties: false), so an unknown field or query parameter is a 400 with `param`.
 * Bodies are taken as sent (no type coercion); query strings and path parameters are text, so
 * they are coerced to the schema's types.
 */
function ajv(coerce: boolean): Ajv {
  const instance = new Ajv({
    allErrors: false,
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerce,
    strict: false,
  });
  addFormats.default(instance);
  return instance;
}

const strict = ajv(false);
const coercing = ajv(true);

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema);

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

/** The 400 for a failed schema check of one part of the request. */
export function validationError(error: ErrorObject, part: string): ApiError {
  const where = part === 'querystring' ? 'query parameter' : part === 'params' ? 'path parameter' : 'field';
  switch (error.keyword) {
    case 'additionalProperties': {
      const param = paramOf(error.instancePath, String(error.params.additionalProperty));
      return new ApiError('invalid_request', `Unknown ${where}: ${param}.`, { param });
    }
    case 'required': {
      const param = paramOf(error.instancePath, String(error.params.missingProperty));
      return new ApiError('invalid_request', `Missing required ${where}: ${param}.`, { param });
    }
    default: {
      const param = paramOf(error.instancePath);
      if (!param)
        return new ApiError(
          'invalid_request',
          `The request ${part === 'body' ? 'body' : where} ${error.message}.`,
        );
      return new ApiError('invalid_request', `Invalid ${where} ${param}: ${error.message}.`, { param });
    }
  }
}
