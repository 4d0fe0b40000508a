-- Both kinds of webhook in one table, so delivery, switching off, the log and resending work the
-- same for each: the app's webhook (app_id set, one per app) and a restaurant's own (tenant_id
-- set, up to five). failures_in_row and failing_since count the failed attempts since the last
-- success: at 10 or more, with nothing succeeding for 24 hours, the webhook is switched off.
CREATE TABLE webhooks (
  id uuid PRIMARY KEY,
  app_id uuid UNIQUE REFERENCES apps (id),
  tenant_id uuid REFERENCES restaurants (id),
  url text NOT NULL CHECK (length(url) <= 500),
  events text[] NOT NULL CHECK (cardinality(events) > 0),
  enabled boolean NOT NULL DEFAULT true,
  disabled_at timestamptz,
  disabled_reason text,
  failures_in_row integer NOT NULL DEFAULT 0,
  failing_since timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((app_id IS NULL) <> (tenant_id IS NULL))
);
CREATE INDEX webhooks_of_restaurant ON webhooks (tenant_id, created_at) WHERE tenant_id IS NOT NULL;

-- Signing secrets (`whsec_…`), stored as they are: every delivery signs with them (HMAC) and they
-- are shown again. After a rotation the replaced one keeps signing until expires_at (24 hours);
-- the current one has no expiry, and there is only ever one current secret.
CREATE TABLE webhook_secrets (
  webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  secret text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  PRIMARY KEY (webhook_id, id)
);
CREATE UNIQUE INDEX webhook_secrets_current ON webhook_secrets (webhook_id) WHERE expires_at IS NULL;

INSERT INTO webhooks (id, app_id, url, events, enabled, disabled_at, disabled_reason, created_at, updated_at)
  SELECT gen_random_uuid(), app_id, url, events, enabled, disabled_at, disabled_reason, created_at, updated_at
  FROM app_webhooks;
INSERT INTO webhook_secrets (webhook_id, id, secret, created_at, expires_at)
  SELECT w.id, s.id, s.secret, s.created_at, s.expires_at
  FROM app_webhook_secrets s JOIN webhooks w ON w.app_id = s.app_id;
INSERT INTO webhooks (id, tenant_id, url, events, enabled, disabled_at, disabled_reason, created_at, updated_at)
  SELECT id, tenant_id, url, events, enabled, disabled_at, disabled_reason, created_at, updated_at
  FROM restaurant_webhooks;
INSERT INTO webhook_secrets (webhook_id, id, secret, created_at, expires_at)
  SELECT webhook_id, id, secret, created_at, expires_at FROM restaurant_webhook_secrets;

-- An envelope is frozen per audience: a connection, or a restaurant's own webhook (which sees
-- events under ids of its own, with connection_id null in the body).
ALTER TABLE event_envelopes RENAME COLUMN connection_id TO audience_id;

-- Deliveries name their webhook and audience. attempts counts the scheduled attempts (at most
-- 8); sends counts every send, resends included, and numbers them (Service-Delivery-Attempt).
-- skipped_at: the webhook was switched off while the delivery was open.
ALTER TABLE webhook_deliveries ADD COLUMN webhook_id uuid REFERENCES webhooks (id) ON DELETE CASCADE;
UPDATE webhook_deliveries d SET webhook_id = w.id FROM webhooks w WHERE w.app_id = d.app_id;
ALTER TABLE webhook_deliveries ALTER COLUMN webhook_id SET NOT NULL;
ALTER TABLE webhook_deliveries DROP COLUMN app_id;
ALTER TABLE webhook_deliveries RENAME COLUMN connection_id TO audience_id;
ALTER TABLE webhook_deliveries ADD COLUMN sends integer NOT NULL DEFAULT 0;
UPDATE webhook_deliveries SET sends = attempts;
ALTER TABLE webhook_deliveries ADD COLUMN skipped_at timestamptz;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_once UNIQUE (webhook_id, position);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at DESC);

DROP TABLE app_webhook_secrets;
DROP TABLE app_webhooks;
DROP TABLE restaurant_webhook_secrets;
DROP TABLE restaurant_webhooks;
