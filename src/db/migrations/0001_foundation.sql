-- Accounts: people who sign in (restaurant owners and staff, app developers).
CREATE TABLE accounts (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  name text,
  password_hash text NOT NULL,
  developer boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_email_key ON accounts (lower(email));

-- Restaurants are the tenants: their id is the tenant_id of everything they own.
CREATE TABLE restaurants (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  timezone text NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  country text CHECK (country ~ '^[A-Z]{2}$'),
  language text NOT NULL DEFAULT 'en' CHECK (language IN ('de', 'en', 'fr', 'es', 'it')),
  plan text NOT NULL CHECK (plan IN ('starter', 'pro', 'premium')),
  livemode boolean NOT NULL,
  subscription_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE restaurant_members (
  tenant_id uuid NOT NULL REFERENCES restaurants (id),
  account_id uuid NOT NULL REFERENCES accounts (id),
  role text NOT NULL CHECK (role IN ('owner', 'staff')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, account_id)
);
CREATE INDEX restaurant_members_account ON restaurant_members (account_id);

CREATE TABLE apps (
  id uuid PRIMARY KEY,
  client_id text NOT NULL UNIQUE,
  developer_id uuid NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  logo_url text,
  website text,
  type text NOT NULL CHECK (type IN ('confidential', 'public')),
  redirect_uris text[] NOT NULL,
  scopes text[] NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'suspended')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX apps_developer ON apps (developer_id);

-- Client secrets, SHA-256 hashed; a replaced secret keeps working until expires_at.
CREATE TABLE app_secrets (
  id uuid PRIMARY KEY,
  app_id uuid NOT NULL REFERENCES apps (id),
  secret_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz
);
CREATE INDEX app_secrets_app ON app_secrets (app_id);

-- The tie between an app and a restaurant, made by the owner's consent.
CREATE TABLE connections (
  tenant_id uuid NOT NULL REFERENCES restaurants (id),
  id uuid NOT NULL,
  app_id uuid NOT NULL REFERENCES apps (id),
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz,
  PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX connections_active_app ON connections (tenant_id, app_id) WHERE ended_at IS NULL;

-- Access tokens, SHA-256 hashed; a token may carry fewer scopes than its connection.
CREATE TABLE access_tokens (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL,
  token_hash text NOT NULL,
  connection_id uuid NOT NULL,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, connection_id) REFERENCES connections (tenant_id, id)
);
CREATE UNIQUE INDEX access_tokens_hash ON access_tokens (token_hash);
CREATE INDEX access_tokens_connection ON access_tokens (tenant_id, connection_id);

-- Idempotency keys of POST requests, per connection, kept 24 hours.
-- A row without completed_at is a request still running (or one that died: it is taken over
-- once locked_at is older than two minutes).
CREATE TABLE idempotency_keys (
  tenant_id uuid NOT NULL,
  connection_id uuid NOT NULL,
  key text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  body_hash text NOT NULL,
  lock_id uuid NOT NULL,
  locked_at timestamptz NOT NULL,
  status_code integer,
  response_body text,
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  PRIMARY KEY (tenant_id, connection_id, key),
  FOREIGN KEY (tenant_id, connection_id) REFERENCES connections (tenant_id, id)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
