import type { Db } from '../db/client.ts';
import type { JobKind, JobPayloads } from '../domain/jobs/jobs.ts';
import { type Clock, type Ctx, systemCtx } from '../domain/shared/context.ts';
import { inSpan } from '../observability/tracing.ts';
import type { JobServices } from './worker.ts';

/*
 * The job queue: one table (`jobs`, migration 0015) for background work other than webhook
 * delivery, filled by enqueueJob (domain/jobs/jobs.ts) in the caller's transaction.
 *
 * Ours, not graphile-worker's or pg-boss's: both need node-postgres connections (a pool,
 * LISTEN/NOTIFY, schema migrations of their own), but `npm start` runs on PGlite (embedded, one
 * connection in this process), and the same schema and code serve both databases. A table
 * claimed with FOR UPDATE SKIP LOCKED and a lease runs on both, and is all we need of them:
 * - a claim takes due jobs of the kinds this worker runs (`run_after <= now`, lease free) with
 *   FOR UPDATE SKIP LOCKED, counts the attempt and sets the lease in the same statement: several
 *   workers at once each take different jobs, and no transaction stays open while a job runs;
 * - a worker that dies mid-run leaves its jobs to be claimed again once the lease is over (a job
 *   runs at least once; twice only after such a crash), so a handler must end well within it;
 * - a failed run keeps its error and is due again after its kind's backoff (1 minute, doubling);
 *   after its kind's most attempts (10) it is given up: failed_at, logged at error;
 * - an outcome is written only while the claim is the newest (same attempts), so a run that
 *   outlived its lease cannot undo a newer one's.
 */
const leaseMs = 10 * 60 * 1000;
/** Jobs claimed per run, run side by side. */
const batchSize = 10;

export const defaultMaxAttempts = 10;

/** The default wait after the n-th failed run: 1 minute, doubling (the 9th: a little over 4 hours). */
export function defaultRetryDelayMs(failedAttempts: number): number {
  return 60_000 * 2 ** (failedAttempts - 1);
}

/** A job taken for one run. */
export interface ClaimedJob {
  id: string;
  kind: string;
  payload: unknown;
  tenant_id: string | null;
  /** Runs started, this one included. */
  attempts: number;
}

/** What runs the jobs of one kind, and how its failures are retried. */
export interface JobHandler<Payload> {
  /**
   * Does the work; a throw is a failed run. `ctx`: the system, acting for the job's restaurant
   * (if any), on the worker's database and clock, with its image fetcher.
   */
  run(payload: Payload, services: JobServices, job: ClaimedJob, ctx: Ctx): Promise<void>;
  /** Runs before giving up (default 10). */
  maxAttempts?: number;
  /** The wait after the n-th failed run (default: 1 minute, doubling). */
  retryDelayMs?(failedAttempts: number): number;
  /** What the log says of a failed run, e.g. `e-mail not sent` (default `queued job failed`). */
  failure?: string;
}

/** A handler for every kind of job there is. */
export type JobHandlers = { readonly [K in JobKind]: JobHandler<JobPayloads[K]> };

/** Takes up to `limit` due jobs of these kinds for this worker, longest due first. */
export function claimDueJobs(
  db: Db,
  now: Date,
  kinds: readonly string[],
  limit: number,
): Promise<ClaimedJob[]> {
  return db
    .updateTable('jobs')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), locked_until: new Date(now.getTime() + leaseMs) }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('jobs')
        .select('id')
        .where('done_at', 'is', null)
        .where('failed_at', 'is', null)
        .where('run_after', '<=', now)
        .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<=', now)]))
        .where('kind', 'in', kinds)
        .orderBy('run_after')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['id', 'kind', 'payload', 'tenant_id', 'attempts'])
    .execute();
}

export async function markJobDone(db: Db, job: ClaimedJob, now: Date): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ done_at: now, locked_until: null })
    .where('id', '=', job.id)
    .where('attempts', '=', job.attempts)
    .execute();
}

/** Records a failed run: due again after the backoff, or given up after the last attempt. */
export async function markJobFailed(
  db: Db,
  job: ClaimedJob,
  error: string,
  now: Date,
  retryAfterMs: number | null,
): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      locked_until: null,
      last_error: error.slice(0, 1000),
      ...(retryAfterMs === null ? { failed_at: now } : { run_after: new Date(now.getTime() + retryAfterMs) }),
    })
    .where('id', '=', job.id)
    .where('attempts', '=', job.attempts)
    .execute();
}

/**
 * Runs one batch of due jobs, side by side, each by its kind's handler; with nothing due, a run
 * is one UPDATE that finds no row. Returns how many succeeded.
 */
export async function runDueJobs(
  db: Db,
  clock: Clock,
  services: JobServices,
  handlers: JobHandlers,
): Promise<number> {
  const byKind: Readonly<Record<string, JobHandler<never>>> = handlers;
  const claimed = await claimDueJobs(db, clock.now(), Object.keys(byKind), batchSize);
  const results = await Promise.allSettled(
    claimed.map(async (job) => {
      const handler = byKind[job.kind] as JobHandler<unknown>;
      try {
        const ctx = { ...systemCtx(db, clock), tenantId: job.tenant_id, images: services.images };
        const attributes = { 'servery.job.kind': job.kind, 'servery.job.attempt': job.attempts };
        await inSpan(`job ${job.kind}`, attributes, () => handler.run(job.payload, services, job, ctx));
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const retry = job.attempts < (handler.maxAttempts ?? defaultMaxAttempts);
        const waitMs = (handler.retryDelayMs ?? defaultRetryDelayMs)(job.attempts);
        await markJobFailed(db, job, reason, clock.now(), retry ? waitMs : null);
        services.metrics?.queuedJobs.inc({ kind: job.kind, outcome: retry ? 'failure' : 'given_up' });
        const details = { job: job.id, kind: job.kind, attempts: job.attempts, error: reason };
        const failure = handler.failure ?? 'queued job failed';
        if (retry) services.log.warn(details, `${failure}, will retry`);
        else services.log.error(details, `${failure}, given up`);
        return false;
      }
      await markJobDone(db, job, clock.now());
      services.metrics?.queuedJobs.inc({ kind: job.kind, outcome: 'success' });
      return true;
    }),
  );
  // Every run has settled (so a stopping worker waits for all of them); then a failure to record
  // one is this run's failure.
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  return results.filter((result) => result.status === 'fulfilled' && result.value).length;
}

/** Deletes jobs done or given up longer ago than `keepMs` (they are kept a while for operators). */
export async function purgeFinishedJobs(db: Db, now: Date, keepMs: number): Promise<void> {
  const before = new Date(now.getTime() - keepMs);
  await db
    .deleteFrom('jobs')
    .where((eb) => eb.or([eb('done_at', '<', before), eb('failed_at', '<', before)]))
    .execute();
}
