import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { type Clock, systemCtx } from '../shared/context.ts';
import { countOutcomes } from './switching-off.ts';

/** spec: Webhooks, Retries: the wait before attempt n (index n, from 1); attempt 1 is at once. */
const minute = 60 * 1000;
const waitsBeforeAttempt = [0, 0, 1, 5, 30, 120, 360, 720, 1440].map((m) => m * minute);
export const maxDeliveryAttempts = 8;

/** A delivery taken for one send, with everything the send needs. */
export interface ClaimedDelivery {
  id: string;
  tenant_id: string;
  webhook_id: string;
  position: string;
  audience_id: string;
  event_type: string;
  livemode: boolean;
  attempts: number;
  /** This send's number (Service-Delivery-Attempt). */
  sends: number;
  url: string;
  body: string;
  /** Newest first. */
  secrets: string[];
}

/** The columns a claim returns: the delivery, its frozen envelope, the address and the secrets. */
function claimedColumns(now: Date): RawBuilder<unknown> {
  return sql`d.id, d.tenant_id, d.webhook_id, d.position::text AS position, d.audience_id, d.event_type, d.livemode,
    d.attempts, d.sends, w.url, e.body,
    (SELECT array_agg(s.secret ORDER BY s.created_at DESC, s.id DESC) FROM webhook_secrets s
      WHERE s.webhook_id = d.webhook_id AND (s.expires_at IS NULL OR s.expires_at > ${now})) AS secrets`;
}

/*
 * Claims due deliveries of enabled webhooks and counts their attempt. next_attempt_at moves past
 * the send's time-out (a lease): the outcome sets the real next time, and if this worker dies the
 * delivery is sent again once the lease ends. No transaction stays open during the send.
 * The due deliveries are read without a lock (on Citus every shard is asked: the worker's run, not
 * a request), then taken by one update per restaurant, side by side, each holding only those still
 * due: a delivery another worker took meanwhile is not (its lease moved it, and the update reads
 * the row as that worker left it), so each is claimed by one worker. An update per restaurant runs
 * on its restaurant's shard alone: one over several would lock shards on several nodes and meet the
 * outcome writes of other workers in distributed deadlocks.
 */
export async function claimDue(
  db: Db,
  now: Date,
  limit: number,
  leaseMs: number,
  busyWebhooks: readonly string[],
): Promise<ClaimedDelivery[]> {
  const due = await sql<{ tenant_id: string; id: string }>`
    SELECT q.tenant_id, q.id FROM webhook_deliveries q JOIN webhooks qw ON qw.id = q.webhook_id
    WHERE q.next_attempt_at <= ${now} AND qw.enabled AND q.webhook_id <> all(${busyWebhooks}::uuid[])
    ORDER BY q.next_attempt_at
    LIMIT ${limit}`.execute(db);
  const byRestaurant = Map.groupBy(due.rows, (row) => row.tenant_id);
  const claims = [...byRestaurant].map(async ([tenantId, rows]) => {
    const result = await sql<ClaimedDelivery>`
      UPDATE webhook_deliveries d
      SET attempts = d.attempts + 1, sends = d.sends + 1, next_attempt_at = ${new Date(now.getTime() + leaseMs)}
      FROM webhooks w, event_envelopes e
      WHERE d.tenant_id = ${tenantId} AND d.id = any(${rows.map((row) => row.id)}::uuid[])
        AND d.next_attempt_at <= ${now} AND w.id = d.webhook_id AND w.enabled
        AND e.tenant_id = d.tenant_id AND e.position = d.position AND e.audience_id = d.audience_id
      RETURNING ${claimedColumns(now)}`.execute(db);
    return result.rows;
  });
  return (await Promise.all(claims)).flat();
}

/**
 * Takes one delivery for a send outside the schedule (a resend): its number goes on, the 8 do not.
 * Found by its id alone: on Citus every shard is asked (a developer's or owner's click).
 */
export async function claimForResend(db: Db, now: Date, deliveryId: string): Promise<ClaimedDelivery> {
  const result = await sql<ClaimedDelivery>`
    UPDATE webhook_deliveries d SET sends = d.sends + 1
    FROM webhooks w, event_envelopes e
    WHERE d.id = ${deliveryId} AND w.id = d.webhook_id
      AND e.tenant_id = d.tenant_id AND e.position = d.position AND e.audience_id = d.audience_id
    RETURNING ${claimedColumns(now)}`.execute(db);
  const [claimed] = result.rows;
  if (!claimed) throw new Error(`no delivery ${deliveryId}`);
  return claimed;
}

/** How one send went, as the delivery log keeps it. */
export interface SendResult {
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/**
 * The outbound side of a delivery (src/adapters/webhook-post.ts): posts it, signed, and says how
 * it went (a failure is a result, never a throw). What follows from it stays here: the next
 * attempt, giving up, switching the webhook off.
 */
export interface DeliveryPoster {
  post(delivery: ClaimedDelivery, clock: Clock): Promise<SendResult>;
}

/** One send's outcome. */
export interface Outcome extends SendResult {
  delivery: ClaimedDelivery;
  /** A scheduled attempt (a failure sets the next one) or a resend (a failure changes nothing). */
  scheduled: boolean;
}

/** Sends one claimed delivery through the poster. */
export async function send(
  delivery: ClaimedDelivery,
  scheduled: boolean,
  poster: DeliveryPoster,
  clock: Clock,
): Promise<Outcome> {
  return { delivery, scheduled, ...(await poster.post(delivery, clock)) };
}

/*
 * Writes the outcomes of one restaurant's sends in one transaction: each webhook's failure streak
 * (switching-off.ts); the log rows; a success ends its delivery; a failed scheduled attempt sets
 * the next (none after the 8th: given up), unless a newer send of the delivery started meanwhile
 * or it was skipped. One restaurant's, so that on Citus each statement runs on its shard alone
 * (the sender writes a batch's restaurants side by side: src/db/restaurant-batches.ts).
 */
export async function writeOutcomes(
  db: Db,
  clock: Clock,
  tenantId: string,
  outcomes: readonly Outcome[],
): Promise<void> {
  const succeeded = outcomes.filter((o) => o.error === null);
  const retried = outcomes.filter((o) => o.error !== null && o.scheduled);
  await db.transaction().execute(async (trx) => {
    // The webhooks first: Citus changes a reference table in a transaction only before the
    // restaurants' shards were written in parallel.
    await countOutcomes(
      systemCtx(trx, clock),
      outcomes.map((o) => ({ webhookId: o.delivery.webhook_id, ok: o.error === null, at: o.startedAt })),
    );
    await trx
      .insertInto('webhook_delivery_attempts')
      .values(
        outcomes.map((o) => ({
          tenant_id: tenantId,
          delivery_id: o.delivery.id,
          attempt: o.delivery.sends,
          started_at: o.startedAt,
          status_code: o.statusCode,
          duration_ms: o.durationMs,
          error: o.error,
        })),
      )
      .execute();
    if (succeeded.length > 0) {
      await sql`
        UPDATE webhook_deliveries d SET delivered_at = u.at, next_attempt_at = NULL
        FROM unnest(${succeeded.map((o) => o.delivery.id)}::uuid[],
                    ${succeeded.map((o) => o.startedAt.toISOString())}::timestamptz[]) AS u(id, at)
        WHERE d.tenant_id = ${tenantId} AND d.id = u.id AND d.delivered_at IS NULL`.execute(trx);
    }
    if (retried.length > 0) {
      const last = (o: Outcome) => o.delivery.attempts >= maxDeliveryAttempts;
      const at = (o: Outcome, wait: number) => new Date(o.startedAt.getTime() + wait).toISOString();
      await sql`
        UPDATE webhook_deliveries d SET next_attempt_at = u.next, given_up_at = u.given_up
        FROM unnest(${retried.map((o) => o.delivery.id)}::uuid[],
                    ${retried.map((o) => o.delivery.sends)}::int[],
                    ${retried.map((o) => (last(o) ? null : at(o, waitsBeforeAttempt[o.delivery.attempts + 1] ?? 0)))}::timestamptz[],
                    ${retried.map((o) => (last(o) ? at(o, 0) : null))}::timestamptz[]) AS u(id, send, next, given_up)
        WHERE d.tenant_id = ${tenantId} AND d.id = u.id AND d.sends = u.send
          AND d.delivered_at IS NULL AND d.skipped_at IS NULL`.execute(trx);
    }
  });
}
