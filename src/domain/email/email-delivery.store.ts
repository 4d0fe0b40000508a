import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';

/*
 * Sending the e-mail outbox, safe with several workers at once:
 * - a claim takes due mails (`sent_at IS NULL AND send_after <= now`) with FOR UPDATE SKIP LOCKED
 *   and moves their send_after by `claimLeaseMs` in the same statement: no other worker takes
 *   them while they are being sent, and no transaction stays open during the SMTP conversation;
 * - a worker that dies while sending leaves its mails to be claimed again once the lease is over
 *   (so a mail is sent at least once, and twice only after such a crash);
 * - a failed send counts an attempt, keeps its error and waits `retryDelayMs` (doubling);
 * - after `maxAttempts` failures the mail is given up: send_after becomes 'infinity', never due.
 */
const claimLeaseMs = 10 * 60 * 1000;
export const maxAttempts = 10;

/** The wait after the n-th failed attempt: 1 minute, doubling (the 9th: a little over 4 hours). */
export function retryDelayMs(failedAttempts: number): number {
  return 60_000 * 2 ** (failedAttempts - 1);
}

export interface ClaimedEmail {
  id: string;
  to_address: string;
  subject: string;
  body: string;
  attempts: number;
}

/** Takes up to `limit` due mails for this worker, oldest due first. */
export function claimDueEmails(db: Db, now: Date, limit: number): Promise<ClaimedEmail[]> {
  return db
    .updateTable('email_outbox')
    .set({ send_after: new Date(now.getTime() + claimLeaseMs) })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('email_outbox')
        .select('id')
        .where('sent_at', 'is', null)
        .where('send_after', '<=', now)
        .orderBy('send_after')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['id', 'to_address', 'subject', 'body', 'attempts'])
    .execute();
}

export async function markEmailSent(db: Db, id: string, now: Date): Promise<void> {
  await db.updateTable('email_outbox').set({ sent_at: now }).where('id', '=', id).execute();
}

/** Records a failed attempt; says whether the mail will be tried again. */
export async function markEmailFailed(
  db: Db,
  email: ClaimedEmail,
  error: string,
  now: Date,
): Promise<{ retry: boolean }> {
  const attempts = email.attempts + 1;
  const retry = attempts < maxAttempts;
  await db
    .updateTable('email_outbox')
    .set({
      attempts,
      last_error: error.slice(0, 1000),
      send_after: retry ? new Date(now.getTime() + retryDelayMs(attempts)) : sql<Date>`'infinity'`,
    })
    .where('id', '=', email.id)
    .execute();
  return { retry };
}
