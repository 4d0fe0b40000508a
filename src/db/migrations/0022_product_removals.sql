-- How many times products were removed from the restaurant's menu (deleted, or dropped by a menu
-- sync), counted in the removing transaction. The orders list reads it with its page: while it
-- stands still, products a process found on the menu are still there, so the list checks an
-- order's products against the menu only when the count moved or a product is new to it.
ALTER TABLE restaurants ADD COLUMN product_removals integer NOT NULL DEFAULT 0;
