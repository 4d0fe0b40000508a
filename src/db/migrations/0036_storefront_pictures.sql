-- The storefront's logo (in its header) and cover picture (atop its menu), uploaded by the owner in
-- the dashboard and hosted as menu photos are: the image store's key of each width, as
-- menu_images.sizes ({"400": "<sha256>.webp", "1200": "<sha256>.webp"}); null: none.
ALTER TABLE stores ADD COLUMN logo_sizes jsonb, ADD COLUMN cover_sizes jsonb;
