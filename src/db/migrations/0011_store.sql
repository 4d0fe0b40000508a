-- A restaurant's store settings (one row per restaurant, created with it): what decides when and
-- how guests may order. Weekly hours are JSON arrays of {weekday, open, close} ("HH:MM",
-- restaurant-local). order_statuses lists the non-final order statuses the restaurant uses, in
-- order. A pause lasts until paused_until, or until lifted when that is null.
CREATE TABLE stores (
  tenant_id uuid PRIMARY KEY REFERENCES restaurants (id),
  preorders boolean NOT NULL DEFAULT false,
  pickup boolean NOT NULL DEFAULT true,
  delivery boolean NOT NULL DEFAULT false,
  dine_in boolean NOT NULL DEFAULT false,
  order_statuses text[] NOT NULL DEFAULT '{pending,confirmed,preparing,ready}',
  pickup_minutes integer NOT NULL DEFAULT 20 CHECK (pickup_minutes BETWEEN 0 AND 240),
  delivery_minutes integer NOT NULL DEFAULT 45 CHECK (delivery_minutes BETWEEN 0 AND 360),
  min_order integer NOT NULL DEFAULT 0 CHECK (min_order >= 0),
  always_open boolean NOT NULL DEFAULT false,
  opening_hours jsonb NOT NULL DEFAULT '[]',
  delivery_hours jsonb NOT NULL DEFAULT '[]',
  phone text,
  email text,
  website text,
  address_line text,
  lat double precision,
  lon double precision,
  default_table_seats integer NOT NULL DEFAULT 4 CHECK (default_table_seats BETWEEN 1 AND 200),
  paused boolean NOT NULL DEFAULT false,
  paused_until timestamptz,
  pause_note text CHECK (length(pause_note) <= 140),
  updated_at timestamptz NOT NULL
);
INSERT INTO stores (tenant_id, updated_at) SELECT id, created_at FROM restaurants;
-- The pause-expiry job finds pauses that ended.
CREATE INDEX stores_pause_ends ON stores (paused_until) WHERE paused;

-- Special days: a date (restaurant-local) closed all day, or open only in its own hours (at most
-- two windows {open, close}). Past dates are no longer shown.
CREATE TABLE store_closures (
  tenant_id uuid NOT NULL REFERENCES stores (tenant_id),
  date date NOT NULL,
  closed boolean NOT NULL,
  hours jsonb NOT NULL DEFAULT '[]',
  note text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, date)
);
