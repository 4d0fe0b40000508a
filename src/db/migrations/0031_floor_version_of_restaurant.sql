-- A restaurant's name, zone, language and mode are no longer counted by a trigger on
-- `restaurants` (migration 0025): on Citus that table is a copy on every node, and its trigger
-- would run on each of them and write a restaurant's floor version on another node, which Citus
-- refuses. Availability's memory reads those four columns beside the count instead
-- (reservations/floor-versions.ts), so a change to them is seen as before.
DROP TRIGGER floor_change ON restaurants;
CREATE OR REPLACE FUNCTION count_floor_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tenant uuid;
BEGIN
  IF TG_OP = 'DELETE' THEN
    tenant := OLD.tenant_id;
  ELSE
    tenant := NEW.tenant_id;
  END IF;
  INSERT INTO floor_versions (tenant_id, version) VALUES (tenant, 1)
  ON CONFLICT (tenant_id) DO UPDATE SET version = floor_versions.version + 1;
  RETURN NULL;
END;
$$;
