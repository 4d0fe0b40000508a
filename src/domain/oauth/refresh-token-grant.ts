import type { Ctx } from '../shared/context.ts';
import { sha256 } from '../shared/ids.ts';
import { restaurantOfSecret } from '../shared/restaurant-secrets.ts';
import { scopes as allScopes } from '../shared/scopes.ts';
import type { Client } from './client-authentication.ts';
import { checkConnectionActive } from './connection-check.ts';
import { InvalidGrant } from './oauth-errors.ts';
import { isGraceReuse } from './refresh-grace.ts';
import { type RefreshRequest, rotateUnusedRefreshToken } from './refresh-rotation.ts';
import { refreshTokenPattern } from './refresh-tokens.ts';
import { lockFamily, revokeFamily, revokePair } from './token-families.ts';
import { type GrantOutcome, issueTokenPair } from './token-pair.ts';
import { accessTokenScopes } from './token-scopes.ts';

/*
 * The refresh_token grant with rotation (spec: Refresh with rotation). An unused token that passes
 * every check is rotated in one statement (refresh-rotation.ts); anything else is decided in a
 * transaction, check by check, below. Every statement names the token's restaurant (on Citus it
 * then runs on the restaurant's node: a lock or a write through a CTE must); a token of the older
 * form, which does not name it, is looked up first.
 */
export async function refreshTokens(
  ctx: Ctx,
  client: Client,
  request: { refreshToken: string; scope: string | undefined },
): Promise<GrantOutcome> {
  if (!refreshTokenPattern.test(request.refreshToken))
    throw new InvalidGrant('The refresh token is not valid.');
  const hash = sha256(request.refreshToken);
  const tenantId =
    restaurantOfSecret('svc_rt_', request.refreshToken) ?? (await restaurantOfRefreshToken(ctx, hash));
  if (tenantId === null) throw new InvalidGrant('The refresh token is not valid.');
  const token = { tenantId, hash, scope: request.scope };
  const rotated = await rotateUnusedRefreshToken(ctx, client, token);
  if (rotated) return { issued: rotated };
  return ctx.db.transaction().execute((trx) => refreshUnderLock({ ...ctx, db: trx }, client, token));
}

/** The restaurant of a token that does not name it (issued before tokens did): asks every shard on Citus. */
async function restaurantOfRefreshToken(ctx: Ctx, hash: string): Promise<string | null> {
  const found = await ctx.db
    .selectFrom('refresh_tokens')
    .select('tenant_id')
    .where('token_hash', '=', hash)
    .executeTakeFirst();
  return found?.tenant_id ?? null;
}

/*
 * The family is locked before the token is read, so concurrent refreshes of one family run one
 * after the other, each seeing what the one before did:
 * - an unknown token, or one issued to another client → invalid_grant;
 * - a revoked token, or one unused for 180 days → invalid_grant;
 * - the connection ended → invalid_grant;
 * - a used token outside the grace rule → the whole family revoked (kept), invalid_grant;
 * - `scope` beyond the token's → invalid_scope;
 * - a used token within the grace rule → the pair issued for it is revoked;
 * then a new pair is issued and the token is used up, pointing to its replacement.
 */
async function refreshUnderLock(ctx: Ctx, client: Client, request: RefreshRequest): Promise<GrantOutcome> {
  const invalid = new InvalidGrant('The refresh token is not valid.');
  const { hash } = request;
  const found = await ctx.db
    .selectFrom('refresh_tokens')
    .select(['tenant_id', 'family_id'])
    .where('tenant_id', '=', request.tenantId)
    .where('token_hash', '=', hash)
    .executeTakeFirst();
  if (!found) throw invalid;
  await lockFamily(ctx, found.tenant_id, found.family_id);
  const token = await ctx.db
    .selectFrom('refresh_tokens')
    .selectAll()
    .where('tenant_id', '=', found.tenant_id)
    .where('token_hash', '=', hash)
    .executeTakeFirstOrThrow();
  if (token.app_id !== client.appId) throw invalid;
  if (token.revoked_at) throw new InvalidGrant('The refresh token was revoked.');
  if (token.expires_at <= ctx.clock.now()) throw new InvalidGrant('The refresh token expired.');
  const connection = await checkConnectionActive(ctx, token.tenant_id, token.connection_id);
  const usedAt = token.used_at;
  if (usedAt && !(await isGraceReuse(ctx, { ...token, used_at: usedAt }))) {
    await revokeFamily(ctx, token.tenant_id, token.family_id);
    return {
      refused: new InvalidGrant('The refresh token was used before; every token of its family is revoked.'),
    };
  }
  const accessScopes = accessTokenScopes(token.scopes, connection.scopes, request.scope);
  if (usedAt && token.replaced_by) await revokePair(ctx, token.tenant_id, token.replaced_by);

  const { refreshTokenId, response } = await issueTokenPair(ctx, {
    familyId: token.family_id,
    appId: client.appId,
    connection,
    refreshScopes: allScopes.filter((scope) => token.scopes.includes(scope)),
    accessScopes,
  });
  await ctx.db
    .updateTable('refresh_tokens')
    .set({ used_at: usedAt ?? ctx.clock.now(), replaced_by: refreshTokenId })
    .where('tenant_id', '=', token.tenant_id)
    .where('id', '=', token.id)
    .execute();
  return { issued: response };
}
