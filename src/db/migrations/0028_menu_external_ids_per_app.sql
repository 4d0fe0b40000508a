-- A menu object's external_id is unique per app, not per restaurant (issue 26; spec: Errors,
-- external_id_taken is for a value "the app already uses"): an app uses a value for one object of a
-- kind, and another app of the restaurant may use the same value for an object of its own. The
-- restaurant leads every index (the tables are distributed by tenant_id).
DROP INDEX menu_categories_external_id;
CREATE UNIQUE INDEX menu_categories_external_id
  ON menu_categories (tenant_id, external_id_app_id, external_id) WHERE external_id IS NOT NULL;
DROP INDEX menu_products_external_id;
CREATE UNIQUE INDEX menu_products_external_id
  ON menu_products (tenant_id, external_id_app_id, external_id) WHERE external_id IS NOT NULL;
DROP INDEX menu_option_groups_external_id;
CREATE UNIQUE INDEX menu_option_groups_external_id
  ON menu_option_groups (tenant_id, external_id_app_id, external_id) WHERE external_id IS NOT NULL;
DROP INDEX menu_options_external_id;
CREATE UNIQUE INDEX menu_options_external_id
  ON menu_options (tenant_id, external_id_app_id, external_id) WHERE external_id IS NOT NULL;
