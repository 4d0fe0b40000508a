import { Secret, TOTP } from 'otpauth';
import type { Ctx } from '../context.ts';
import { InputError } from '../errors.ts';

/*
 * The second factor: time-based one-time codes (RFC 6238: SHA-1, 6 digits, 30 seconds), as
 * authenticator apps make them.
 * - a code of the current step or the one before or after is accepted (clocks drift);
 * - a code is taken once: a step at or before the last accepted one is refused (RFC 6238, 5.2);
 * - the time is the context's clock.
 */
function totpOf(secret: string, label: string): TOTP {
  return new TOTP({ issuer: 'Servery', label, secret: Secret.fromBase32(secret) });
}

/** Sets up (or replaces) the account's second factor; returns the secret and the otpauth:// URI for an authenticator app. */
export async function enableTotp(ctx: Ctx, accountId: string): Promise<{ secret: string; uri: string }> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select('email')
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) throw new InputError(`no account ${accountId}`);
  const secret = new Secret({ size: 20 }).base32;
  await ctx.db
    .updateTable('accounts')
    .set({ totp_secret: secret, totp_last_step: null })
    .where('id', '=', accountId)
    .execute();
  return { secret, uri: totpOf(secret, account.email).toString() };
}

/** Whether the code is the account's current one, not taken before; an accepted code is used up. */
export async function checkTotpCode(ctx: Ctx, accountId: string, code: string): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const account = await ctx.db
    .selectFrom('accounts')
    .select(['email', 'totp_secret'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account?.totp_secret) return false;
  const totp = totpOf(account.totp_secret, account.email);
  const timestamp = ctx.clock.now().getTime();
  const delta = totp.validate({ token: code, timestamp, window: 1 });
  if (delta === null) return false;
  const step = totp.counter({ timestamp }) + delta;
  // Atomic: of two requests with the same code, one moves the step and the other finds it taken.
  const taken = await ctx.db
    .updateTable('accounts')
    .set({ totp_last_step: step })
    .where('id', '=', accountId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return taken.numUpdatedRows === 1n;
}
