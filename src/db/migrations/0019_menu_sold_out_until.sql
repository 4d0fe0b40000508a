-- Sold out until a time (a compatible addition): the worker puts products and options back on sale
-- once unavailable_until has passed (src/domain/menu/back-on-sale.ts). These partial indexes hold
-- only the objects sold out with an end time, so finding the due ones reads just those.

CREATE INDEX menu_products_sold_out_until ON menu_products (unavailable_until, tenant_id)
  WHERE unavailable_until IS NOT NULL;
CREATE INDEX menu_options_sold_out_until ON menu_options (unavailable_until, tenant_id)
  WHERE unavailable_until IS NOT NULL;
