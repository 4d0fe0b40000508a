import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type Db, postgresPoolOf } from '../db/client.ts';
import type { Clock } from '../domain/shared/context.ts';

/** How a scheduled webhook send ended: delivered, failed with attempts left, or failed for the last time. */
export type DeliveryOutcome = 'success' | 'failure' | 'given_up';

/**
 * The Prometheus metrics of one process (docs/operators.md, "Metrics and tracing", says what each
 * means). A registry of its own, not prom-client's global one: each test builds several.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly webhookDeliveries: Counter<'outcome'>;
  readonly webhookSendDuration: Histogram;
  readonly queuedJobs: Counter<'kind' | 'outcome'>;
  readonly workerJobRuns: Counter<'job' | 'outcome'>;
}

/** Seconds; the API's answers are mostly milliseconds, a webhook send may take its 10 s time-out. */
const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The metrics of a process on this database. The queues and the database pool are read when
 * scraped, not kept up to date: a scrape costs one query, on the queues' partial indexes.
 */
export function createMetrics(db: Db, clock: Clock): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const metrics: Metrics = {
    registry,
    httpRequests: new Counter({
      name: 'servery_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'servery_http_request_duration_seconds',
      help: 'Time from receiving an HTTP request to sending its answer, by method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: durationBuckets,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'servery_webhook_deliveries_total',
      help: 'Scheduled webhook sends by outcome: success, failure (will retry), given_up (the last attempt failed).',
      labelNames: ['outcome'],
      registers,
    }),
    webhookSendDuration: new Histogram({
      name: 'servery_webhook_send_duration_seconds',
      help: "Time a webhook send took, until the receiver's answer or the failure.",
      buckets: durationBuckets,
      registers,
    }),
    queuedJobs: new Counter({
      name: 'servery_queued_jobs_total',
      help: 'Runs of queued jobs (e-mail, menu images) by kind and outcome: success, failure (will retry), given_up.',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
    workerJobRuns: new Counter({
      name: 'servery_worker_job_runs_total',
      help: "Runs of the worker's interval jobs by job and outcome: success or failure.",
      labelNames: ['job', 'outcome'],
      registers,
    }),
  };
  registerQueueGauges(registry, db, clock);
  registerPoolGauges(registry, db);
  return metrics;
}

interface QueueState {
  eventsAwaitingFanout: number;
  webhooksDue: number;
  webhooksScheduled: number;
  webhooksOldestDueSeconds: number;
  jobsDue: number;
  jobsOldestDueSeconds: number;
}

/*
 * Open deliveries are the rows of the partial index webhook_deliveries_due (next_attempt_at set),
 * open jobs those of jobs_due: each count reads its index only. `due` is what a worker would
 * send now; a claimed delivery's next_attempt_at is its lease, so sends in flight are not due.
 * Events not yet made into deliveries are those without a position (events_unstamped) and those
 * past their restaurant's fan-out position. On Citus each count asks every shard (a scrape, not a
 * request).
 */
async function readQueues(db: Db, now: Date): Promise<QueueState> {
  const { rows } = await sql<{
    events_awaiting_fanout: string;
    webhooks_due: string;
    webhooks_scheduled: string;
    webhooks_oldest_due: Date | null;
    jobs_due: string;
    jobs_oldest_due: Date | null;
  }>`
    SELECT (SELECT count(*) FROM events WHERE position IS NULL)
        + (SELECT count(*) FROM events e LEFT JOIN webhook_fanout f ON f.tenant_id = e.tenant_id
           WHERE e.position > coalesce(f.position, 0))
        AS events_awaiting_fanout,
      w.due AS webhooks_due, w.scheduled AS webhooks_scheduled, w.oldest_due AS webhooks_oldest_due,
      j.due AS jobs_due, j.oldest_due AS jobs_oldest_due
    FROM (SELECT count(*) FILTER (WHERE next_attempt_at <= ${now}) AS due,
            count(*) FILTER (WHERE next_attempt_at > ${now}) AS scheduled,
            min(next_attempt_at) FILTER (WHERE next_attempt_at <= ${now}) AS oldest_due
          FROM webhook_deliveries WHERE next_attempt_at IS NOT NULL) w,
         (SELECT count(*) AS due, min(run_after) AS oldest_due
          FROM jobs WHERE done_at IS NULL AND failed_at IS NULL AND run_after <= ${now}
            AND (locked_until IS NULL OR locked_until <= ${now})) j`.execute(db);
  const [row] = rows;
  const age = (since: Date | null | undefined) => (since ? (now.getTime() - since.getTime()) / 1000 : 0);
  return {
    eventsAwaitingFanout: Number(row?.events_awaiting_fanout ?? 0),
    webhooksDue: Number(row?.webhooks_due ?? 0),
    webhooksScheduled: Number(row?.webhooks_scheduled ?? 0),
    webhooksOldestDueSeconds: age(row?.webhooks_oldest_due),
    jobsDue: Number(row?.jobs_due ?? 0),
    jobsOldestDueSeconds: age(row?.jobs_oldest_due),
  };
}

const unknownQueues: QueueState = {
  eventsAwaitingFanout: Number.NaN,
  webhooksDue: Number.NaN,
  webhooksScheduled: Number.NaN,
  webhooksOldestDueSeconds: Number.NaN,
  jobsDue: Number.NaN,
  jobsOldestDueSeconds: Number.NaN,
};

function registerQueueGauges(registry: Registry, db: Db, clock: Clock): void {
  // One query per scrape: the gauges are collected side by side and share the reading under way.
  // While the database does not answer they read NaN, and the rest of the scrape still works.
  let reading: Promise<QueueState> | null = null;
  const queues = () =>
    (reading ??= readQueues(db, clock.now())
      .catch(() => unknownQueues)
      .finally(() => {
        reading = null;
      }));
  const gauge = (name: string, help: string, value: (state: QueueState) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set(value(await queues()));
      },
    });
  gauge(
    'servery_webhook_events_awaiting_fanout',
    'Events recorded but not yet made into webhook deliveries (the worker does so several times a second).',
    (s) => s.eventsAwaitingFanout,
  );
  gauge(
    'servery_webhook_queue_due',
    'Webhook deliveries due to be sent now (not yet sent, or due for a retry).',
    (s) => s.webhooksDue,
  );
  gauge(
    'servery_webhook_queue_scheduled',
    'Webhook deliveries waiting for a later retry, or being sent right now.',
    (s) => s.webhooksScheduled,
  );
  gauge(
    'servery_webhook_queue_oldest_due_age_seconds',
    'How long the longest-waiting due webhook delivery has been due; 0 when none is.',
    (s) => s.webhooksOldestDueSeconds,
  );
  gauge('servery_job_queue_due', 'Queued jobs (e-mail, menu images) due to run now.', (s) => s.jobsDue);
  gauge(
    'servery_job_queue_oldest_due_age_seconds',
    'How long the longest-waiting due queued job has been due; 0 when none is.',
    (s) => s.jobsOldestDueSeconds,
  );
}

/** The pg pool's connections; PGlite has no pool (one connection in the process) and reports none. */
function registerPoolGauges(registry: Registry, db: Db): void {
  const pool = postgresPoolOf(db);
  if (!pool) return;
  const gauge = (name: string, help: string, value: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value());
      },
    });
  gauge('servery_db_pool_connections', 'Connections the database pool holds open.', () => pool.totalCount);
  gauge('servery_db_pool_idle_connections', 'Open pool connections not in use.', () => pool.idleCount);
  gauge(
    'servery_db_pool_waiting_requests',
    'Queries waiting for a pool connection (all connections in use).',
    () => pool.waitingCount,
  );
}

/*
 * Counts every answer by its route pattern (`/v1/orders/:id`, never the address with its ids, so
 * the series stay few); an address no route matches counts as `unmatched`.
 */
export function countRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    metrics.httpRequests.inc({ method, route, status: reply.statusCode });
    metrics.httpDuration.observe({ method, route }, reply.elapsedTime / 1000);
  });
}

/** Where the metrics are served (METRICS_LISTEN). */
export interface MetricsListen {
  readonly host: string;
  readonly port: number;
}

export interface MetricsServer {
  /** Where it listens (the port chosen when 0 was asked for). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves GET /metrics on a listener of its own, apart from the public port: the metrics tell
 * about every restaurant's traffic, so only operators' scrapers should reach them.
 */
export async function serveMetrics(
  listen: MetricsListen,
  metrics: Metrics,
  log: Logger,
): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (error: unknown) => {
        log.error({ err: error }, 'collecting metrics failed');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('collecting metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
