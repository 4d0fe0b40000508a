import type { AccountTokensTable } from '../../db/schema.ts';
import type { Ctx } from '../shared/context.ts';
import { newSecret, sha256 } from '../shared/ids.ts';

/** What a mailed link of an account does: set a new password, or confirm a new e-mail address. */
export type AccountTokenKind = AccountTokensTable['kind'];

/** How long a mailed link works. */
export const accountTokenMinutes = 30;

/*
 * The tokens of an account's mailed links (table account_tokens):
 * - random (32 bytes), kept only as their SHA-256, so the table alone opens nothing;
 * - a link works for 30 minutes and once; a newer one of the same kind replaces those before it.
 */
export async function issueAccountToken(
  ctx: Ctx,
  accountId: string,
  kind: AccountTokenKind,
  newEmail: string | null = null,
): Promise<string> {
  await ctx.db
    .deleteFrom('account_tokens')
    .where('account_id', '=', accountId)
    .where('kind', '=', kind)
    .execute();
  const token = newSecret('');
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('account_tokens')
    .values({
      token_hash: sha256(token),
      account_id: accountId,
      kind,
      new_email: newEmail,
      created_at: now,
      expires_at: new Date(now.getTime() + accountTokenMinutes * 60_000),
    })
    .execute();
  return token;
}

/** The account (and new address) of a token of `kind` that still works; null otherwise. */
export async function findAccountToken(
  ctx: Ctx,
  kind: AccountTokenKind,
  token: string,
): Promise<{ accountId: string; newEmail: string | null } | null> {
  const row = await ctx.db
    .selectFrom('account_tokens')
    .select(['account_id', 'new_email'])
    .where('token_hash', '=', sha256(token))
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', ctx.clock.now())
    .executeTakeFirst();
  return row ? { accountId: row.account_id, newEmail: row.new_email } : null;
}

/**
 * Uses up a token of `kind` that still works (in the caller's transaction, with the change it
 * allows): its account and new address, or null when it does not work (any more). Two requests
 * with one token: the row's update lets one of them through.
 */
export async function takeAccountToken(
  ctx: Ctx,
  kind: AccountTokenKind,
  token: string,
): Promise<{ accountId: string; newEmail: string | null } | null> {
  const now = ctx.clock.now();
  const row = await ctx.db
    .updateTable('account_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', sha256(token))
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['account_id', 'new_email'])
    .executeTakeFirst();
  return row ? { accountId: row.account_id, newEmail: row.new_email } : null;
}
