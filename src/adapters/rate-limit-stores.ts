import { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { type Db, postgresPoolOf } from '../db/client.ts';
import type { Clock } from '../domain/shared/context.ts';
import type { Limiter, Limiters, LimitState } from '../domain/shared/limits.ts';

/** Where the service keeps its data, which decides where the limits count. */
export interface LimitsStore {
  readonly db: Db;
  /** REDIS_URL: when set, the limits count in Redis. */
  readonly redisUrl?: string | null;
  /** Where a lost connection to Redis is reported. */
  readonly log?: { warn(details: object, message: string): void };
  /** The service's clock: when a sandbox clock moves, every window starts anew (see wrapLimiter). */
  readonly clock?: Clock;
}

/**
 * Values that replace those of every limit: a window of a second or two for tests of a window's
 * end, a limit the bench never reaches (it measures what counting costs, not refusals).
 */
export interface LimitOverrides {
  readonly points?: number;
  readonly durationSeconds?: number;
}

/** The rate-limiter-flexible table of migration 0005. */
const postgresTable = 'rate_limits';

/*
 * Where the counts live, chosen by how the service was started:
 * - REDIS_URL set: Redis, shared by every process that uses it. The cheapest shared store: a
 *   count is one Lua call, and the calls of one event-loop pass go out in one write (ioredis
 *   auto-pipelining). A Redis that cannot be reached at start stops the start; one lost later
 *   loosens the limits rather than failing every request: until it is back, each process counts
 *   in its own memory (rate-limiter-flexible's insurance limiter).
 * - DATABASE_URL set: PostgreSQL's table rate_limits, shared by every process on the database;
 *   one upsert per count (see docs/performance.md for what that costs).
 * - the embedded PGlite: this process's memory (a PGlite data directory is open in one process
 *   only).
 * In the shared stores a key that used up its window is then refused from this process's
 * memory until the window ends (in-memory block): a client that keeps calling while refused
 * costs no more round trips. Refused requests are therefore not counted, which changes nothing a
 * client sees: the window ends when it ends.
 */
export async function openLimiters(store: LimitsStore, overrides: LimitOverrides = {}): Promise<Limiters> {
  const pool = postgresPoolOf(store.db);
  const redis = store.redisUrl ? await connectRedis(store.redisUrl, store.log) : null;
  // One limiter per limit name: the places that count against one limit (the sign-in limit of
  // the consent page, the console and the dashboard) share its counts in memory too.
  const made = new Map<string, Limiter>();
  return {
    createLimiter(options) {
      const known = made.get(options.keyPrefix);
      if (known) return known;
      const points = overrides.points ?? options.points;
      const durationSeconds = overrides.durationSeconds ?? options.durationSeconds;
      const common = { keyPrefix: options.keyPrefix, points, duration: durationSeconds };
      const blockWhenUsedUp = { inMemoryBlockOnConsumed: points };
      let limiter: RateLimiterAbstract;
      if (redis) {
        limiter = new RateLimiterRedis({
          ...common,
          ...blockWhenUsedUp,
          storeClient: redis,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory(common),
        });
      } else if (pool) {
        limiter = new RateLimiterPostgres({
          ...common,
          ...blockWhenUsedUp,
          storeClient: pool,
          storeType: 'pool',
          tableName: postgresTable,
          tableCreated: true,
        });
      } else {
        limiter = new RateLimiterMemory(common);
      }
      const wrapped = wrapLimiter(limiter, points, durationSeconds, store.clock);
      made.set(options.keyPrefix, wrapped);
      return wrapped;
    },
    close: async () => {
      redis?.disconnect();
    },
  };
}

async function connectRedis(url: string, log: LimitsStore['log']): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableAutoPipelining: true,
    // Counts are not queued while disconnected: they go to the insurance limiter at once.
    enableOfflineQueue: false,
  });
  // Reported once per outage: ioredis reports every failed attempt to reconnect.
  let reported = false;
  redis.on('error', (error: Error) => {
    if (reported) return;
    reported = true;
    log?.warn(
      { err: error },
      'Redis unreachable: until it is back, each process counts the rate limits alone',
    );
  });
  redis.on('ready', () => {
    reported = false;
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    // Not the URL itself: it may hold the Redis password.
    throw new Error(`cannot connect to Redis at REDIS_URL: ${(error as Error).message}`);
  }
  return redis;
}

/*
 * Counts of one key that arrive in the same pass of the event loop are made in one call of
 * `points` = how many arrived (one round trip to a shared store instead of one each), and each
 * request gets the state it would have had if they had been counted one after the other, in
 * arrival order. The store's count is the same either way. Peeks of one key in the same pass
 * share one read (the token endpoint peeks at its caller's address on every request).
 *
 * The windows run on the store's own time (rate-limiter-flexible reads Date.now(); Redis its
 * TTLs), which a sandbox clock cannot move. So with one, a key is counted under the clock's offset:
 * each move of the clock starts every window anew. A move of at least a window's length (a minute;
 * 15 minutes for sign-ins) is exact; a shorter one ends the windows early (docs/operators.md).
 */
function wrapLimiter(
  limiter: RateLimiterAbstract,
  points: number,
  durationSeconds: number,
  clock: Clock | undefined,
): Limiter {
  const windowKey = (key: string) => (clock?.offsetMs ? `${key}@${clock.offsetMs}` : key);
  const stateAt = (res: RateLimiterRes, count: number): LimitState => ({
    allowed: count <= points,
    limit: points,
    remaining: Math.max(0, points - count),
    resetSeconds: Math.ceil(res.msBeforeNext / 1000),
  });
  type Caller = { resolve: (state: LimitState) => void; reject: (error: unknown) => void };
  const waiting = new Map<string, Caller[]>();
  const reading = new Map<string, Promise<LimitState>>();
  const countTogether = async (key: string, callers: Caller[]) => {
    const n = callers.length;
    let res: RateLimiterRes;
    let refused = false;
    try {
      res = await limiter.consume(key, n);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      res = error;
      refused = true;
    }
    // A refusal from the in-memory block reports no count of the store: all of them are refused.
    const before = refused && res.consumedPoints <= points ? points : res.consumedPoints - n;
    callers.forEach((caller, i) => {
      caller.resolve(stateAt(res, before + i + 1));
    });
  };
  return {
    consume(clientKey) {
      const key = windowKey(clientKey);
      return new Promise<LimitState>((resolve, reject) => {
        const callers = waiting.get(key);
        if (callers) {
          callers.push({ resolve, reject });
          return;
        }
        const first = [{ resolve, reject }];
        waiting.set(key, first);
        setImmediate(() => {
          waiting.delete(key);
          countTogether(key, first).catch((error: unknown) => {
            for (const caller of first) caller.reject(error);
          });
        });
      });
    },
    peek(key) {
      const storeKey = windowKey(key);
      let read = reading.get(storeKey);
      if (!read) {
        read = new Promise((resolve) => setImmediate(resolve)).then(async (): Promise<LimitState> => {
          reading.delete(storeKey);
          const res = await limiter.get(storeKey);
          if (!res || res.msBeforeNext <= 0) {
            return { allowed: true, limit: points, remaining: points, resetSeconds: durationSeconds };
          }
          return { ...stateAt(res, res.consumedPoints), allowed: res.remainingPoints > 0 };
        });
        reading.set(storeKey, read);
      }
      return read;
    },
    async refund(key) {
      await limiter.reward(windowKey(key), 1);
    },
    async reset(key) {
      await limiter.delete(windowKey(key));
    },
  };
}
