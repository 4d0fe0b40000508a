import type { FastifyInstance } from 'fastify';
import { InvalidRequest } from '../../domain/oauth/oauth-errors.ts';
import { textProblem } from '../../domain/shared/text.ts';

/** The parameters of an OAuth request body; an omitted one is undefined. */
export type OAuthForm = Readonly<Record<string, string | undefined>>;

export const formBodyLimit = 8 * 1024;

/*
 * Request bodies of the token and revocation endpoints (spec: Token request, Limits), in the scope
 * of those routes only:
 * - application/x-www-form-urlencoded only: every other parser is removed, so any other content
 *   type is refused (→ invalid_request);
 * - at most 8 KB, counted in bytes (→ invalid_request);
 * - each parameter at most once: a repeat → invalid_request;
 * - a parameter without a value counts as omitted (RFC 6749 §3.2);
 * - UTF-8 text only (see parseForm).
 */
export function acceptOnlyFormBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: formBodyLimit },
    (_request, body, done) => {
      try {
        done(null, parseForm(body as string));
      } catch (error) {
        done(error as InvalidRequest, undefined);
      }
    },
  );
}

/*
 * - percent-escapes must decode to UTF-8 and every value must pass the text rule
 *   (src/domain/shared/text.ts): refused, never replaced by U+FFFD
 */
function parseForm(body: string): Record<string, string> {
  const form: Record<string, string> = Object.create(null);
  const seen = new Set<string>();
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeFormPart(eq === -1 ? pair : pair.slice(0, eq));
    const value = decodeFormPart(eq === -1 ? '' : pair.slice(eq + 1));
    if (seen.has(name)) throw new InvalidRequest(`The parameter ${name} is repeated.`);
    seen.add(name);
    const problem = textProblem(name) ?? textProblem(value);
    if (problem) throw new InvalidRequest(`The parameter ${name} ${problem}.`);
    if (value !== '') form[name] = value;
  }
  return form;
}

function decodeFormPart(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new InvalidRequest('The body is not form-urlencoded UTF-8.');
  }
}

/** The parsed form of a request; a request without a body → invalid_request. */
export function formOf(body: unknown): OAuthForm {
  if (body === undefined || body === null || typeof body !== 'object')
    throw new InvalidRequest('Send the parameters as an application/x-www-form-urlencoded body.');
  return body as OAuthForm;
}
