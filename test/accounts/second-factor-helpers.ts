import { startTotpSetup } from '../../src/domain/accounts/totp.ts';
import type { Ctx } from '../../src/domain/shared/context.ts';

/**
 * Gives the account a second factor in force, as if it had set one up and confirmed it (that
 * flow itself is tested in second-factor.test.ts); no code of it is taken yet.
 */
export async function withSecondFactor(
  ctx: Ctx,
  accountId: string,
): Promise<{ secret: string; uri: string }> {
  const setup = await startTotpSetup(ctx, accountId);
  await ctx.db
    .updateTable('accounts')
    .set({ totp_secret: setup.secret, totp_pending_secret: null, totp_last_step: null })
    .where('id', '=', accountId)
    .execute();
  return setup;
}
