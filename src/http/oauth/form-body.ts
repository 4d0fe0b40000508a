import type { FastifyInstance } from 'fastify';
import { InvalidRequest } from '../../domain/oauth/oauth-errors.ts';

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
 * - a parameter without a value counts as omitted (RFC 6749 §3.2).
 */
export function acceptOnlyFormBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: formBodyLimit },
    (_request, body, done) => {
      const form: Record<string, string> = Object.create(null);
      const seen = new Set<string>();
      for (const [name, value] of new URLSearchParams(body as string)) {
        if (seen.has(name)) return done(new InvalidRequest(`The parameter ${name} is repeated.`), undefined);
        seen.add(name);
        if (value !== '') form[name] = value;
      }
      done(null, form);
    },
  );
}

/** The parsed form of a request; a request without a body → invalid_request. */
export function formOf(body: unknown): OAuthForm {
  if (body === undefined || body === null || typeof body !== 'object')
    throw new InvalidRequest('Send the parameters as an application/x-www-form-urlencoded body.');
  return body as OAuthForm;
}
