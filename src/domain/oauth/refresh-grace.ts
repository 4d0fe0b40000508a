import type { Ctx } from '../shared/context.ts';

/** How long a used refresh token may be presented again under the grace rule. */
export const refreshGraceSeconds = 60;

/*
 * The grace rule (spec: Refresh with rotation). A used refresh token presented again gets a fresh
 * pair only
 * - within 60 seconds of its use, and
 * - while the refresh token issued for it is still unused and not revoked;
 * any other reuse revokes the whole family. Runs under the family's lock.
 */
export async function isGraceReuse(
  ctx: Ctx,
  token: { tenant_id: string; used_at: Date; replaced_by: string | null },
): Promise<boolean> {
  if (ctx.clock.now().getTime() - token.used_at.getTime() > refreshGraceSeconds * 1000) return false;
  if (token.replaced_by === null) return false;
  const replacement = await ctx.db
    .selectFrom('refresh_tokens')
    .select(['used_at', 'revoked_at'])
    .where('tenant_id', '=', token.tenant_id)
    .where('id', '=', token.replaced_by)
    .executeTakeFirstOrThrow();
  return replacement.used_at === null && replacement.revoked_at === null;
}
