import DataLoader from 'dataloader';
import { type RawBuilder, sql } from 'kysely';
import type { Logger } from 'pino';
import { OutboundHttpClient } from '../../adapters/outbound-http.ts';
import type { Db } from '../../db/client.ts';
import { eventId } from '../events/positions.ts';
import { type Clock, systemCtx, wallClockTime } from '../shared/context.ts';
import { signatureHeader } from './signature.ts';
import { countOutcomes } from './switching-off.ts';

/** spec: Webhooks, Retries: the wait before attempt n (index n, from 1); attempt 1 is at once. */
const minute = 60 * 1000;
const waitsBeforeAttempt = [0, 0, 1, 5, 30, 120, 360, 720, 1440].map((m) => m * minute);
export const maxDeliveryAttempts = 8;

/** Most deliveries one claim takes. */
const claimBatch = 100;
/** Most sends one worker process has open at once, in all and to one webhook. */
const maxInFlight = 500;
const maxInFlightPerWebhook = 100;
/** A claimed delivery whose worker died is sent again this long after its time-out. */
const leaseMarginMs = 5000;

export interface WebhookDeliverySettings {
  /** The guarded outbound client: public addresses only. */
  http: OutboundHttpClient;
  /**
   * WEBHOOKS_ALLOW_INSECURE: a client that reaches loopback receivers too, for test restaurants'
   * events only, which may then go to http addresses as well; null when the setting is off.
   */
  insecureHttp: OutboundHttpClient | null;
  /** `Service-Webhooks/1.0 (+<documentation address>)`. */
  userAgent: string;
  /** The response time-out: 10 s (spec: Limits); tests shorten it. */
  timeoutMs: number;
}

/** The delivery settings of a deployment: the 10 s time-out, the documentation address in the User-Agent. */
export function webhookDeliverySettings(config: {
  baseUrl: string;
  webhooksAllowInsecure: boolean;
}): WebhookDeliverySettings {
  return {
    http: new OutboundHttpClient(),
    insecureHttp: config.webhooksAllowInsecure ? new OutboundHttpClient({ allowLoopback: true }) : null,
    userAgent: `Service-Webhooks/1.0 (+${config.baseUrl}/v1/openapi.json)`,
    timeoutMs: 10_000,
  };
}

/** A delivery taken for one send, with everything the send needs. */
interface Claimed {
  id: string;
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
  return sql`d.id, d.webhook_id, d.position::text AS position, d.audience_id, d.event_type, d.livemode,
    d.attempts, d.sends, w.url, e.body,
    (SELECT array_agg(s.secret ORDER BY s.created_at DESC, s.id DESC) FROM webhook_secrets s
      WHERE s.webhook_id = d.webhook_id AND (s.expires_at IS NULL OR s.expires_at > ${now})) AS secrets`;
}

/*
 * Claims due deliveries of enabled webhooks (FOR UPDATE SKIP LOCKED, so concurrent workers take
 * different ones) and counts their attempt in the same statement. next_attempt_at moves past the
 * send's time-out (a lease): the outcome sets the real next time, and if this worker dies the
 * delivery is sent again once the lease ends. No transaction stays open during the send.
 */
async function claimDue(
  db: Db,
  now: Date,
  limit: number,
  leaseMs: number,
  busyWebhooks: readonly string[],
): Promise<Claimed[]> {
  const result = await sql<Claimed>`
    UPDATE webhook_deliveries d
    SET attempts = d.attempts + 1, sends = d.sends + 1, next_attempt_at = ${new Date(now.getTime() + leaseMs)}
    FROM (
      SELECT q.id FROM webhook_deliveries q JOIN webhooks qw ON qw.id = q.webhook_id
      WHERE q.next_attempt_at <= ${now} AND qw.enabled AND q.webhook_id <> all(${busyWebhooks}::uuid[])
      ORDER BY q.next_attempt_at
      LIMIT ${limit}
      FOR UPDATE OF q SKIP LOCKED
    ) due, webhooks w, event_envelopes e
    WHERE d.id = due.id AND w.id = d.webhook_id
      AND e.tenant_id = d.tenant_id AND e.position = d.position AND e.audience_id = d.audience_id
    RETURNING ${claimedColumns(now)}`.execute(db);
  return result.rows;
}

/** Takes one delivery for a send outside the schedule (a resend): its number goes on, the 8 do not. */
export async function claimForResend(db: Db, now: Date, deliveryId: string): Promise<Claimed> {
  const result = await sql<Claimed>`
    UPDATE webhook_deliveries d SET sends = d.sends + 1
    FROM webhooks w, event_envelopes e
    WHERE d.id = ${deliveryId} AND w.id = d.webhook_id
      AND e.tenant_id = d.tenant_id AND e.position = d.position AND e.audience_id = d.audience_id
    RETURNING ${claimedColumns(now)}`.execute(db);
  const [claimed] = result.rows;
  if (!claimed) throw new Error(`no delivery ${deliveryId}`);
  return claimed;
}

/** One send's result, as the delivery log keeps it. */
export interface Outcome {
  delivery: Claimed;
  /** A scheduled attempt (a failure sets the next one) or a resend (a failure changes nothing). */
  scheduled: boolean;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/*
 * One send: a success is a 2xx answer within the time-out; a redirect (not followed), any other
 * status, a time-out, a refused or reset connection, or an address that is not allowed (the
 * outbound client checks the address it connects to, so DNS rebinding cannot get past it) are
 * failures. The response body is not read.
 */
export async function send(
  delivery: Claimed,
  scheduled: boolean,
  settings: WebhookDeliverySettings,
  clock: Clock,
): Promise<Outcome> {
  const startedAt = clock.now();
  const began = performance.now();
  // The receiver checks the signature's time against its own clock (5 minutes with the usual
  // verifiers): a sandbox clock's lead stays out of it.
  const result = await post(delivery, settings, wallClockTime(clock));
  return { delivery, scheduled, startedAt, durationMs: Math.round(performance.now() - began), ...result };
}

async function post(
  delivery: Claimed,
  settings: WebhookDeliverySettings,
  now: Date,
): Promise<{ statusCode: number | null; error: string | null }> {
  const url = new URL(delivery.url);
  // Insecure receivers only for test restaurants' events (webhook-address.ts).
  const insecureHttp = delivery.livemode ? null : settings.insecureHttp;
  if (url.protocol !== 'https:' && !(insecureHttp && url.protocol === 'http:'))
    return { statusCode: null, error: 'The webhook address is not https.' };
  try {
    const response = await (insecureHttp ?? settings.http).fetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(settings.timeoutMs),
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': settings.userAgent,
        'Service-Signature': signatureHeader(delivery.body, delivery.secrets, now),
        'Service-Event-Id': eventId(delivery.position, delivery.audience_id),
        'Service-Event-Type': delivery.event_type,
        'Service-Delivery-Attempt': String(delivery.sends),
      },
      body: delivery.body,
    });
    await response.body?.cancel();
    const ok = response.status >= 200 && response.status < 300;
    return { statusCode: response.status, error: ok ? null : `HTTP ${response.status}` };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError')
      return { statusCode: null, error: `No answer within ${settings.timeoutMs} ms.` };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { statusCode: null, error: cause?.code ?? cause?.message ?? (error as Error).message };
  }
}

/*
 * Writes outcomes, many sends in one transaction: the log rows; a success ends its delivery; a
 * failed scheduled attempt sets the next (none after the 8th: given up), unless a newer send of
 * the delivery started meanwhile or it was skipped; then each webhook's failure streak
 * (switching-off.ts).
 */
export async function writeOutcomes(db: Db, clock: Clock, outcomes: readonly Outcome[]): Promise<void> {
  const succeeded = outcomes.filter((o) => o.error === null);
  const retried = outcomes.filter((o) => o.error !== null && o.scheduled);
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_delivery_attempts')
      .values(
        outcomes.map((o) => ({
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
        WHERE d.id = u.id AND d.delivered_at IS NULL`.execute(trx);
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
        WHERE d.id = u.id AND d.sends = u.send AND d.delivered_at IS NULL AND d.skipped_at IS NULL`.execute(
        trx,
      );
    }
    await countOutcomes(
      systemCtx(trx, clock),
      outcomes.map((o) => ({ webhookId: o.delivery.webhook_id, ok: o.error === null, at: o.startedAt })),
    );
  });
}

/**
 * Sends due deliveries (one per worker process). Sends run in the background, up to 500 at once
 * and 100 to one webhook, so a receiver that hangs holds up at most its own deliveries. When a send ends and more is due, the
 * sender claims again at once rather than at the next tick. Outcomes are written in batches.
 */
export class WebhookSender {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #settings: WebhookDeliverySettings;
  readonly #log: Logger;
  readonly #outcomes: DataLoader<Outcome, void>;
  /** Sends not yet written (in flight, or waiting for their outcome's batch). */
  readonly #unwritten = new Set<Promise<void>>();
  /** Sends in flight per webhook. */
  readonly #perWebhook = new Map<string, number>();
  #inFlight = 0;
  /** The claiming under way: one at a time. */
  #claiming: Promise<number> | null = null;
  /** The last claim took all it could, or left out busy webhooks: claim again when a send ends. */
  #claimAgain = false;

  constructor(db: Db, clock: Clock, settings: WebhookDeliverySettings, log: Logger) {
    this.#db = db;
    this.#clock = clock;
    this.#settings = settings;
    this.#log = log;
    this.#outcomes = new DataLoader<Outcome, void>(
      async (batch) => {
        await writeOutcomes(db, clock, batch);
        return batch.map(() => undefined);
      },
      { cache: false, maxBatchSize: 200, batchScheduleFn: (write) => setTimeout(write, 5) },
    );
  }

  /** Claims what is due while there is room and starts sending it; returns how many it started. */
  deliverDue(): Promise<number> {
    this.#claiming ??= this.#claimWhileRoom().finally(() => {
      this.#claiming = null;
    });
    return this.#claiming;
  }

  /** Resolves once every send started so far has its outcome written. */
  async idle(): Promise<void> {
    while (this.#unwritten.size > 0 || this.#claiming) {
      await this.#claiming;
      await Promise.all(this.#unwritten);
    }
  }

  async #claimWhileRoom(): Promise<number> {
    let started = 0;
    for (;;) {
      const busy = [...this.#perWebhook].filter(([, n]) => n >= maxInFlightPerWebhook).map(([id]) => id);
      // A claim may take every delivery for one webhook: never more than the busiest one not yet full may add.
      const fullest = Math.max(0, ...[...this.#perWebhook.values()].filter((n) => n < maxInFlightPerWebhook));
      const room = Math.min(claimBatch, maxInFlight - this.#inFlight, maxInFlightPerWebhook - fullest);
      this.#claimAgain = room <= 0 || busy.length > 0;
      if (room <= 0) break;
      const leaseMs = this.#settings.timeoutMs + leaseMarginMs;
      const claimed = await claimDue(this.#db, this.#clock.now(), room, leaseMs, busy);
      for (const delivery of claimed) this.#start(delivery);
      started += claimed.length;
      if (claimed.length < room) break;
    }
    return started;
  }

  #start(delivery: Claimed): void {
    const count = (delta: number) => {
      this.#inFlight += delta;
      const n = (this.#perWebhook.get(delivery.webhook_id) ?? 0) + delta;
      if (n === 0) this.#perWebhook.delete(delivery.webhook_id);
      else this.#perWebhook.set(delivery.webhook_id, n);
    };
    count(1);
    const unwritten = send(delivery, true, this.#settings, this.#clock)
      .finally(() => {
        count(-1);
        if (this.#claimAgain && !this.#claiming)
          this.deliverDue().catch((error: unknown) =>
            this.#log.error({ err: error }, 'claiming webhook deliveries failed'),
          );
      })
      .then((outcome) => this.#outcomes.load(outcome))
      // Unwritten, the delivery is sent again once its lease ends.
      .catch((error: unknown) => this.#log.error({ err: error }, 'writing webhook delivery outcomes failed'))
      .finally(() => this.#unwritten.delete(unwritten));
    this.#unwritten.add(unwritten);
  }
}
