import Type from 'typebox';
import { errorStatus } from '../../domain/errors.ts';

export const ErrorSchema = Type.Object({
  error: Type.Object({
    code: Type.Enum(Object.keys(errorStatus)),
    message: Type.String(),
    request_id: Type.String({ pattern: '^req_' }),
    param: Type.Optional(Type.String()),
  }),
});

const descriptions: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing or invalid access token',
  403: 'Scope, plan or subscription does not allow this',
  404: 'No such object in this restaurant',
  409: 'Conflict',
  413: 'Body too large',
  422: 'Unprocessable',
  429: 'Too many requests',
  500: 'Service-side failure',
};

/** The error answers of an operation, for its schema (and so for the OpenAPI document). */
export function errorResponses(...statuses: number[]): Record<number, unknown> {
  return Object.fromEntries(
    statuses.map((status) => [status, { ...ErrorSchema, description: descriptions[status] }]),
  );
}
