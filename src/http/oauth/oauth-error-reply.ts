import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequest, OAuthError, ServerError } from '../../domain/oauth/oauth-errors.ts';
import { formBodyLimit } from './form-body.ts';

/** The one renderer of the OAuth endpoints' errors: `{error, error_description}` with the code's status. */
export function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error: error.code, error_description: error.message }));
}

/** Our OAuth errors as they are; Fastify's (body too large, other content type, unreadable body) as invalid_request. */
export function toOAuthError(error: FastifyError): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413)
    return new InvalidRequest(`The body may have at most ${formBodyLimit} bytes.`);
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new InvalidRequest('Send the parameters as an application/x-www-form-urlencoded body.');
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
    return new InvalidRequest(error.message);
  return new ServerError();
}

export function oauthErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const oauthError = toOAuthError(error);
  if (oauthError.status >= 500) request.log.error({ err: error }, 'OAuth request failed');
  return sendOAuthError(reply, oauthError);
}
