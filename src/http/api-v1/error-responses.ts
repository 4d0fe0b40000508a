import Type from 'typebox';
import { type ErrorCode, errorStatus } from '../../domain/shared/errors.ts';

/** The body of every error answer of the public API (spec: Errors). */
export const ErrorSchema = Type.Object({
  error: Type.Object({
    code: Type.Enum(Object.keys(errorStatus), {
      type: 'string',
      description: 'What went wrong, from a closed list; each code always comes with the same HTTP status.',
    }),
    message: Type.String({ description: 'An explanation for the developer; its wording may change.' }),
    request_id: Type.String({
      pattern: '^req_',
      description: 'The request this answers, as in the X-Request-Id header; quote it when asking for help.',
    }),
    param: Type.Optional(
      Type.String({ description: 'The parameter, body field or header at fault, when there is one.' }),
    ),
  }),
});

/** Name of the Error schema among the OpenAPI document's components. */
export const errorSchemaName = 'Error';

/** What each error status means for the client (spec: Errors, Codes and Retry guidance). */
const descriptions: Record<number, string> = {
  400: 'A missing or wrong parameter or body field, invalid JSON, an unknown field or query parameter, or a timestamp without a zone; `param` names it. Fix the request; do not retry it unchanged.',
  401: 'No access token, or one that is expired or revoked, of a connection that is gone or of a suspended app. Refresh the token once and retry.',
  403: "The restaurant's subscription is inactive, the token lacks a scope the operation needs (`WWW-Authenticate` names it), or the restaurant's plan lacks the feature. Do not retry.",
  404: "No such object in this restaurant (another restaurant's objects are never found).",
  405: 'The method does not exist on this path; the `Allow` header lists those that do.',
  409: 'The request collides with the current state: the same data changed elsewhere at the same moment, a request with the same Idempotency-Key is still running, or the change is not possible now.',
  413: 'The request body is larger than the operation accepts (64 KB; 2 MB for `PUT /menu`), counted in bytes.',
  422: 'The Idempotency-Key was used for a different method, path or body, or the request exceeds a limit. Do not retry unchanged.',
  429: 'Over 120 requests per minute on the connection (or too many failed authentications from the address); wait as long as `Retry-After` says.',
  500: 'A service-side failure; retry with growing delays and the same Idempotency-Key.',
};

function codesOf(status: number): ErrorCode[] {
  return (Object.keys(errorStatus) as ErrorCode[]).filter((code) => errorStatus[code] === status);
}

/**
 * The error answers of an operation, for its schema (and so for the OpenAPI document): each status
 * with the Error schema and a description naming its error codes. Only the spec's error statuses
 * (those of `errorStatus`) may be listed.
 */
export function errorResponses(...statuses: number[]): Record<number, unknown> {
  return Object.fromEntries(
    statuses.map((status) => {
      const codes = codesOf(status);
      const description = descriptions[status];
      if (codes.length === 0 || description === undefined) {
        throw new Error(`${status} is not one of the API's error statuses`);
      }
      const list = codes.map((code) => `\`${code}\``).join(', ');
      const label = codes.length > 1 ? 'Error codes' : 'Error code';
      return [status, { ...ErrorSchema, description: `${description} ${label}: ${list}.` }];
    }),
  );
}
