-- A count per restaurant of the changes to what its reservation availability is computed from:
-- its reservations, tables, areas, reservation settings and combinations, special days, weekly
-- hours and default table size, and its name, zone, language and mode. Availability is asked
-- often and changes seldom: a process keeps what it computed for a date and reuses it while the
-- count, read with every request, stands still. Triggers count every writer, present and future.
CREATE TABLE floor_versions (
  tenant_id uuid PRIMARY KEY,
  version bigint NOT NULL
);

CREATE FUNCTION count_floor_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tenant uuid;
BEGIN
  IF TG_TABLE_NAME = 'restaurants' THEN
    tenant := NEW.id;
  ELSIF TG_OP = 'DELETE' THEN
    tenant := OLD.tenant_id;
  ELSE
    tenant := NEW.tenant_id;
  END IF;
  INSERT INTO floor_versions (tenant_id, version) VALUES (tenant, 1)
  ON CONFLICT (tenant_id) DO UPDATE SET version = floor_versions.version + 1;
  RETURN NULL;
END;
$$;

CREATE TRIGGER floor_change AFTER INSERT OR UPDATE OR DELETE ON reservations
  FOR EACH ROW EXECUTE FUNCTION count_floor_change();
CREATE TRIGGER floor_change AFTER INSERT OR UPDATE OR DELETE ON store_tables
  FOR EACH ROW EXECUTE FUNCTION count_floor_change();
CREATE TRIGGER floor_change AFTER INSERT OR UPDATE OR DELETE ON store_areas
  FOR EACH ROW EXECUTE FUNCTION count_floor_change();
CREATE TRIGGER floor_change AFTER INSERT OR UPDATE OR DELETE ON reservation_combinations
  FOR EACH ROW EXECUTE FUNCTION count_floor_change();
CREATE TRIGGER floor_change AFTER INSERT OR UPDATE OR DELETE ON store_closures
  FOR EACH ROW EXECUTE FUNCTION count_floor_change();
CREATE TRIGGER floor_change AFTER INSERT OR UPDATE ON reservation_settings
  FOR EACH ROW EXECUTE FUNCTION count_floor_change();
CREATE TRIGGER floor_change AFTER UPDATE OF opening_hours, always_open, default_table_seats ON stores
  FOR EACH ROW EXECUTE FUNCTION count_floor_change();
CREATE TRIGGER floor_change AFTER UPDATE OF name, timezone, language, livemode ON restaurants
  FOR EACH ROW EXECUTE FUNCTION count_floor_change();
