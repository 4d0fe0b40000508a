-- Menu images: the pictures behind products' image_url, downloaded once per restaurant and URL
-- and hosted by Servery in standard sizes (src/domain/menu/menu-images.ts). A row per URL a
-- restaurant has used, so a URL used before is not downloaded again, and a test restaurant's
-- downloaded images (at most 50) are counted here.
-- - url_hash: SHA-256 (hex) of the URL's UTF-8 bytes, the key (a URL may be longer than an index
--   entry may be); source_url the URL itself;
-- - status: pending (queued for the worker), ready (sizes: the store's key of each hosted width,
--   {"400": "<key>", "1200": "<key>"}), failed (error: why, for the app to read);
-- - a product's image is found by its image_url's hash: products and images are not tied by keys,
--   so a URL several products share is one image, kept when a product changes its URL.
CREATE TABLE menu_images (
  tenant_id uuid NOT NULL REFERENCES restaurants (id),
  url_hash text NOT NULL CHECK (url_hash ~ '^[0-9a-f]{64}$'),
  source_url text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'ready', 'failed')),
  sizes jsonb,
  error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, url_hash),
  CHECK ((status = 'ready') = (sizes IS NOT NULL)),
  CHECK ((status = 'failed') = (error IS NOT NULL))
);
