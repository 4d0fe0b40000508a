import type { Ctx } from '../shared/context.ts';
import { sha256 } from '../shared/ids.ts';
import { restaurantOfSecret } from '../shared/restaurant-secrets.ts';
import { scopes as allScopes } from '../shared/scopes.ts';
import { authorizationCodePattern } from './authorization-codes.ts';
import type { Client } from './client-authentication.ts';
import { checkConnectionActive } from './connection-check.ts';
import { InvalidGrant } from './oauth-errors.ts';
import { checkPkce } from './pkce.ts';
import { revokeFamily } from './token-families.ts';
import { type GrantOutcome, issueTokenPair } from './token-pair.ts';

/*
 * The authorization_code grant (spec: Flow, Tokens). The code's row is locked first (it is its
 * family's lock), so two redemptions of one code run one after the other:
 * - an unknown code, or one issued to another client → invalid_grant;
 * - a code redeemed before → everything issued with it is revoked (kept), invalid_grant;
 * - a code older than 10 minutes → invalid_grant;
 * - redirect_uri differs from the authorization request's → invalid_grant;
 * - code_verifier does not match the challenge → invalid_grant;
 * - the connection ended → invalid_grant;
 * otherwise the code is used up and the family's first pair issued with the consented scopes.
 */
export async function redeemAuthorizationCode(
  ctx: Ctx,
  client: Client,
  request: { code: string; redirectUri: string; codeVerifier: string },
): Promise<GrantOutcome> {
  if (!authorizationCodePattern.test(request.code)) throw new InvalidGrant('The code is not valid.');
  const hash = sha256(request.code);
  // A lock names the restaurant (Citus locks only in one shard): a code of the older form is
  // looked up first.
  const tenantId = restaurantOfSecret('svc_ac_', request.code) ?? (await restaurantOfCode(ctx, hash));
  const code =
    tenantId === null
      ? undefined
      : await ctx.db
          .selectFrom('authorization_codes')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .where('code_hash', '=', hash)
          .forUpdate()
          .executeTakeFirst();
  if (!code || code.app_id !== client.appId) throw new InvalidGrant('The code is not valid.');
  if (code.redeemed_at) {
    await revokeFamily(ctx, code.tenant_id, code.id);
    return { refused: new InvalidGrant('The code was used before; everything issued with it is revoked.') };
  }
  const now = ctx.clock.now();
  if (code.expires_at <= now) throw new InvalidGrant('The code expired.');
  if (code.redirect_uri !== request.redirectUri)
    throw new InvalidGrant('redirect_uri differs from the one of the authorization request.');
  checkPkce(request.codeVerifier, code.code_challenge);
  const connection = await checkConnectionActive(ctx, code.tenant_id, code.connection_id);

  await ctx.db
    .updateTable('authorization_codes')
    .set({ redeemed_at: now })
    .where('tenant_id', '=', code.tenant_id)
    .where('id', '=', code.id)
    .execute();
  const granted = allScopes.filter((scope) => code.scopes.includes(scope));
  const { response } = await issueTokenPair(ctx, {
    familyId: code.id,
    appId: client.appId,
    connection,
    refreshScopes: granted,
    accessScopes: granted.filter((scope) => connection.scopes.includes(scope)),
  });
  return { issued: response };
}

/** The restaurant of a code that does not name it (issued before codes did): asks every shard on Citus. */
async function restaurantOfCode(ctx: Ctx, hash: string): Promise<string | null> {
  const found = await ctx.db
    .selectFrom('authorization_codes')
    .select('tenant_id')
    .where('code_hash', '=', hash)
    .executeTakeFirst();
  return found?.tenant_id ?? null;
}
