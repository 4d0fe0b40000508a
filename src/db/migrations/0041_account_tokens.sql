-- The links the owner's account mails (issue "The restaurant's day", item 5): a password reset
-- (`password_reset`) and the confirmation of a new e-mail address (`email_change`, with the new
-- address). Only the token's SHA-256 (hex) is kept; a token works once (`used_at`), until
-- `expires_at`, and a newer one of the same kind replaces those before it (they are deleted).
CREATE TABLE account_tokens (
  token_hash text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  kind text NOT NULL CHECK (kind IN ('password_reset', 'email_change')),
  new_email text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX account_tokens_account ON account_tokens (account_id, kind);
