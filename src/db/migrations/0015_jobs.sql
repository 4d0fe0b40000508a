-- One queue for background work other than webhook delivery (which keeps its own tables: the
-- delivery log is a product feature). A job is queued in the transaction of the change that
-- causes it, so it runs once that commits and never if it rolls back; workers claim due jobs
-- with FOR UPDATE SKIP LOCKED (src/worker/job-queue.ts):
-- - run_after: when it is due (at once, or after a failed run's backoff);
-- - locked_until: the lease of the worker running it; a job whose worker died is due again then;
-- - attempts: runs started; last_error: the newest failure;
-- - done_at: it succeeded; failed_at: it was given up after its kind's most attempts.
CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  kind text NOT NULL,
  payload jsonb NOT NULL,
  tenant_id uuid REFERENCES restaurants (id),
  created_at timestamptz NOT NULL,
  run_after timestamptz NOT NULL,
  locked_until timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  done_at timestamptz,
  failed_at timestamptz
);
CREATE INDEX jobs_due ON jobs (run_after) WHERE done_at IS NULL AND failed_at IS NULL;

-- The e-mail outbox becomes jobs: its unsent mails, already rendered, are sent by the kind
-- `rendered-email`; those given up stay given up (their error kept). Sent ones are history.
INSERT INTO jobs (id, kind, payload, tenant_id, created_at, run_after, attempts, last_error, failed_at)
  SELECT id, 'rendered-email', jsonb_build_object('to', to_address, 'subject', subject, 'text', body),
    tenant_id, created_at, CASE WHEN send_after = 'infinity' THEN created_at ELSE send_after END,
    attempts, last_error, CASE WHEN send_after = 'infinity' THEN now() END
  FROM email_outbox WHERE sent_at IS NULL;
DROP TABLE email_outbox;
