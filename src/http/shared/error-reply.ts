import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/shared/errors.ts';
import { validationError } from './validation.ts';

export interface ErrorBody {
  error: { code: string; message: string; request_id: string; param?: string };
}

/** The one shape of every API error: `{error: {code, message, request_id, param?}}`. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  const body: ErrorBody = {
    error: { code: error.code, message: error.message, request_id: String(request.id) },
  };
  if (error.param !== undefined) body.error.param = error.param;
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(body));
}

/** What the service answers for any error: our own ApiErrors as they are, Fastify's mapped onto the spec's codes. */
export function toApiError(error: FastifyError): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation?.[0])
    return validationError(error.validation[0] as never, error.validationContext ?? 'body');
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is larger than this operation accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_request', 'Request bodies must be sent as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'The body is empty although Content-Type says JSON.');
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_request', 'The path is not percent-encoded UTF-8.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('invalid_request', 'A part of the path is longer than any this API takes.');
  }
  if (error.statusCode === 413) {
    return new ApiError('payload_too_large', 'The request body is larger than this operation accepts.');
  }
  // Fastify's own 4xx (invalid JSON, a bad Content-Length, …): the client's mistake.
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError(
      'invalid_request',
      error instanceof SyntaxError ? 'The body is not valid JSON.' : error.message,
    );
  }
  return new ApiError('server_error', 'Something went wrong on our side. Retry with growing delays.');
}

export function errorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const apiError = toApiError(error);
  if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
  return sendError(request, reply, apiError);
}
