-- The colour a restaurant's storefront is drawn in (its header, buttons and links): six lowercase
-- hex digits with '#', set by its owner in the dashboard; null: Servery's own green. The service
-- refuses a colour white text cannot be read on (storefront-look.ts).
ALTER TABLE stores ADD COLUMN accent_color text
  CONSTRAINT stores_accent_color_format CHECK (accent_color ~ '^#[0-9a-f]{6}$');
