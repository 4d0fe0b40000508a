-- Events, recorded in the transaction of the change they report (the outbox). One row per change
-- of a restaurant; app.* events belong to one connection (connection_id), the others to the
-- restaurant. `data` holds data.object as it was at the change, plus previous_* / changed.
CREATE TABLE events (
  tenant_id uuid NOT NULL REFERENCES restaurants (id),
  id uuid NOT NULL,
  type text NOT NULL,
  connection_id uuid,
  livemode boolean NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX events_created ON events (created_at);

-- E-mails to send, recorded with the change that causes them and sent by a worker.
CREATE TABLE email_outbox (
  id uuid PRIMARY KEY,
  tenant_id uuid REFERENCES restaurants (id),
  to_address text NOT NULL,
  subject text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL,
  send_after timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  sent_at timestamptz,
  last_error text
);
CREATE INDEX email_outbox_due ON email_outbox (send_after) WHERE sent_at IS NULL;
