import type { Ctx } from '../shared/context.ts';

/*
 * A token family is everything issued through one authorization code: its refresh tokens and
 * their access tokens. The code's row is the family's lock: a redemption, a refresh or a
 * revocation takes it first (FOR UPDATE), so changes to one family run one after the other and
 * each sees the effects of the one before (PostgreSQL's READ COMMITTED gives every later
 * statement a fresh snapshot).
 */
export async function lockFamily(ctx: Ctx, tenantId: string, familyId: string): Promise<void> {
  await ctx.db
    .selectFrom('authorization_codes')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', familyId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/** Revokes every refresh and access token of a locked family; the connection remains. */
export async function revokeFamily(ctx: Ctx, tenantId: string, familyId: string): Promise<void> {
  await revokeTokens(ctx, tenantId, { refresh: ['family_id', familyId], access: ['family_id', familyId] });
}

/** Revokes one refresh token and the access tokens issued with it (one pair). */
export async function revokePair(ctx: Ctx, tenantId: string, refreshTokenId: string): Promise<void> {
  await revokeTokens(ctx, tenantId, {
    refresh: ['id', refreshTokenId],
    access: ['refresh_token_id', refreshTokenId],
  });
}

async function revokeTokens(
  ctx: Ctx,
  tenantId: string,
  which: { refresh: ['family_id' | 'id', string]; access: ['family_id' | 'refresh_token_id', string] },
): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db
    .updateTable('refresh_tokens')
    .set({ revoked_at: now })
    .where('tenant_id', '=', tenantId)
    .where(which.refresh[0], '=', which.refresh[1])
    .where('revoked_at', 'is', null)
    .execute();
  await ctx.db
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('tenant_id', '=', tenantId)
    .where(which.access[0], '=', which.access[1])
    .where('revoked_at', 'is', null)
    .execute();
}
