-- Busy mode (a compatible addition, decisions.md): busy_extra_minutes are added to the lead times
-- until busy_until; then it is over (GET /store shows it so at once) and the worker clears both
-- and records store.updated. Both are set or both null.
ALTER TABLE stores
  ADD COLUMN busy_extra_minutes integer CHECK (busy_extra_minutes BETWEEN 5 AND 120),
  ADD COLUMN busy_until timestamptz,
  ADD CONSTRAINT stores_busy_whole CHECK ((busy_extra_minutes IS NULL) = (busy_until IS NULL));
-- The busy-expiry job finds busy periods that ended.
CREATE INDEX stores_busy_ends ON stores (busy_until) WHERE busy_until IS NOT NULL;
