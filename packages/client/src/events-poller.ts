import { open, rename } from 'node:fs/promises';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { ServeryApiError, type ServeryClient } from './client.ts';
import type { EventsPage, ServeryEvent } from './types.ts';

/** Where the poller keeps its place in the feed: the `next_after` of the last page handled. */
export interface CursorStore {
  load(): Promise<string | null>;
  save(cursor: string): Promise<void>;
}

/** A cursor in a file of its own, replaced atomically (written aside, flushed, renamed) so a crash leaves the old or the new one. */
export class FileCursorStore implements CursorStore {
  readonly path: string;
  constructor(path: string) {
    this.path = path;
  }
  async load(): Promise<string | null> {
    let file: Awaited<ReturnType<typeof open>>;
    try {
      file = await open(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      return (await file.readFile('utf8')).trim() || null;
    } finally {
      await file.close();
    }
  }
  async save(cursor: string): Promise<void> {
    const aside = `${this.path}.${process.pid}.tmp`;
    const file = await open(aside, 'w');
    try {
      await file.writeFile(`${cursor}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(aside, this.path);
  }
}

export interface EventsPollerOptions {
  client: ServeryClient;
  cursor: CursorStore;
  /** Called for each event in feed order; the poller waits for it. Throwing stops the poller. */
  onEvent(event: ServeryEvent): void | Promise<void>;
  /**
   * The stored cursor was no longer kept (older than 30 days, or unknown): events were missed.
   * Resynchronise from the list endpoints (e.g. GET /orders?updated_since=...) here; the poller
   * then goes on with the oldest kept event.
   */
  onGap(missedAfter: string): void | Promise<void>;
  /** Without a stored cursor: from the oldest kept event (default) or only events from now on. */
  startAt?: 'oldest' | 'latest';
  /** Only these types or groups, e.g. `order.*,store.paused`. */
  types?: string;
  /** Events per page, 1 to 100 (the API's default is 50). */
  limit?: number;
  /** Wait after a page without more events before asking again: 5 s unless told. */
  intervalMs?: number;
  /** Waits after failed requests double from this (1 s) up to `maxBackoffMs` (60 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Told of every failure the poller will retry, and how long it waits first (for logs). */
  onRetry?(error: unknown, waitMs: number): void;
  /** Stops the poller: it finishes the page it is handing out, then resolves. */
  signal?: AbortSignal;
  /** How the poller waits; the timers unless told (tests move a clock instead). */
  sleep?(ms: number, signal: AbortSignal | undefined): Promise<void>;
}

/*
 * Polls GET /events from the stored cursor until `signal` aborts (spec: Events, Fetching):
 * - hands each event of a page to `onEvent` in order, then stores the page's `next_after`: after a
 *   stop or a crash the next run continues after the last whole page (a crash inside a page hands
 *   that page out again, so handlers deduplicate by event id);
 * - `has_more`: fetches again at once; otherwise waits `intervalMs`;
 * - `gap: true` (the cursor expired): calls `onGap` before the page's events;
 * - 429: waits `Retry-After`; 5xx, 409 `conflict`/`idempotency_in_progress` and network failures:
 *   waits with doubling delays; other API errors (401, 403, 400, ...) stop it with the error, since
 *   asking again unchanged cannot help.
 */
export async function pollEvents(options: EventsPollerOptions): Promise<void> {
  const { client, signal } = options;
  const sleep = options.sleep ?? ((ms, sig) => sleepFor(ms, undefined, { signal: sig }));
  const minBackoffMs = options.minBackoffMs ?? 1000;
  const maxBackoffMs = options.maxBackoffMs ?? 60_000;
  let after = (await options.cursor.load()) ?? (options.startAt === 'latest' ? 'latest' : undefined);
  let failures = 0;
  while (!signal?.aborted) {
    let page: EventsPage;
    try {
      const { data } = await client.GET('/events', {
        params: { query: { after, types: options.types, limit: options.limit } },
        signal,
      });
      if (!data) throw new Error('GET /events answered without a body');
      page = data;
      failures = 0;
    } catch (error) {
      if (signal?.aborted) return;
      const waitMs = retryWait(error, ++failures, minBackoffMs, maxBackoffMs);
      if (waitMs === null) throw error;
      options.onRetry?.(error, waitMs);
      if (!(await waited(sleep, waitMs, signal))) return;
      continue;
    }
    if (page.gap && after !== undefined && after !== 'latest') await options.onGap(after);
    for (const event of page.data) await options.onEvent(event);
    if (page.next_after !== after) {
      await options.cursor.save(page.next_after);
      after = page.next_after;
    }
    if (!page.has_more && !(await waited(sleep, options.intervalMs ?? 5000, signal))) return;
  }
}

/** How long to wait before asking again after this failure, or null when asking again cannot help. */
function retryWait(error: unknown, failures: number, minMs: number, maxMs: number): number | null {
  const backoff = Math.min(maxMs, minMs * 2 ** (failures - 1));
  if (!(error instanceof ServeryApiError)) return backoff; // the network, or no answer at all
  if (error.status === 429) return error.retryAfter !== null ? error.retryAfter * 1000 : backoff;
  if (error.status >= 500) return backoff;
  if (error.code === 'conflict' || error.code === 'idempotency_in_progress') return backoff;
  return null;
}

/** Whether the wait ran to its end (false: the signal aborted it). */
async function waited(
  sleep: NonNullable<EventsPollerOptions['sleep']>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (signal?.aborted) return false;
  try {
    await sleep(ms, signal);
  } catch (error) {
    if (signal?.aborted) return false;
    throw error;
  }
  return !signal?.aborted;
}
