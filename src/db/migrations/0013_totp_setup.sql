-- A second factor being set up by its account: active (totp_secret) only once a code from the
-- authenticator app confirms it.
ALTER TABLE accounts ADD COLUMN totp_pending_secret text;
