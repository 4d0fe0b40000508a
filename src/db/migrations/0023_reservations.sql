-- Reservations (issue 15): each restaurant's booking settings, the tables it lets be combined for
-- larger parties, and the reservations themselves.

-- One row per restaurant (new restaurants get theirs with their store; existing ones below).
-- durations: [{max_party, minutes}] ascending by max_party, the last with max_party null (every
-- larger party). Guest horizon and lead time apply to guests only: staff and the API book any time.
CREATE TABLE reservation_settings (
  tenant_id uuid PRIMARY KEY REFERENCES stores (tenant_id),
  slot_minutes integer NOT NULL DEFAULT 15 CHECK (slot_minutes BETWEEN 5 AND 120),
  durations jsonb NOT NULL DEFAULT
    '[{"max_party":2,"minutes":90},{"max_party":4,"minutes":120},{"max_party":null,"minutes":150}]',
  last_seating_minutes integer NOT NULL DEFAULT 90 CHECK (last_seating_minutes BETWEEN 0 AND 600),
  guest_horizon_days integer NOT NULL DEFAULT 60 CHECK (guest_horizon_days BETWEEN 1 AND 365),
  guest_lead_minutes integer NOT NULL DEFAULT 120 CHECK (guest_lead_minutes BETWEEN 0 AND 10080),
  updated_at timestamptz NOT NULL
);
INSERT INTO reservation_settings (tenant_id, updated_at) SELECT tenant_id, now() FROM stores;

-- Tables that may be pushed together: 2 to 4 of the restaurant's tables, seating the sum of their
-- seats. A combination naming a table since deleted is not offered (checked when read).
CREATE TABLE reservation_combinations (
  tenant_id uuid NOT NULL REFERENCES stores (tenant_id),
  id uuid NOT NULL,
  table_ids uuid[] NOT NULL CHECK (cardinality(table_ids) BETWEEN 2 AND 4),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id)
);

-- guest_phone and guest_email are kept for the restaurant and the guest's e-mail, never returned
-- by the API. deleted_at: removed by the restaurant, never listed again.
CREATE TABLE reservations (
  tenant_id uuid NOT NULL REFERENCES restaurants (id),
  id uuid NOT NULL,
  code text NOT NULL,
  status text NOT NULL
    CHECK (status IN ('pending', 'confirmed', 'declined', 'seated', 'done', 'cancelled', 'no_show')),
  starts_at timestamptz NOT NULL,
  duration_minutes integer NOT NULL CHECK (duration_minutes BETWEEN 15 AND 600),
  party_size integer NOT NULL CHECK (party_size BETWEEN 1 AND 200),
  table_ids uuid[] NOT NULL DEFAULT '{}',
  source text NOT NULL CHECK (source IN ('guest', 'staff', 'api')),
  guest_name text CHECK (length(guest_name) <= 120),
  guest_phone text CHECK (length(guest_phone) <= 40),
  guest_email text CHECK (length(guest_email) <= 200),
  guest_locale text CHECK (guest_locale IN ('de', 'en', 'fr', 'es', 'it')),
  note text CHECK (length(note) <= 500),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, code)
);
CREATE INDEX reservations_by_update ON reservations (tenant_id, updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX reservations_by_start ON reservations (tenant_id, starts_at, id) WHERE deleted_at IS NULL;
