-- The areas a restaurant delivers to, in the order its owner lists them (the first that matches an
-- address applies): [{"name", "postal_codes": ["10115", "101*"], "fee", "min_order"}], postal codes
-- stored normalized (upper case, no spaces), fee and minimum in minor units. Empty: delivery
-- anywhere, with no fee and the store's own minimum (domain/store/delivery-zones.ts).
ALTER TABLE stores ADD COLUMN delivery_zones jsonb NOT NULL DEFAULT '[]';
