import type { Db } from '../../db/client.ts';
import type { Ctx } from '../shared/context.ts';
import { newSecret, sha256 } from '../shared/ids.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { checkTotpCode } from './totp.ts';

/*
 * Browser sessions of accounts (the consent page, the console, the dashboard):
 * - a session is a random token in a cookie; only its SHA-256 is stored;
 * - it belongs to the surface it was signed in on and is found there only: a dashboard session's
 *   token sent as the console's (or as the storefront preview's, which carries the console's) is
 *   no session;
 * - an account with a second factor first gets a session that can only give the code, for 10
 *   minutes; the right code turns it into a full session;
 * - a full session lasts 12 hours from sign-in (or from the second factor).
 */
export const sessionLifetimeSeconds = 12 * 60 * 60;
const secondFactorWindowSeconds = 10 * 60;

/** The surfaces that sign accounts in, each with sessions of its own. */
export type SessionKind = 'consent' | 'console' | 'dashboard';

export interface Session {
  accountId: string;
  email: string;
  secondFactorPending: boolean;
}

// Checked when no account has the e-mail, so a wrong e-mail takes as long as a wrong password.
let unknownAccountHash: Promise<string> | null = null;

/** Checks e-mail and password; on success starts a session (pending its second factor if the account has one). */
export async function signIn(
  ctx: Ctx,
  kind: SessionKind,
  input: { email: string; password: string },
): Promise<{ token: string; secondFactorPending: boolean } | null> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select(['id', 'password_hash', 'totp_secret'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', input.email.trim().toLowerCase()))
    .executeTakeFirst();
  unknownAccountHash ??= hashPassword('no account has this password');
  const valid = await verifyPassword(input.password, account?.password_hash ?? (await unknownAccountHash));
  if (!account || !valid) return null;
  const secondFactorPending = account.totp_secret !== null;
  const now = ctx.clock.now();
  const token = newSecret('');
  await ctx.db
    .insertInto('sessions')
    .values({
      id_hash: sha256(token),
      account_id: account.id,
      surface: kind,
      second_factor_pending: secondFactorPending,
      created_at: now,
      expires_at: secondsAfter(now, secondFactorPending ? secondFactorWindowSeconds : sessionLifetimeSeconds),
    })
    .execute();
  return { token, secondFactorPending };
}

/** The session of the surface a cookie's token names, unless it expired or was ended. */
export async function findSession(ctx: Ctx, kind: SessionKind, token: string): Promise<Session | null> {
  const row = await ctx.db
    .selectFrom('sessions as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.account_id', 'a.email', 's.second_factor_pending'])
    .where('s.id_hash', '=', sha256(token))
    .where('s.surface', '=', kind)
    .where('s.expires_at', '>', ctx.clock.now())
    .executeTakeFirst();
  return row
    ? { accountId: row.account_id, email: row.email, secondFactorPending: row.second_factor_pending }
    : null;
}

/** The second factor of a pending session: the right code makes it a full session. */
export async function completeSecondFactor(
  ctx: Ctx,
  kind: SessionKind,
  token: string,
  code: string,
): Promise<boolean> {
  const session = await findSession(ctx, kind, token);
  if (!session?.secondFactorPending) return false;
  if (!(await checkTotpCode(ctx, session.accountId, code))) return false;
  const now = ctx.clock.now();
  await ctx.db
    .updateTable('sessions')
    .set({ second_factor_pending: false, expires_at: secondsAfter(now, sessionLifetimeSeconds) })
    .where('id_hash', '=', sha256(token))
    .execute();
  return true;
}

/** Ends a session of the surface (another surface's token ends nothing). */
export async function endSession(ctx: Ctx, kind: SessionKind, token: string): Promise<void> {
  await ctx.db
    .deleteFrom('sessions')
    .where('id_hash', '=', sha256(token))
    .where('surface', '=', kind)
    .execute();
}

/** A signed-in browser of an account, as its account page lists it. */
export interface AccountSession {
  surface: SessionKind;
  createdAt: Date;
  expiresAt: Date;
  /** Whether it is the session of `token` (the one asking). */
  current: boolean;
}

/** The account's complete sessions that have not ended, newest first. */
export async function sessionsOfAccount(
  ctx: Ctx,
  accountId: string,
  token: string,
): Promise<AccountSession[]> {
  const rows = await ctx.db
    .selectFrom('sessions')
    .select(['id_hash', 'surface', 'created_at', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('second_factor_pending', '=', false)
    .where('surface', 'is not', null)
    .where('expires_at', '>', ctx.clock.now())
    .orderBy('created_at', 'desc')
    .execute();
  const own = sha256(token);
  return rows.map((row) => ({
    surface: row.surface as SessionKind,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    current: row.id_hash === own,
  }));
}

/** Ends every session of the account (on every surface) but the one of `keep`, if given. */
export async function endSessionsOfAccount(ctx: Ctx, accountId: string, keep?: string): Promise<number> {
  let query = ctx.db.deleteFrom('sessions').where('account_id', '=', accountId);
  if (keep !== undefined) query = query.where('id_hash', '!=', sha256(keep));
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

function secondsAfter(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}

/** Drops sessions past their end (a worker job); an expired session is refused anyway. */
export async function purgeExpiredSessions(db: Db, now: Date): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
