-- The app's webhook: one per app, configured by its developer (console or CLI). A webhook that
-- kept failing is switched off (enabled false, disabled_at and disabled_reason set) until its
-- developer enables it again.
CREATE TABLE app_webhooks (
  app_id uuid PRIMARY KEY REFERENCES apps (id),
  url text NOT NULL CHECK (length(url) <= 500),
  events text[] NOT NULL CHECK (cardinality(events) > 0),
  enabled boolean NOT NULL DEFAULT true,
  disabled_at timestamptz,
  disabled_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Signing secrets (`whsec_…`) of the app's webhook. Unlike tokens and client secrets they are
-- stored as they are, not hashed: every delivery signs with them (HMAC) and the console shows
-- them again. After a rotation the replaced secret keeps signing until expires_at (24 hours);
-- the current one has no expiry, and there is only ever one current secret.
CREATE TABLE app_webhook_secrets (
  app_id uuid NOT NULL REFERENCES app_webhooks (app_id) ON DELETE CASCADE,
  id uuid NOT NULL,
  secret text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  PRIMARY KEY (app_id, id)
);
CREATE UNIQUE INDEX app_webhook_secrets_current ON app_webhook_secrets (app_id) WHERE expires_at IS NULL;

-- A restaurant's own webhooks (up to five), managed by its owners: the same address rules,
-- event selection (without app.*) and signing as the app's webhook.
CREATE TABLE restaurant_webhooks (
  tenant_id uuid NOT NULL REFERENCES restaurants (id),
  id uuid NOT NULL,
  url text NOT NULL CHECK (length(url) <= 500),
  events text[] NOT NULL CHECK (cardinality(events) > 0),
  enabled boolean NOT NULL DEFAULT true,
  disabled_at timestamptz,
  disabled_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id)
);

-- Their signing secrets, stored as they are for the same reason as app_webhook_secrets.
CREATE TABLE restaurant_webhook_secrets (
  tenant_id uuid NOT NULL,
  webhook_id uuid NOT NULL,
  id uuid NOT NULL,
  secret text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  PRIMARY KEY (tenant_id, webhook_id, id),
  FOREIGN KEY (tenant_id, webhook_id) REFERENCES restaurant_webhooks (tenant_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX restaurant_webhook_secrets_current
  ON restaurant_webhook_secrets (tenant_id, webhook_id) WHERE expires_at IS NULL;
