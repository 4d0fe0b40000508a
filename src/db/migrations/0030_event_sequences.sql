-- The event sequencer per restaurant (docs/scale-out.md, events/positions.ts): each restaurant's
-- feed positions are counted on a row of its own and stamped under that row's lock, so stampings
-- of different restaurants run side by side (on Citus, each on the restaurant's node). A feed
-- reads one restaurant, and its positions stay a prefix. Every counter starts past every position
-- handed out so far, so the ids apps hold stay below the new ones. A restaurant made later gets
-- its row at its first stamping.
CREATE TABLE event_sequences (
  tenant_id uuid PRIMARY KEY REFERENCES restaurants (id),
  position bigint NOT NULL
);
INSERT INTO event_sequences (tenant_id, position)
  SELECT r.id, s.last FROM restaurants r,
    (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS last FROM event_positions) s;
DROP SEQUENCE event_positions;

DROP INDEX events_unstamped;
CREATE INDEX events_unstamped ON events (tenant_id, id) WHERE position IS NULL;

-- How far the webhook fan-out has come, per restaurant: every event of the restaurant up to this
-- position got its deliveries. It starts where the one fan-out for all restaurants had come.
ALTER TABLE webhook_fanout RENAME TO webhook_fanout_for_all;
ALTER INDEX webhook_fanout_pkey RENAME TO webhook_fanout_for_all_pkey;
CREATE TABLE webhook_fanout (
  tenant_id uuid PRIMARY KEY REFERENCES restaurants (id),
  position bigint NOT NULL
);
INSERT INTO webhook_fanout (tenant_id, position)
  SELECT r.id, f.position FROM restaurants r, webhook_fanout_for_all f;
DROP TABLE webhook_fanout_for_all;
DROP INDEX events_feed_position;
