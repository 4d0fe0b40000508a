import type { Db } from '../../db/client.ts';

/** Events are kept 30 days (spec: Limits); older ones are neither shown nor sent. */
export const eventRetentionMs = 30 * 24 * 3600 * 1000;

/** The oldest instant still kept: an event created at or before it is gone. */
export function retentionCutoff(now: Date): Date {
  return new Date(now.getTime() - eventRetentionMs);
}

/** Drops events past retention (their envelopes go with them). Returns how many. */
export async function purgeOldEvents(db: Db, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('events')
    .where('created_at', '<=', retentionCutoff(now))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
