-- The guest's e-mail on an order (storefront and guest API, optional; needed to pay online): the
-- order's confirmation with its receipt, and word when it is accepted, rejected or cancelled, go
-- there (never from a test restaurant). It is never returned by the API nor carried by events.
-- mail_key_hash: a second key to the guest's order page, made when an online payment succeeds
-- for the link in the confirmation (the key of the checkout is kept only hashed).
-- stores.vat_id: the restaurant's VAT identification number, printed on the receipt.
-- reservations.notify_guest: whether the guest is mailed about the reservation (an app's
-- `notify_guest: false` holds for the cancellation's mail too); true for those made before.
ALTER TABLE orders ADD COLUMN guest_email text, ADD COLUMN mail_key_hash text;
CREATE UNIQUE INDEX orders_by_mail_key ON orders (tenant_id, mail_key_hash) WHERE mail_key_hash IS NOT NULL;
ALTER TABLE stores ADD COLUMN vat_id text;
ALTER TABLE reservations ADD COLUMN notify_guest boolean NOT NULL DEFAULT true;
