-- A second factor for signing in: the TOTP secret (RFC 6238, base32) and the last time step whose
-- code was accepted, so a code is taken once (RFC 6238, 5.2). The secret must stay readable to
-- check codes, so it cannot be hashed like passwords and tokens.
ALTER TABLE accounts
  ADD COLUMN totp_secret text,
  ADD COLUMN totp_last_step integer;

-- Signed-in browsers (the consent page): the SHA-256 of the session cookie's value. A session
-- whose second factor is still due can do nothing but give the code.
CREATE TABLE sessions (
  id_hash text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  second_factor_pending boolean NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id);
