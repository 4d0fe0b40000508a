-- Guests booking at the storefront (issue 15): the link in their e-mail cancels the reservation
-- with a random token, kept only as its SHA-256 (hex); the booking form's guest key (also hashed)
-- makes a form sent twice book once. Both are null for reservations made by staff or the API.
ALTER TABLE reservations ADD COLUMN cancel_token_hash text;
ALTER TABLE reservations ADD COLUMN guest_key_hash text;
CREATE UNIQUE INDEX reservations_by_guest_key ON reservations (tenant_id, guest_key_hash)
  WHERE guest_key_hash IS NOT NULL;
