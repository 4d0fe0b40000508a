-- What a restaurant's menu looks like, counted: every menu write (under the menu lock) and every
-- menu image that became ready or failed adds one, in the same transaction as the change. A reader
-- that keeps a menu keeps it under this count (the storefront's pages): a changed count is a
-- changed menu. A restaurant gets its row at its first menu write.
CREATE TABLE menu_versions (
  tenant_id uuid PRIMARY KEY REFERENCES restaurants (id),
  version bigint NOT NULL
);
