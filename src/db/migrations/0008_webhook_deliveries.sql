-- How far the webhook fan-out has come: every event up to this feed position got its deliveries.
-- One row; positions become visible only as a prefix (events/positions.ts), so none is skipped.
CREATE TABLE webhook_fanout (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  position bigint NOT NULL
);
INSERT INTO webhook_fanout (position) VALUES (0);
CREATE INDEX events_feed_position ON events (position) WHERE position IS NOT NULL;

-- One delivery of one event to an app's webhook, with the envelope of the connection it is for
-- (the feed's frozen envelope, so both are byte-identical). Unique per webhook and event, so a
-- repeated fan-out creates nothing twice. next_attempt_at is null once delivered or given up;
-- a claimed attempt moves it to the time of the following one already, so a worker that dies
-- mid-send leaves the delivery to be retried then.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  app_id uuid NOT NULL REFERENCES app_webhooks (app_id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL,
  position bigint NOT NULL,
  connection_id uuid NOT NULL,
  event_type text NOT NULL,
  livemode boolean NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  delivered_at timestamptz,
  given_up_at timestamptz,
  created_at timestamptz NOT NULL,
  UNIQUE (app_id, tenant_id, position),
  FOREIGN KEY (tenant_id, position, connection_id)
    REFERENCES event_envelopes (tenant_id, position, connection_id) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;

-- The delivery log: one row per attempt.
CREATE TABLE webhook_delivery_attempts (
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL,
  status_code integer,
  duration_ms integer NOT NULL,
  error text,
  PRIMARY KEY (delivery_id, attempt)
);
