-- A restaurant's menu (issue 12): categories, products, option groups with their options, and the
-- shared option groups a product uses, in order.
--
-- external_id is one app's own reference for an object: external_id_app_id is that app, and only it
-- ever sees the value (the API shows null to every other app and in events). At most one object of
-- a kind per restaurant has a given external_id, whichever app set it.
-- position orders objects for the menu (ties by id); list endpoints use (updated_at, id).
-- tax_class null: a product takes its category's, a category means food.
-- unavailable_until: sold out until that instant, then available again (a later addition).

CREATE TABLE menu_categories (
  tenant_id uuid NOT NULL REFERENCES restaurants (id),
  id uuid NOT NULL,
  external_id text CHECK (length(external_id) BETWEEN 1 AND 100),
  external_id_app_id uuid,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
  position integer NOT NULL CHECK (position >= 0),
  tax_class text CHECK (tax_class IN ('food', 'drink', 'alcohol')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  CHECK ((external_id IS NULL) = (external_id_app_id IS NULL))
);
CREATE UNIQUE INDEX menu_categories_external_id ON menu_categories (tenant_id, external_id)
  WHERE external_id IS NOT NULL;
CREATE INDEX menu_categories_update_order ON menu_categories (tenant_id, updated_at, id);
CREATE INDEX menu_categories_menu_order ON menu_categories (tenant_id, position, id);

-- Deleting a category moves its products to no category (the service does it, with their events;
-- the foreign key's SET NULL is the safety net).
CREATE TABLE menu_products (
  tenant_id uuid NOT NULL REFERENCES restaurants (id),
  id uuid NOT NULL,
  external_id text CHECK (length(external_id) BETWEEN 1 AND 100),
  external_id_app_id uuid,
  category_id uuid,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description text CHECK (length(description) <= 2000),
  price integer NOT NULL CHECK (price >= 0),
  available boolean NOT NULL DEFAULT true,
  unavailable_until timestamptz,
  position integer NOT NULL CHECK (position >= 0),
  allergens text[] NOT NULL DEFAULT '{}',
  diets text[] NOT NULL DEFAULT '{}',
  image_url text,
  tax_class text CHECK (tax_class IN ('food', 'drink', 'alcohol')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  CHECK ((external_id IS NULL) = (external_id_app_id IS NULL)),
  FOREIGN KEY (tenant_id, category_id) REFERENCES menu_categories (tenant_id, id)
    ON DELETE SET NULL (category_id)
);
CREATE UNIQUE INDEX menu_products_external_id ON menu_products (tenant_id, external_id)
  WHERE external_id IS NOT NULL;
CREATE INDEX menu_products_update_order ON menu_products (tenant_id, updated_at, id);
CREATE INDEX menu_products_menu_order ON menu_products (tenant_id, position, id);
CREATE INDEX menu_products_category ON menu_products (tenant_id, category_id, position);

-- An option group belongs to one product (product_id) or is shared (null) and then linked to
-- products through menu_product_option_groups. Deleting a group deletes its options.
CREATE TABLE menu_option_groups (
  tenant_id uuid NOT NULL REFERENCES restaurants (id),
  id uuid NOT NULL,
  external_id text CHECK (length(external_id) BETWEEN 1 AND 100),
  external_id_app_id uuid,
  product_id uuid,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  min_select integer NOT NULL DEFAULT 0 CHECK (min_select BETWEEN 0 AND 20),
  max_select integer NOT NULL DEFAULT 1 CHECK (max_select BETWEEN 1 AND 20),
  position integer NOT NULL CHECK (position >= 0),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  CHECK ((external_id IS NULL) = (external_id_app_id IS NULL)),
  CHECK (min_select <= max_select),
  FOREIGN KEY (tenant_id, product_id) REFERENCES menu_products (tenant_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX menu_option_groups_external_id ON menu_option_groups (tenant_id, external_id)
  WHERE external_id IS NOT NULL;
CREATE INDEX menu_option_groups_update_order ON menu_option_groups (tenant_id, updated_at, id);
CREATE INDEX menu_option_groups_menu_order ON menu_option_groups (tenant_id, position, id);
CREATE INDEX menu_option_groups_product ON menu_option_groups (tenant_id, product_id, position)
  WHERE product_id IS NOT NULL;

CREATE TABLE menu_options (
  tenant_id uuid NOT NULL REFERENCES restaurants (id),
  id uuid NOT NULL,
  external_id text CHECK (length(external_id) BETWEEN 1 AND 100),
  external_id_app_id uuid,
  group_id uuid NOT NULL,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  price_delta integer NOT NULL,
  available boolean NOT NULL DEFAULT true,
  unavailable_until timestamptz,
  position integer NOT NULL CHECK (position >= 0),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  CHECK ((external_id IS NULL) = (external_id_app_id IS NULL)),
  FOREIGN KEY (tenant_id, group_id) REFERENCES menu_option_groups (tenant_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX menu_options_external_id ON menu_options (tenant_id, external_id)
  WHERE external_id IS NOT NULL;
CREATE INDEX menu_options_update_order ON menu_options (tenant_id, updated_at, id);
CREATE INDEX menu_options_group_order ON menu_options (tenant_id, group_id, position, id);

-- The shared option groups a product uses, in order (after its own groups).
CREATE TABLE menu_product_option_groups (
  tenant_id uuid NOT NULL,
  product_id uuid NOT NULL,
  group_id uuid NOT NULL,
  position integer NOT NULL CHECK (position >= 0),
  PRIMARY KEY (tenant_id, product_id, group_id),
  FOREIGN KEY (tenant_id, product_id) REFERENCES menu_products (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, group_id) REFERENCES menu_option_groups (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX menu_product_option_groups_group ON menu_product_option_groups (tenant_id, group_id);
