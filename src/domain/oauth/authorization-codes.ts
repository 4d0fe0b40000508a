import type { Ctx } from '../shared/context.ts';
import { InputError } from '../shared/errors.ts';
import { newId, sha256 } from '../shared/ids.ts';
import { newRestaurantSecret, restaurantSecretPattern } from '../shared/restaurant-secrets.ts';
import type { Scope } from '../shared/scopes.ts';

export const authorizationCodeLifetimeSeconds = 10 * 60;
export const authorizationCodePattern = restaurantSecretPattern('svc_ac_');
/** An S256 code challenge: base64url of a SHA-256 digest, no padding. */
const codeChallengePattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * Issues the authorization code of a consent: valid 10 minutes and once, bound to the app, the
 * connection, the consented scopes, the request's redirect URI and its PKCE challenge (S256).
 * Returns the code (`svc_ac_…`); only its SHA-256 is stored.
 */
export async function issueAuthorizationCode(
  ctx: Ctx,
  input: {
    tenantId: string;
    connectionId: string;
    appId: string;
    scopes: readonly Scope[];
    redirectUri: string;
    codeChallenge: string;
  },
): Promise<string> {
  if (!codeChallengePattern.test(input.codeChallenge))
    throw new InputError('the code challenge must be 43 characters of base64url (S256)');
  const code = newRestaurantSecret('svc_ac_', input.tenantId);
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('authorization_codes')
    .values({
      tenant_id: input.tenantId,
      id: newId(),
      code_hash: sha256(code),
      connection_id: input.connectionId,
      app_id: input.appId,
      scopes: [...input.scopes],
      redirect_uri: input.redirectUri,
      code_challenge: input.codeChallenge,
      created_at: now,
      expires_at: new Date(now.getTime() + authorizationCodeLifetimeSeconds * 1000),
    })
    .execute();
  return code;
}
