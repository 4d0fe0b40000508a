-- The orders paid on site that guests may place at a restaurant per minute (its storefront and
-- guest API; docs/storefront.md, "Limits"): 60 unless its owner raised it, at most 1,000.
ALTER TABLE stores ADD COLUMN guest_orders_per_minute integer NOT NULL DEFAULT 60
  CONSTRAINT stores_guest_orders_per_minute_range CHECK (guest_orders_per_minute BETWEEN 60 AND 1000);
