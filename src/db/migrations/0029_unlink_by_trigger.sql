-- A deleted area leaves its tables without an area, a deleted category its products without a
-- category. Foreign keys did it (ON DELETE SET NULL (area_id), (category_id)), which Citus refuses
-- between distributed tables (docs/scale-out.md): it takes no SET NULL nor SET DEFAULT on a key that
-- holds the distribution column, whichever columns the action names. So the keys only check, and a
-- trigger before the delete clears the references, on the deleted row's shard's colocated one.
-- Each table has its own function: on Citus a trigger runs on a shard, whose name is not the table's.
CREATE FUNCTION unlink_deleted_area() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE store_tables SET area_id = NULL WHERE tenant_id = OLD.tenant_id AND area_id = OLD.id;
  RETURN OLD;
END;
$$;
CREATE TRIGGER unlink_tables BEFORE DELETE ON store_areas
  FOR EACH ROW EXECUTE FUNCTION unlink_deleted_area();
ALTER TABLE store_tables DROP CONSTRAINT store_tables_tenant_id_area_id_fkey;
ALTER TABLE store_tables ADD CONSTRAINT store_tables_tenant_id_area_id_fkey
  FOREIGN KEY (tenant_id, area_id) REFERENCES store_areas (tenant_id, id);

CREATE FUNCTION unlink_deleted_category() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE menu_products SET category_id = NULL WHERE tenant_id = OLD.tenant_id AND category_id = OLD.id;
  RETURN OLD;
END;
$$;
CREATE TRIGGER unlink_products BEFORE DELETE ON menu_categories
  FOR EACH ROW EXECUTE FUNCTION unlink_deleted_category();
ALTER TABLE menu_products DROP CONSTRAINT menu_products_tenant_id_category_id_fkey;
ALTER TABLE menu_products ADD CONSTRAINT menu_products_tenant_id_category_id_fkey
  FOREIGN KEY (tenant_id, category_id) REFERENCES menu_categories (tenant_id, id);
