import type { Logger } from 'pino';
import type { WebhookDeliverySettings } from '../adapters/webhook-post.ts';
import { DatabaseOutage } from '../db/availability.ts';
import type { Db } from '../db/client.ts';
import { purgeExpiredSessions } from '../domain/accounts/sessions.ts';
import { purgeOldEvents } from '../domain/events/retention.ts';
import { purgeExpiredKeys } from '../domain/idempotency/idempotency.store.ts';
import { putBackOnSale } from '../domain/menu/back-on-sale.ts';
import { expireUnpaidOrders } from '../domain/payments/payments.service.ts';
import type { Clock } from '../domain/shared/context.ts';
import type { ImageFetcher } from '../domain/shared/image-fetcher.ts';
import { clearEndedBusyPeriods, liftEndedPauses } from '../domain/store/store.service.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { EmailTransport } from './email-transport.ts';
import { jobHandlers } from './job-kinds.ts';
import { purgeFinishedJobs, runDueJobs } from './job-queue.ts';
import { runWebhookDelivery } from './webhook-delivery.job.ts';
import { WebhookSender } from './webhook-sender.ts';

/** What jobs (on an interval or queued) reach besides the database and the clock. */
export interface JobServices {
  log: Logger;
  emailTransport: EmailTransport;
  /** Needed by the webhook delivery job only. */
  webhooks?: WebhookSender;
  /** Downloads menu images: needed by the job `menu-images` only. */
  images?: ImageFetcher;
  /** Counts the runs of queued jobs (METRICS_LISTEN). */
  metrics?: Metrics;
  /** How long a kitchen's network printer has to take a ticket (default 3 s; tests shorten it). */
  printerTimeoutMs?: number;
}

export interface Job {
  name: string;
  everyMs: number;
  run(db: Db, clock: Clock, services: JobServices): Promise<unknown>;
}

/** How long the queue keeps jobs done or given up, for operators to look into. */
const finishedJobsKeptMs = 30 * 24 * 60 * 60 * 1000;

/**
 * The background jobs of the worker role, each on its interval; one of them runs the job queue
 * (job-queue.ts, the kinds in job-kinds.ts).
 */
export const jobs: readonly Job[] = [
  {
    name: 'purge expired idempotency keys',
    everyMs: 10 * 60 * 1000,
    run: (db, clock) => purgeExpiredKeys(db, clock.now()),
  },
  {
    name: 'purge expired sign-in sessions',
    everyMs: 60 * 60 * 1000,
    run: (db, clock) => purgeExpiredSessions(db, clock.now()),
  },
  {
    name: 'purge events past retention',
    everyMs: 60 * 60 * 1000,
    run: (db, clock) => purgeOldEvents(db, clock.now()),
  },
  {
    name: 'run queued jobs',
    everyMs: 1000,
    run: (db, clock, services) => runDueJobs(db, clock, services, jobHandlers),
  },
  {
    name: 'purge finished jobs',
    everyMs: 60 * 60 * 1000,
    run: (db, clock) => purgeFinishedJobs(db, clock.now(), finishedJobsKeptMs),
  },
  {
    name: 'lift ended store pauses',
    everyMs: 5000,
    run: (db, clock) => liftEndedPauses(db, clock),
  },
  {
    name: 'clear ended store busy periods',
    everyMs: 5000,
    run: (db, clock) => clearEndedBusyPeriods(db, clock),
  },
  {
    name: 'abandon orders whose online payment never came',
    everyMs: 60 * 1000,
    run: (db, clock) => expireUnpaidOrders(db, clock),
  },
  {
    name: 'put sold-out menu items back on sale',
    everyMs: 5000,
    run: (db, clock) => putBackOnSale(db, clock),
  },
  {
    name: 'deliver webhooks',
    // Often, so an event reaches its webhooks well within a second; runs overlap (delivery.ts).
    everyMs: 100,
    run: (db, clock, services) => {
      if (!services.webhooks) throw new Error('the webhook delivery job needs its sender');
      return runWebhookDelivery(db, clock, services.webhooks);
    },
  },
];

export interface Worker {
  /** Lets running jobs finish, then starts no more. */
  stop(): Promise<void>;
}

/**
 * Runs each job at once and then on its interval, skipping a turn while its previous run goes on;
 * one failing run is logged and retried on the next; while the database is unreachable every job
 * waits (DatabaseOutage).
 */
export function startWorker(
  db: Db,
  clock: Clock,
  log: Logger,
  emailTransport: EmailTransport,
  webhooks: WebhookDeliverySettings,
  images: ImageFetcher,
  metrics?: Metrics,
): Worker {
  const sender = new WebhookSender(db, clock, webhooks, log, metrics);
  const services: JobServices = { log, emailTransport, webhooks: sender, images, metrics };
  const timers: NodeJS.Timeout[] = [];
  const running = new Map<Job, Promise<unknown>>();
  const outage = new DatabaseOutage(log);
  let stopping = false;
  for (const job of jobs) {
    const tick = () => {
      if (stopping || running.has(job) || outage.waiting()) return;
      const run = job
        .run(db, clock, services)
        .then(() => {
          outage.succeeded();
          metrics?.workerJobRuns.inc({ job: job.name, outcome: 'success' });
        })
        .catch((error: unknown) => {
          metrics?.workerJobRuns.inc({ job: job.name, outcome: 'failure' });
          if (!outage.failed(error)) log.error({ err: error, job: job.name }, 'job failed');
        })
        .finally(() => running.delete(job));
      running.set(job, run);
    };
    tick();
    timers.push(setInterval(tick, job.everyMs));
  }
  return {
    async stop() {
      stopping = true;
      for (const timer of timers) clearInterval(timer);
      await Promise.all(running.values());
      await sender.idle();
    },
  };
}
