import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../context.ts';
import { eventId } from '../events/positions.ts';
import { signatureHeader } from './signature.ts';
import { appSigningSecrets } from './signing-secrets.ts';
import { checkPublicHost } from './webhook-address.ts';

/** spec: Webhooks, Retries: the wait before attempt n+1 (index n, from 1); attempt 1 is at once. */
const minute = 60 * 1000;
const waitsBeforeAttempt = [
  0,
  0,
  1 * minute,
  5 * minute,
  30 * minute,
  120 * minute,
  360 * minute,
  720 * minute,
  1440 * minute,
];
export const maxDeliveryAttempts = 8;

/** How long an 8th attempt stays claimed (its result normally arrives within the time-out). */
const lastAttemptLeaseMs = 10 * minute;

/** Most deliveries one run sends (at once, in parallel). */
const deliveryBatch = 50;

export interface WebhookDeliverySettings {
  /** WEBHOOKS_ALLOW_INSECURE: http and loopback receivers, for test restaurants' events only. */
  allowInsecure: boolean;
  /** `Service-Webhooks/1.0 (+<documentation address>)`. */
  userAgent: string;
  /** The response time-out: 10 s (spec: Limits); tests shorten it. */
  timeoutMs: number;
}

interface ClaimedDelivery {
  id: string;
  app_id: string;
  tenant_id: string;
  position: string;
  connection_id: string;
  event_type: string;
  livemode: boolean;
  attempt: number;
  url: string;
  body: string;
  secrets: string[];
}

/*
 * Claims the due deliveries (FOR UPDATE SKIP LOCKED, so concurrent workers take different ones)
 * and counts their attempt: next_attempt_at moves to the time of the following attempt at once,
 * so the claim needs no transaction held during the send. Deliveries of a webhook switched off
 * meanwhile wait.
 */
async function claimDue(db: Db, now: Date): Promise<ClaimedDelivery[]> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('app_webhooks as w', 'w.app_id', 'd.app_id')
      .innerJoin('event_envelopes as e', (join) =>
        join
          .onRef('e.tenant_id', '=', 'd.tenant_id')
          .onRef('e.position', '=', 'd.position')
          .onRef('e.connection_id', '=', 'd.connection_id'),
      )
      .select([
        'd.id',
        'd.app_id',
        'd.tenant_id',
        sql<string>`d.position::text`.as('position'),
        'd.connection_id',
        'd.event_type',
        'd.livemode',
        'd.attempts',
        'w.url',
        'e.body',
      ])
      .where('d.next_attempt_at', '<=', now)
      .where('w.enabled', '=', true)
      .orderBy('d.next_attempt_at')
      .limit(deliveryBatch)
      .forUpdate('d')
      .skipLocked()
      .execute();
    const claimed: ClaimedDelivery[] = [];
    for (const row of due) {
      const attempt = row.attempts + 1;
      const next =
        attempt < maxDeliveryAttempts
          ? new Date(now.getTime() + (waitsBeforeAttempt[attempt + 1] ?? 0))
          : new Date(now.getTime() + lastAttemptLeaseMs);
      await trx
        .updateTable('webhook_deliveries')
        .set({ attempts: attempt, next_attempt_at: next })
        .where('id', '=', row.id)
        .execute();
      const secrets = await appSigningSecrets(trx, row.app_id, now);
      claimed.push({ ...row, attempt, secrets: secrets.map((s) => s.secret) });
    }
    return claimed;
  });
}

interface Outcome {
  statusCode: number | null;
  error: string | null;
}

/*
 * One send: a success is a 2xx answer within the time-out; a redirect (not followed), any other
 * status, a time-out, a refused or reset connection, or an address that is no longer allowed
 * (checked again right before, against DNS rebinding) are failures. The response body is not read.
 */
async function send(
  delivery: ClaimedDelivery,
  settings: WebhookDeliverySettings,
  clock: Clock,
): Promise<Outcome> {
  const url = new URL(delivery.url);
  // Insecure receivers only for test restaurants' events (webhook-address.ts).
  const allowInsecure = settings.allowInsecure && !delivery.livemode;
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:'))
    return { statusCode: null, error: 'The webhook address is not https.' };
  try {
    await checkPublicHost(url.hostname, { allowInsecure });
  } catch (error) {
    return { statusCode: null, error: (error as Error).message };
  }
  try {
    const response = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(settings.timeoutMs),
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': settings.userAgent,
        'Service-Signature': signatureHeader(delivery.body, delivery.secrets, clock.now()),
        'Service-Event-Id': eventId(delivery.position, delivery.connection_id),
        'Service-Event-Type': delivery.event_type,
        'Service-Delivery-Attempt': String(delivery.attempt),
      },
      body: delivery.body,
    });
    await response.body?.cancel();
    const ok = response.status >= 200 && response.status < 300;
    return { statusCode: response.status, error: ok ? null : `HTTP ${response.status}` };
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError')
      return { statusCode: null, error: `No answer within ${settings.timeoutMs} ms.` };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { statusCode: null, error: cause?.code ?? cause?.message ?? (error as Error).message };
  }
}

/** Logs the attempt; a success ends the delivery, as does a failed 8th attempt (given up). */
async function recordOutcome(
  db: Db,
  delivery: ClaimedDelivery,
  startedAt: Date,
  durationMs: number,
  outcome: Outcome,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_delivery_attempts')
      .values({
        delivery_id: delivery.id,
        attempt: delivery.attempt,
        started_at: startedAt,
        status_code: outcome.statusCode,
        duration_ms: Math.round(durationMs),
        error: outcome.error,
      })
      .execute();
    if (outcome.error === null) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ delivered_at: startedAt, next_attempt_at: null })
        .where('id', '=', delivery.id)
        .execute();
    } else if (delivery.attempt >= maxDeliveryAttempts) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ given_up_at: startedAt, next_attempt_at: null })
        .where('id', '=', delivery.id)
        .execute();
    }
  });
}

/** Sends every due delivery once, in parallel; a slow receiver holds up none of the others. */
export async function deliverDueWebhooks(
  db: Db,
  clock: Clock,
  settings: WebhookDeliverySettings,
): Promise<number> {
  const startedAt = clock.now();
  const claimed = await claimDue(db, startedAt);
  await Promise.all(
    claimed.map(async (delivery) => {
      const began = performance.now();
      const outcome = await send(delivery, settings, clock);
      await recordOutcome(db, delivery, startedAt, performance.now() - began, outcome);
    }),
  );
  return claimed.length;
}
