-- Request counts of the rate limits (src/domain/limits/limiters.ts), shared by every process on
-- this database: one row per limit and key, in the layout of rate-limiter-flexible's
-- RateLimiterPostgres (`expire` in ms since the epoch). UNLOGGED: counts are written on every API
-- request and worth no WAL; after a crash the table comes back empty, which only starts every
-- window anew. Rows whose window ended over an hour ago are deleted by the limiters themselves.
CREATE UNLOGGED TABLE rate_limits (
  key text PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
