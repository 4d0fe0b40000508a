/*
 * The rate limits the domain and the surfaces count with. The stores behind them (memory,
 * PostgreSQL, Redis) are infrastructure: src/adapters/rate-limit-stores.ts.
 */

export interface LimiterOptions {
  /** Names the limit: the counts of two limits never meet. */
  readonly keyPrefix: string;
  /** Requests allowed per window and key. */
  readonly points: number;
  /** Length of a window, in whole seconds; a key's window starts with its first request and ends fixed. */
  readonly durationSeconds: number;
}

/** Where a key stands after a request. */
export interface LimitState {
  /** Whether this request is within the limit. */
  readonly allowed: boolean;
  /** Requests allowed per window. */
  readonly limit: number;
  /** Requests left in the current window. */
  readonly remaining: number;
  /** Seconds until the current window ends (rounded up). */
  readonly resetSeconds: number;
}

export interface Limiter {
  /** Counts one request of `key`. */
  consume(key: string): Promise<LimitState>;
  /** Where `key` stands, without counting anything (`allowed`: another request would be). */
  peek(key: string): Promise<LimitState>;
  /** Takes back one request of `key` counted before (one whose work then failed). */
  refund(key: string): Promise<void>;
  /** Forgets the count of `key`, e.g. the failed logins of an account once one succeeds. */
  reset(key: string): Promise<void>;
}

/** Makes the limiters of one service: buildApp opens one and passes it to every surface. */
export interface Limiters {
  createLimiter(options: LimiterOptions): Limiter;
  /** Closes the connection to Redis, if there is one. */
  close(): Promise<void>;
}
