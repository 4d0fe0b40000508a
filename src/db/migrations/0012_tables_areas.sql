-- A restaurant's floor: areas (dining room, terrace) and the tables in them, listed in creation
-- order. An area not bookable online keeps its tables out of online booking; staff and the API
-- may always book any table.
CREATE TABLE store_areas (
  tenant_id uuid NOT NULL REFERENCES stores (tenant_id),
  id uuid NOT NULL,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
  bookable_online boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX store_areas_creation_order ON store_areas (tenant_id, created_at, id);

-- seats null: the restaurant's default size (stores.default_table_seats). min_party: the table is
-- given only to parties of at least this size. qr_key is the key in the table's QR code, stored as
-- it is because the dashboard shows it again to print the code; the public API never shows it.
-- Deleting an area leaves its tables without an area.
CREATE TABLE store_tables (
  tenant_id uuid NOT NULL REFERENCES stores (tenant_id),
  id uuid NOT NULL,
  label text NOT NULL CHECK (length(label) BETWEEN 1 AND 40),
  seats integer CHECK (seats BETWEEN 1 AND 200),
  area_id uuid,
  bookable_online boolean NOT NULL DEFAULT true,
  min_party integer CHECK (min_party BETWEEN 1 AND 200),
  qr_key text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, area_id) REFERENCES store_areas (tenant_id, id) ON DELETE SET NULL (area_id)
);
CREATE INDEX store_tables_creation_order ON store_tables (tenant_id, created_at, id);
CREATE INDEX store_tables_area ON store_tables (tenant_id, area_id) WHERE area_id IS NOT NULL;
