import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import { claimDueEmails, markEmailFailed, markEmailSent } from '../domain/email/email-delivery.store.ts';
import type { Clock } from '../domain/shared/context.ts';
import type { EmailTransport } from './email-transport.ts';

/** Mails claimed per run, sent side by side. */
const emailBatchSize = 10;

/**
 * Sends one batch of due e-mails from the outbox: each sent one is marked sent, each refused one
 * is retried later (see email-delivery.store.ts). With nothing due, a run is one UPDATE that
 * finds no row. Returns how many were sent.
 */
export async function sendDueEmails(
  db: Db,
  clock: Clock,
  transport: EmailTransport,
  log: Logger,
): Promise<number> {
  const claimed = await claimDueEmails(db, clock.now(), emailBatchSize);
  const results = await Promise.allSettled(
    claimed.map(async (email) => {
      try {
        await transport.send({ to: email.to_address, subject: email.subject, text: email.body });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const { retry } = await markEmailFailed(db, email, reason, clock.now());
        const details = { email: email.id, attempts: email.attempts + 1, error: reason };
        if (retry) log.warn(details, 'e-mail not sent, will retry');
        else log.error(details, 'e-mail not sent, given up');
        return false;
      }
      await markEmailSent(db, email.id, clock.now());
      return true;
    }),
  );
  // Every send has settled (so a stopping worker waits for all of them); then a failure to record
  // one is the job's failure.
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  return results.filter((result) => result.status === 'fulfilled' && result.value).length;
}
