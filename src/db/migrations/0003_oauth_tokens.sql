-- Authorization codes, SHA-256 hashed: valid 10 minutes, redeemed once. A code is also the root
-- of its token family: every refresh and access token issued through it carries its id as
-- family_id, so a second redemption or a refresh token's reuse revokes them all. The code row is
-- the family's lock: every change to a family first locks it (SELECT ... FOR UPDATE).
CREATE TABLE authorization_codes (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL,
  code_hash text NOT NULL,
  connection_id uuid NOT NULL,
  app_id uuid NOT NULL REFERENCES apps (id),
  scopes text[] NOT NULL,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  redeemed_at timestamptz,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, connection_id) REFERENCES connections (tenant_id, id)
);
CREATE UNIQUE INDEX authorization_codes_hash ON authorization_codes (code_hash);

-- Refresh tokens, SHA-256 hashed, rotated on every use: used_at marks the use, replaced_by the
-- token issued for it (repointed when the grace rule issues another). Each lives 180 days from
-- its issue, which is the last use of its family.
CREATE TABLE refresh_tokens (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL,
  token_hash text NOT NULL,
  family_id uuid NOT NULL,
  connection_id uuid NOT NULL,
  app_id uuid NOT NULL REFERENCES apps (id),
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  replaced_by uuid,
  revoked_at timestamptz,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, family_id) REFERENCES authorization_codes (tenant_id, id),
  FOREIGN KEY (tenant_id, connection_id) REFERENCES connections (tenant_id, id),
  FOREIGN KEY (tenant_id, replaced_by) REFERENCES refresh_tokens (tenant_id, id)
);
CREATE UNIQUE INDEX refresh_tokens_hash ON refresh_tokens (token_hash);
CREATE INDEX refresh_tokens_family ON refresh_tokens (tenant_id, family_id);

-- An access token issued at the token endpoint belongs to a family and was issued together with
-- one refresh token (its pair). Both are null for tokens made otherwise.
ALTER TABLE access_tokens
  ADD COLUMN family_id uuid,
  ADD COLUMN refresh_token_id uuid,
  ADD FOREIGN KEY (tenant_id, family_id) REFERENCES authorization_codes (tenant_id, id),
  ADD FOREIGN KEY (tenant_id, refresh_token_id) REFERENCES refresh_tokens (tenant_id, id);
CREATE INDEX access_tokens_family ON access_tokens (tenant_id, family_id) WHERE family_id IS NOT NULL;
CREATE INDEX access_tokens_refresh_token ON access_tokens (tenant_id, refresh_token_id)
  WHERE refresh_token_id IS NOT NULL;
