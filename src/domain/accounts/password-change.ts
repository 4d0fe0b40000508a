import type { Locale } from '../../i18n/i18n.ts';
import { queueEmail } from '../email/email-outbox.ts';
import type { Ctx } from '../shared/context.ts';
import { accountTokenMinutes, issueAccountToken, takeAccountToken } from './account-tokens.ts';
import { checkNewPassword, findAccountByEmail } from './accounts.service.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { endSessionsOfAccount } from './sessions.ts';

// Longer input is a wrong password, without the cost of hashing it (as at sign-in).
const longestPassword = 1000;

/** Whether `password` is the account's (a wrong one takes as long to tell as a right one). */
export async function isPasswordOf(ctx: Ctx, accountId: string, password: string): Promise<boolean> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select('password_hash')
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account || password.length > longestPassword) return false;
  return verifyPassword(password, account.password_hash);
}

/**
 * "Forgot password": if an account has the address (in any letter case), mails it a link to set
 * a new password (30 minutes, once; it replaces any link before). Without an account nothing
 * happens, and the caller answers the same either way.
 */
export async function requestPasswordReset(
  ctx: Ctx,
  email: string,
  mail: { linkOf: (token: string) => string; locale: Locale },
): Promise<void> {
  const account = await findAccountByEmail(ctx, email);
  if (!account) return;
  const token = await issueAccountToken(ctx, account.id, 'password_reset');
  await queueEmail(ctx, {
    template: 'passwordReset',
    params: { url: mail.linkOf(token), minutes: accountTokenMinutes },
    tenantId: null,
    to: account.email,
    locale: mail.locale,
  });
}

/**
 * Sets the password of a reset link's account (the rules of sign-up; an InputError of `password`
 * leaves the link working) and ends all its sessions: the person signs in afresh. False when the
 * link does not work (any more).
 */
export async function resetPassword(ctx: Ctx, token: string, password: string): Promise<boolean> {
  checkNewPassword(password);
  const taken = await takeAccountToken(ctx, 'password_reset', token);
  if (!taken) return false;
  await setPassword(ctx, taken.accountId, password);
  await endSessionsOfAccount(ctx, taken.accountId);
  return true;
}

/**
 * The signed-in account's new password (`new_password`: the rules of sign-up), given its current
 * one (false when that is wrong): its other sessions end, this one (`keep`) stays.
 */
export async function changePassword(
  ctx: Ctx,
  accountId: string,
  input: { current: string; password: string; keep: string },
): Promise<boolean> {
  checkNewPassword(input.password, 'new_password');
  if (!(await isPasswordOf(ctx, accountId, input.current))) return false;
  await setPassword(ctx, accountId, input.password);
  await endSessionsOfAccount(ctx, accountId, input.keep);
  return true;
}

/** A new password hash; reset links mailed before it no longer work. */
async function setPassword(ctx: Ctx, accountId: string, password: string): Promise<void> {
  await ctx.db
    .updateTable('accounts')
    .set({ password_hash: await hashPassword(password) })
    .where('id', '=', accountId)
    .execute();
  await ctx.db
    .deleteFrom('account_tokens')
    .where('account_id', '=', accountId)
    .where('kind', '=', 'password_reset')
    .where('used_at', 'is', null)
    .execute();
}
