import { parse as parseContentType } from 'content-type';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from '../../domain/shared/errors.ts';
import { bidiControls } from '../../domain/shared/text.ts';
import { parsedWithoutEscapes } from './validation.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/*
 * JSON request bodies (spec: Conventions, "JSON, UTF-8"), the same on every surface:
 * - the media type compares case-insensitively (`APPLICATION/JSON` is JSON); a `charset` other
 *   than UTF-8 is refused, never guessed;
 * - the bytes must be UTF-8: invalid ones are refused, never replaced by U+FFFD;
 * - the text must be JSON, without `__proto__` or `constructor.prototype` keys;
 * - an empty body is refused, or read as `{}` where bodiless writes send the JSON type anyway
 *   (the console's and dashboard's CSRF rule).
 * Strings inside are checked by the text rule with the schema (validation.ts).
 */
export function acceptJsonBodies(app: FastifyInstance, empty: 'refuse' | 'as-empty-object'): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, parseJsonBody(request, body as Buffer, empty));
    } catch (error) {
      done(error as ApiError, undefined);
    }
  });
}

function charsetOf(contentType: string): string | undefined {
  try {
    return parseContentType(contentType).parameters.charset?.toLowerCase();
  } catch {
    throw new ApiError('invalid_request', 'The Content-Type header is malformed.');
  }
}

function parseJsonBody(request: FastifyRequest, body: Buffer, empty: 'refuse' | 'as-empty-object'): unknown {
  const charset = charsetOf(request.headers['content-type'] ?? '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    throw new ApiError('invalid_request', 'Request bodies must be UTF-8 (charset=utf-8 or none).');
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new ApiError('invalid_request', 'The body is not valid UTF-8.');
  }
  if (text.trim() === '') {
    if (empty === 'as-empty-object') return {};
    throw new ApiError('invalid_request', 'The body is empty although Content-Type says JSON.');
  }
  let parsed: unknown;
  try {
    parsed = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw new ApiError('invalid_request', 'The body is not valid JSON.');
  }
  if (!text.includes('\\u') && !bidiControls.test(text)) parsedWithoutEscapes(parsed);
  return parsed;
}

/*
 * GET and HEAD take no body: one sent anyway is a 400 rather than ignored (Fastify does not read
 * it), so a client that thinks it sent parameters learns that it did not.
 */
export async function refuseBodiesOfBodilessMethods(request: FastifyRequest): Promise<void> {
  // An unknown path stays a 404 (paths are checked first).
  if ((request.method !== 'GET' && request.method !== 'HEAD') || request.is404) return;
  const length = request.headers['content-length'];
  if (request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0'))
    throw new ApiError('invalid_request', 'This operation takes no request body.');
}
