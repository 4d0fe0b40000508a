import { InvalidClient, InvalidRequest } from './oauth-errors.ts';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

export interface ClientCredentials {
  method: ClientAuthMethod;
  clientId: string;
  clientSecret: string | null;
}

/*
 * How the client authenticates at the token and revocation endpoints (spec: Clients), exactly one
 * method:
 * - HTTP Basic (client_secret_basic): client id and secret, each form-urlencoded, joined by ":"
 *   (RFC 6749 §2.3.1);
 * - client_id and client_secret in the body (client_secret_post);
 * - client_id alone in the body (none: public clients).
 * Basic together with client_secret in the body, or with another client_id in the body, is two
 * methods → invalid_request. Another Authorization scheme, malformed Basic credentials or no
 * client_id at all → invalid_client.
 */
export function readClientCredentials(
  authorization: string | undefined,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
): ClientCredentials {
  if (authorization !== undefined) {
    const basic = readBasic(authorization);
    if (body.client_secret !== undefined)
      throw new InvalidRequest(
        'Authenticate with one method: HTTP Basic or client_secret in the body, not both.',
      );
    if (body.client_id !== undefined && body.client_id !== basic.clientId)
      throw new InvalidRequest('client_id in the body differs from the one in HTTP Basic.');
    return { method: 'client_secret_basic', ...basic };
  }
  if (body.client_id === undefined) throw new InvalidClient('Send client_id (or HTTP Basic credentials).');
  if (body.client_secret !== undefined)
    return { method: 'client_secret_post', clientId: body.client_id, clientSecret: body.client_secret };
  return { method: 'none', clientId: body.client_id, clientSecret: null };
}

function readBasic(authorization: string): { clientId: string; clientSecret: string } {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2})$/i.exec(authorization.trim());
  const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const clientId = formDecode(decoded.slice(0, Math.max(colon, 0)));
  const clientSecret = formDecode(decoded.slice(colon + 1));
  if (colon < 1 || !clientId || !clientSecret)
    throw new InvalidClient('The Authorization header must be HTTP Basic with client id and secret.');
  return { clientId, clientSecret };
}

/** application/x-www-form-urlencoded decoding ("+" is a space); null when malformed. */
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return null;
  }
}
