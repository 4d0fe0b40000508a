import { Secret, TOTP } from 'otpauth';
import { type Ctx, wallClockTime } from '../shared/context.ts';
import { InputError } from '../shared/errors.ts';
import { findAccountByEmail } from './accounts.service.ts';

/*
 * The second factor: time-based one-time codes (RFC 6238: SHA-1, 6 digits, 30 seconds), as
 * authenticator apps make them.
 * - a code of the current step or the one before or after is accepted (clocks drift);
 * - a code is taken once: a step at or before the last accepted one is refused (RFC 6238, 5.2);
 * - the time is the context's clock, without a sandbox clock's lead: authenticator apps read the
 *   real time.
 */
function totpOf(secret: string, label: string): TOTP {
  return new TOTP({ issuer: 'Servery', label, secret: Secret.fromBase32(secret) });
}

/** The time step a code stands for with this secret (current step ± 1), or null. */
function stepOf(ctx: Ctx, secret: string, email: string, code: string): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = totpOf(secret, email);
  const timestamp = wallClockTime(ctx.clock).getTime();
  const delta = totp.validate({ token: code, timestamp, window: 1 });
  return delta === null ? null : totp.counter({ timestamp }) + delta;
}

/** Whether the code is the account's current one, not taken before; an accepted code is used up. */
export async function checkTotpCode(ctx: Ctx, accountId: string, code: string): Promise<boolean> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select(['email', 'totp_secret'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account?.totp_secret) return false;
  const step = stepOf(ctx, account.totp_secret, account.email, code);
  if (step === null) return false;
  // Atomic: of two requests with the same code, one moves the step and the other finds it taken.
  const taken = await ctx.db
    .updateTable('accounts')
    .set({ totp_last_step: step })
    .where('id', '=', accountId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return taken.numUpdatedRows === 1n;
}

/**
 * Starts setting up a second factor for the signed-in account: a new secret, not yet in force
 * (the account signs in as before) until confirmed with a code made from it. Starting again
 * replaces a setup not yet confirmed; an active second factor stays in force meanwhile.
 */
export async function startTotpSetup(ctx: Ctx, accountId: string): Promise<{ secret: string; uri: string }> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select('email')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const secret = new Secret({ size: 20 }).base32;
  await ctx.db
    .updateTable('accounts')
    .set({ totp_pending_secret: secret })
    .where('id', '=', accountId)
    .execute();
  return { secret, uri: totpOf(secret, account.email).toString() };
}

/** The setup started and not yet confirmed (its secret and URI, to show again), or null. */
export async function pendingTotpSetup(
  ctx: Ctx,
  accountId: string,
): Promise<{ secret: string; uri: string } | null> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select(['email', 'totp_pending_secret'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const secret = account.totp_pending_secret;
  return secret ? { secret, uri: totpOf(secret, account.email).toString() } : null;
}

/** Puts the setup in force if the code is one of its secret; the code is used up. */
export async function confirmTotpSetup(ctx: Ctx, accountId: string, code: string): Promise<boolean> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select(['email', 'totp_pending_secret'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  if (!account.totp_pending_secret) return false;
  const step = stepOf(ctx, account.totp_pending_secret, account.email, code);
  if (step === null) return false;
  const confirmed = await ctx.db
    .updateTable('accounts')
    .set({ totp_secret: account.totp_pending_secret, totp_pending_secret: null, totp_last_step: step })
    .where('id', '=', accountId)
    .where('totp_pending_secret', '=', account.totp_pending_secret)
    .executeTakeFirst();
  return confirmed.numUpdatedRows === 1n;
}

/** Turns the second factor off, given a current code of it. */
export async function disableTotp(ctx: Ctx, accountId: string, code: string): Promise<boolean> {
  if (!(await checkTotpCode(ctx, accountId, code))) return false;
  await ctx.db
    .updateTable('accounts')
    .set({ totp_secret: null, totp_last_step: null, totp_pending_secret: null })
    .where('id', '=', accountId)
    .execute();
  return true;
}

/** Whether the account signs in with a second factor. */
export async function hasTotp(ctx: Ctx, accountId: string): Promise<boolean> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select('totp_secret')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return account.totp_secret !== null;
}

/**
 * The operator turns an account's second factor off (its owner lost the device, and the operator
 * made sure who is asking). Returns whether one was on; the account's sessions are ended, so the
 * next sign-in asks for the password again. An unknown e-mail is an InputError.
 */
export async function removeTotp(ctx: Ctx, email: string): Promise<{ accountId: string; wasOn: boolean }> {
  const found = await findAccountByEmail(ctx, email);
  if (!found) throw new InputError(`no account with the e-mail address ${email}`);
  const wasOn = await hasTotp(ctx, found.id);
  const account = { id: found.id };
  await ctx.db
    .updateTable('accounts')
    .set({ totp_secret: null, totp_last_step: null, totp_pending_secret: null })
    .where('id', '=', account.id)
    .execute();
  await ctx.db.deleteFrom('sessions').where('account_id', '=', account.id).execute();
  return { accountId: account.id, wasOn };
}
