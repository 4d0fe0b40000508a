import type { Logger } from 'pino';

/*
 * Whether an error says the database could not be reached or was lost (refused, reset, timed out,
 * shutting down or starting up: SQLSTATE class 08 and 57P01–57P03), rather than that it refused a
 * query: what a process waits out instead of stopping.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    /^(08...|57P0[123]|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ENOTFOUND)$/.test(
      code,
    )
  )
    return true;
  return /^Connection terminated|^timeout exceeded when trying to connect|^Client has encountered a connection error/.test(
    error.message,
  );
}

const firstWaitMs = 250;
const longestWaitMs = 5000;

/**
 * Runs `work` (the first use of the database at start), and while the database is unreachable
 * runs it again after a growing wait (0.25 s doubling up to 5 s), saying so once, instead of
 * letting the process end. Gives up, with null, once `stopping()` says the process is stopping.
 */
export async function whenDatabaseAnswers<T>(
  work: () => Promise<T>,
  log: Logger,
  stopping: () => boolean,
): Promise<T | null> {
  let waitMs = 0;
  for (;;) {
    try {
      const result = await work();
      if (waitMs > 0) log.info('database reachable');
      return result;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      if (waitMs === 0) log.warn({ err: error }, 'database unreachable: waiting for it');
      waitMs = Math.min(Math.max(waitMs * 2, firstWaitMs), longestWaitMs);
    }
    for (const end = Date.now() + waitMs; Date.now() < end; ) {
      if (stopping()) return null;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/*
 * The worker while the database is unreachable: the first job failing for that says so once, then
 * every job waits a growing while (0.5 s doubling up to 10 s) before it runs again, instead of
 * failing and logging on every tick; the first run that succeeds says the database is back.
 */
export class DatabaseOutage {
  readonly #log: Logger;
  #since: number | null = null;
  #waitMs = 0;
  #resumeAt = 0;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Whether jobs wait now. */
  waiting(): boolean {
    return Date.now() < this.#resumeAt;
  }

  /** Takes a job's failure; false when it is no outage (the caller logs it as the job's own). */
  failed(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    if (this.#since === null) {
      this.#since = Date.now();
      this.#log.warn({ err: error }, 'database unreachable: jobs wait until it is back');
    }
    this.#waitMs = Math.min(Math.max(this.#waitMs * 2, 500), 10_000);
    this.#resumeAt = Date.now() + this.#waitMs;
    return true;
  }

  succeeded(): void {
    if (this.#since === null) return;
    this.#log.info({ unreachableMs: Date.now() - this.#since }, 'database reachable again: jobs resume');
    this.#since = null;
    this.#waitMs = 0;
    this.#resumeAt = 0;
  }
}
