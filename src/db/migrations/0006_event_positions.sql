-- The feed's order is commit order (decisions.md, Events): an event gets its position from
-- event_positions only after its transaction committed (the sequencer, events/positions.ts).
-- Until then `position` is null and no reader sees the event.
CREATE SEQUENCE event_positions;
ALTER TABLE events ADD COLUMN position bigint;
CREATE UNIQUE INDEX events_position ON events (tenant_id, position);
CREATE INDEX events_unstamped ON events (id) WHERE position IS NULL;

-- The envelope of an event as one connection sees it, built on first read and kept as sent, so
-- every read of it is byte-identical. Dropped with its event.
CREATE TABLE event_envelopes (
  tenant_id uuid NOT NULL,
  position bigint NOT NULL,
  connection_id uuid NOT NULL,
  body text NOT NULL,
  PRIMARY KEY (tenant_id, position, connection_id),
  FOREIGN KEY (tenant_id, position) REFERENCES events (tenant_id, position) ON DELETE CASCADE
);
