-- data.object keeps the key order of the resource as the endpoints write it (jsonb would store
-- keys in its own order, so envelopes would list them differently from GET responses).
ALTER TABLE events ALTER COLUMN data TYPE json USING data::json;
