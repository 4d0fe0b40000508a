import DataLoader from 'dataloader';
import type { Logger } from 'pino';
import type { WebhookDeliverySettings } from '../adapters/webhook-post.ts';
import type { Db } from '../db/client.ts';
import { perRestaurant } from '../db/restaurant-batches.ts';
import type { Clock } from '../domain/shared/context.ts';
import {
  type ClaimedDelivery,
  claimDue,
  maxDeliveryAttempts,
  type Outcome,
  send,
  writeOutcomes,
} from '../domain/webhooks/delivery.ts';
import type { DeliveryOutcome, Metrics } from '../observability/metrics.ts';
import { inSpan } from '../observability/tracing.ts';

/** Most deliveries one claim takes. */
const claimBatch = 100;
/** Most sends one worker process has open at once, in all and to one webhook. */
const maxInFlight = 500;
const maxInFlightPerWebhook = 100;
/** A claimed delivery whose worker died is sent again this long after its time-out. */
const leaseMarginMs = 5000;
/** The first wait before an outcome's failed write is tried again; it doubles each time. */
const firstRewriteWaitMs = 100;

/** A send's outcome, and when its delivery's lease ends (performance.now()). */
interface Unwritten {
  outcome: Outcome;
  leaseEnds: number;
}

/**
 * Sends due deliveries (one per worker process), claimed and settled by the rules of
 * domain/webhooks/delivery.ts and posted through the settings (adapters/webhook-post.ts). Sends
 * run in the background, up to 500 at once and 100 to one webhook, so a receiver that hangs holds
 * up at most its own deliveries. When a send ends and more is due, the sender claims again at
 * once rather than at the next tick. Outcomes are written in batches, a transaction per restaurant.
 */
export class WebhookSender {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #settings: WebhookDeliverySettings;
  readonly #log: Logger;
  readonly #metrics: Metrics | undefined;
  readonly #outcomes: DataLoader<Unwritten, void>;
  /** Sends not yet written (in flight, or waiting for their outcome's batch). */
  readonly #unwritten = new Set<Promise<void>>();
  /** Sends in flight per webhook. */
  readonly #perWebhook = new Map<string, number>();
  #inFlight = 0;
  /** The claiming under way: one at a time. */
  #claiming: Promise<number> | null = null;
  /** The last claim took all it could, or left out busy webhooks: claim again when a send ends. */
  #claimAgain = false;

  constructor(db: Db, clock: Clock, settings: WebhookDeliverySettings, log: Logger, metrics?: Metrics) {
    this.#db = db;
    this.#clock = clock;
    this.#settings = settings;
    this.#log = log;
    this.#metrics = metrics;
    this.#outcomes = new DataLoader<Unwritten, void>(
      (batch) =>
        perRestaurant(
          batch,
          ({ outcome }) => outcome.delivery.tenant_id,
          async (unwritten, tenantId) => {
            await this.#write(tenantId as string, unwritten);
            return unwritten.map(() => undefined);
          },
        ),
      { cache: false, maxBatchSize: 200, batchScheduleFn: (write) => setTimeout(write, 5) },
    );
  }

  /**
   * Writes one restaurant's outcomes. A write that fails (the database broke a deadlock with it,
   * no pool connection came in time, a node did not answer) is tried again, after a growing wait,
   * while the deliveries' leases last: unwritten, they would be sent a second time.
   */
  async #write(tenantId: string, unwritten: Unwritten[]): Promise<void> {
    const leaseEnds = Math.min(...unwritten.map((u) => u.leaseEnds));
    const outcomes = unwritten.map((u) => u.outcome);
    for (let wait = firstRewriteWaitMs; ; wait *= 2) {
      try {
        return await writeOutcomes(this.#db, this.#clock, tenantId, outcomes);
      } catch (error) {
        if (performance.now() + wait >= leaseEnds) throw error;
        this.#log.warn({ err: error }, 'writing webhook delivery outcomes failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
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
      const claiming = performance.now();
      const claimed = await claimDue(this.#db, this.#clock.now(), room, leaseMs, busy);
      for (const delivery of claimed) this.#start(delivery, claiming + leaseMs);
      started += claimed.length;
      if (claimed.length < room) break;
    }
    return started;
  }

  #start(delivery: ClaimedDelivery, leaseEnds: number): void {
    const count = (delta: number) => {
      this.#inFlight += delta;
      const n = (this.#perWebhook.get(delivery.webhook_id) ?? 0) + delta;
      if (n === 0) this.#perWebhook.delete(delivery.webhook_id);
      else this.#perWebhook.set(delivery.webhook_id, n);
    };
    count(1);
    const attributes = {
      'servery.webhook.id': delivery.webhook_id,
      'servery.event.type': delivery.event_type,
      'servery.delivery.attempt': delivery.attempts,
    };
    const unwritten = inSpan('webhook delivery', attributes, () =>
      send(delivery, true, this.#settings, this.#clock),
    )
      .finally(() => {
        count(-1);
        if (this.#claimAgain && !this.#claiming)
          this.deliverDue().catch((error: unknown) =>
            this.#log.error({ err: error }, 'claiming webhook deliveries failed'),
          );
      })
      .then(async (outcome) => {
        await this.#outcomes.load({ outcome, leaseEnds });
        this.#count(outcome);
      })
      // Still unwritten when the lease ended, the delivery is sent again.
      .catch((error: unknown) => this.#log.error({ err: error }, 'writing webhook delivery outcomes failed'))
      .finally(() => this.#unwritten.delete(unwritten));
    this.#unwritten.add(unwritten);
  }

  /** A failed last attempt gives the delivery up (delivery.ts): counted apart from those retried. */
  #count(outcome: Outcome): void {
    if (!this.#metrics) return;
    const failed: DeliveryOutcome = outcome.delivery.attempts >= maxDeliveryAttempts ? 'given_up' : 'failure';
    this.#metrics.webhookDeliveries.inc({ outcome: outcome.error === null ? 'success' : failed });
    this.#metrics.webhookSendDuration.observe(outcome.durationMs / 1000);
  }
}
