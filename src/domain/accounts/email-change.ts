import type { Locale } from '../../i18n/i18n.ts';
import { queueEmail } from '../email/email-outbox.ts';
import type { Ctx } from '../shared/context.ts';
import { InputError } from '../shared/errors.ts';
import { accountTokenMinutes, issueAccountToken, takeAccountToken } from './account-tokens.ts';
import { checkEmail, EmailTakenError } from './accounts.service.ts';
import { isPasswordOf } from './password-change.ts';

/*
 * A new e-mail address for the signed-in account:
 * - asked for with the current password (false when it is wrong) and an address that looks like
 *   one, is not the account's already and no other account has (in any letter case);
 * - a link mailed to the NEW address confirms it (30 minutes, once; a newer request replaces it):
 *   until then the account keeps its address; then the old address gets a notice.
 */
export async function requestEmailChange(
  ctx: Ctx,
  accountId: string,
  input: { email: string; password: string },
  mail: { linkOf: (token: string) => string; locale: Locale },
): Promise<boolean> {
  const email = input.email.trim();
  checkEmail(email);
  if (!(await isPasswordOf(ctx, accountId, input.password))) return false;
  const holder = await accountWithEmail(ctx, email);
  if (holder === accountId) throw new InputError('that is the account’s address already', { param: 'email' });
  if (holder) throw new EmailTakenError(email);
  const token = await issueAccountToken(ctx, accountId, 'email_change', email);
  await queueEmail(ctx, {
    template: 'emailChangeRequested',
    params: { url: mail.linkOf(token), email, minutes: accountTokenMinutes },
    tenantId: null,
    to: email,
    locale: mail.locale,
  });
  return true;
}

/**
 * Confirms a new address with the link mailed to it: the account's new address, or null when the
 * link does not work (any more) or another account has taken the address since.
 */
export async function confirmEmailChange(ctx: Ctx, token: string, locale: Locale): Promise<string | null> {
  const taken = await takeAccountToken(ctx, 'email_change', token);
  if (!taken?.newEmail) return null;
  const email = taken.newEmail;
  if (await accountWithEmail(ctx, email)) return null;
  const old = await ctx.db
    .selectFrom('accounts')
    .select('email')
    .where('id', '=', taken.accountId)
    .executeTakeFirstOrThrow();
  await ctx.db.updateTable('accounts').set({ email }).where('id', '=', taken.accountId).execute();
  await queueEmail(ctx, {
    template: 'emailChanged',
    params: { email },
    tenantId: null,
    to: old.email,
    locale,
  });
  return email;
}

async function accountWithEmail(ctx: Ctx, email: string): Promise<string | undefined> {
  const row = await ctx.db
    .selectFrom('accounts')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  return row?.id;
}
