import type { Db } from '../../db/client.ts';
import type { Clock } from './context.ts';
import { InputError } from './errors.ts';

/*
 * The sandbox clock (SANDBOX_CLOCK, development only): the system clock plus an offset kept in
 * the database (migration 0014), so that every process of the installation, API and workers, reads
 * the same time. `servery clock advance` moves it forward; every time rule reads it (access-token
 * and code expiry, the refresh grace, pause ends, webhook retries…), and rate-limit windows start
 * anew (src/adapters/rate-limit-stores.ts). What other machines check against their own clocks
 * (webhook signatures, second-factor codes) takes the lead off again (wallClockTime, context.ts).
 */

/** How often a running process reads the offset: a move reaches every process within this. */
export const sandboxClockRefreshMs = 1000;

/** The farthest the clock may be ahead: ten years (dates stay far from any limit). */
export const maxSandboxOffsetSeconds = 3650 * 24 * 3600;

export interface SandboxClock extends Clock {
  readonly offsetMs: number;
  /** Stops reading the offset; call it before the database closes. */
  stop(): void;
}

async function readOffsetMs(db: Db): Promise<number> {
  const row = await db.selectFrom('sandbox_clock').select('offset_seconds').executeTakeFirstOrThrow();
  return row.offset_seconds * 1000;
}

/** A running service's sandbox clock: it reads the offset now and then every second. */
export async function openSandboxClock(db: Db): Promise<SandboxClock> {
  let offsetMs = await readOffsetMs(db);
  let reading = false;
  const timer = setInterval(() => {
    if (reading) return;
    reading = true;
    readOffsetMs(db)
      .then((read) => {
        offsetMs = read;
      })
      // While the database cannot be reached the clock keeps its last offset; the outage itself is
      // reported by the requests and jobs that fail.
      .catch(() => {})
      .finally(() => {
        reading = false;
      });
  }, sandboxClockRefreshMs);
  timer.unref();
  return {
    now: () => new Date(Date.now() + offsetMs),
    get offsetMs() {
      return offsetMs;
    },
    stop: () => clearInterval(timer),
  };
}

/** The sandbox clock read once, for an admin command that lasts a moment. */
export async function readSandboxClock(db: Db): Promise<Clock> {
  const offsetMs = await readOffsetMs(db);
  return { now: () => new Date(Date.now() + offsetMs), offsetMs };
}

/** Moves the clock `seconds` forward; returns the new offset in seconds. */
export async function advanceSandboxClock(db: Db, seconds: number): Promise<number> {
  const row = await db
    .updateTable('sandbox_clock')
    .set((eb) => ({ offset_seconds: eb('offset_seconds', '+', seconds) }))
    .where('offset_seconds', '<=', maxSandboxOffsetSeconds - seconds)
    .returning('offset_seconds')
    .executeTakeFirst();
  if (!row) throw new InputError('the sandbox clock cannot be more than 3650 days ahead: reset it first');
  return row.offset_seconds;
}

/** Sets the clock back to the system time; returns the new offset, 0. */
export async function resetSandboxClock(db: Db): Promise<number> {
  await db.updateTable('sandbox_clock').set({ offset_seconds: 0 }).execute();
  return 0;
}
