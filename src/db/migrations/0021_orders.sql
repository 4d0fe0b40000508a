-- Orders (issue 13): what guests order, the apps' acknowledgements and the payments.
--
-- An order exists for the API (listed) once it is placed with payment on site, or once its online
-- payment is confirmed; until then it waits for payment (payment_state 'awaiting') and is seen only
-- by the guest, and it is abandoned when the payment never comes. Amounts are minor units. The
-- order's lines (items) and tax_lines are frozen at order time as the API shows them, so an order
-- is read as one row: items [{id, product_id, name, quantity, unit_price, line_total,
-- tax_rate_bps, options: [{id, name, price_delta, group_id, group_name}]}], a product_id shown as
-- null once that product is gone from the menu (checked when read). The guest follows the order
-- with a secret key kept hashed (guest_key_hash). cancelled_by: 'app', 'restaurant' or 'guest'.
CREATE TABLE orders (
  tenant_id uuid NOT NULL REFERENCES restaurants (id),
  id uuid NOT NULL,
  code text NOT NULL,
  type text NOT NULL CHECK (type IN ('pickup', 'delivery', 'dine_in')),
  source text NOT NULL CHECK (source IN ('storefront', 'table', 'app')),
  status text NOT NULL
    CHECK (status IN ('pending', 'confirmed', 'preparing', 'ready', 'completed', 'cancelled')),
  listed boolean NOT NULL,
  payment_method text NOT NULL CHECK (payment_method IN ('online', 'on_site')),
  payment_state text NOT NULL CHECK (payment_state IN ('awaiting', 'open', 'paid', 'abandoned')),
  pay_by timestamptz,
  paid_at timestamptz,
  currency text NOT NULL,
  subtotal integer NOT NULL CHECK (subtotal >= 0),
  delivery_fee integer NOT NULL CHECK (delivery_fee >= 0),
  service_fee integer NOT NULL CHECK (service_fee >= 0),
  discount integer NOT NULL CHECK (discount >= 0),
  tip integer NOT NULL CHECK (tip >= 0),
  total integer NOT NULL CHECK (total >= 0),
  items json NOT NULL,
  tax_lines json NOT NULL,
  requested_for timestamptz,
  estimated_ready_at timestamptz,
  customer_name text CHECK (length(customer_name) <= 120),
  customer_phone text CHECK (length(customer_phone) <= 40),
  delivery_address text CHECK (length(delivery_address) <= 200),
  delivery_postal_code text CHECK (length(delivery_postal_code) <= 20),
  delivery_city text CHECK (length(delivery_city) <= 100),
  table_id uuid,
  table_label text,
  note text CHECK (length(note) <= 500),
  cancel_reason text CHECK (length(cancel_reason) <= 200),
  cancelled_by text CHECK (cancelled_by IN ('app', 'restaurant', 'guest')),
  guest_key_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, code),
  CHECK (listed = (payment_state IN ('open', 'paid'))),
  CHECK ((type = 'dine_in') = (table_id IS NOT NULL))
);
-- GET /orders: newest change first, or ascending from updated_since; the creation filters.
CREATE INDEX orders_update_order ON orders (tenant_id, updated_at, id) WHERE listed;
CREATE INDEX orders_creation_order ON orders (tenant_id, created_at, id) WHERE listed;
-- The expiry of unpaid online orders.
CREATE INDEX orders_awaiting_payment ON orders (pay_by) WHERE payment_state = 'awaiting';

-- An app's take-over of an order (POST /orders/{id}/acknowledge): only that app sees its
-- external_id and acknowledged_at; an app uses an external_id for one order at most.
CREATE TABLE order_acknowledgements (
  tenant_id uuid NOT NULL,
  order_id uuid NOT NULL,
  app_id uuid NOT NULL,
  external_id text CHECK (length(external_id) BETWEEN 1 AND 100),
  acknowledged_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, order_id, app_id),
  FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX order_acknowledgements_external_id
  ON order_acknowledgements (tenant_id, app_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX order_acknowledgements_app ON order_acknowledgements (tenant_id, app_id, order_id);

-- An online payment of an order at a payment provider ('test' or 'stripe'), found again by the
-- provider's reference when the provider reports the outcome.
CREATE TABLE order_payments (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL,
  order_id uuid NOT NULL,
  provider text NOT NULL CHECK (provider IN ('test', 'stripe')),
  reference text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  amount integer NOT NULL CHECK (amount >= 0),
  currency text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (provider, reference),
  FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX order_payments_order ON order_payments (tenant_id, order_id);
