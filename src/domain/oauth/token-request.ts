import { InvalidRequest, UnsupportedGrantType } from './oauth-errors.ts';

export type TokenRequest =
  | { grantType: 'authorization_code'; code: string; redirectUri: string; codeVerifier: string }
  | { grantType: 'refresh_token'; refreshToken: string; scope: string | undefined };

/** A PKCE code verifier (RFC 7636 §4.1). */
const codeVerifierPattern = /^[A-Za-z0-9._~-]{43,128}$/;

/*
 * The parameters of a token request (spec: Token request):
 * - grant_type missing → invalid_request; other than authorization_code and refresh_token →
 *   unsupported_grant_type;
 * - authorization_code needs code, redirect_uri and code_verifier, the verifier 43 to 128
 *   characters of A-Z a-z 0-9 - . _ ~ → else invalid_request;
 * - refresh_token needs refresh_token; scope is optional → else invalid_request.
 * Other parameters are ignored (RFC 6749 §3.2); repeated ones never get here (the form parser).
 */
export function readTokenRequest(form: Readonly<Record<string, string | undefined>>): TokenRequest {
  const grantType = form.grant_type;
  if (grantType === undefined) throw new InvalidRequest('grant_type is missing.');
  if (grantType === 'authorization_code') {
    const code = required(form, 'code');
    const redirectUri = required(form, 'redirect_uri');
    const codeVerifier = required(form, 'code_verifier');
    if (!codeVerifierPattern.test(codeVerifier))
      throw new InvalidRequest('code_verifier must have 43 to 128 characters of A-Z a-z 0-9 - . _ ~.');
    return { grantType, code, redirectUri, codeVerifier };
  }
  if (grantType === 'refresh_token') {
    return { grantType, refreshToken: required(form, 'refresh_token'), scope: form.scope };
  }
  throw new UnsupportedGrantType('grant_type must be authorization_code or refresh_token.');
}

function required(form: Readonly<Record<string, string | undefined>>, name: string): string {
  const value = form[name];
  if (value === undefined) throw new InvalidRequest(`${name} is missing.`);
  return value;
}
