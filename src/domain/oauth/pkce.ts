import { createHash } from 'node:crypto';
import { InvalidGrant } from './oauth-errors.ts';

/*
 * PKCE, method S256 only (spec: Scheme; RFC 7636 §4.6):
 * - base64url(SHA-256(code_verifier)) must equal the code challenge of the authorization request
 *   → else invalid_grant.
 */
export function checkPkce(codeVerifier: string, codeChallenge: string): void {
  const computed = createHash('sha256').update(codeVerifier).digest('base64url');
  if (computed !== codeChallenge) throw new InvalidGrant('code_verifier does not match the code challenge.');
}
