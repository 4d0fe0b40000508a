-- The last unique indexes Citus would refuse (docs/scale-out.md, `servery distribute --check`): a
-- unique index of a distributed table must hold the restaurant, since Citus enforces uniqueness
-- within one shard only.
-- - Tokens and codes: the index leads with the hash, which a request brings alone, and holds the
--   restaurant; a hash of 256 random bits is unique across restaurants without an index saying so.
-- - QR keys and guests' order keys are looked up in one restaurant (its storefront's address):
--   unique per restaurant.
-- - A payment reference is the provider's, looked up alone by the provider's webhook.
-- - Restaurants are copied to every node instead (a reference table, written when an owner edits
--   one), so their slug stays unique across restaurants and jobs and webhooks point at them again.
DROP INDEX access_tokens_hash;
CREATE UNIQUE INDEX access_tokens_hash ON access_tokens (token_hash, tenant_id);
DROP INDEX refresh_tokens_hash;
CREATE UNIQUE INDEX refresh_tokens_hash ON refresh_tokens (token_hash, tenant_id);
DROP INDEX authorization_codes_hash;
CREATE UNIQUE INDEX authorization_codes_hash ON authorization_codes (code_hash, tenant_id);

ALTER TABLE store_tables DROP CONSTRAINT store_tables_qr_key_key;
ALTER TABLE store_tables ADD CONSTRAINT store_tables_qr_key UNIQUE (tenant_id, qr_key);
ALTER TABLE orders DROP CONSTRAINT orders_guest_key_hash_key;
ALTER TABLE orders ADD CONSTRAINT orders_guest_key UNIQUE (tenant_id, guest_key_hash);

ALTER TABLE order_payments DROP CONSTRAINT order_payments_provider_reference_key;
ALTER TABLE order_payments ADD CONSTRAINT order_payments_reference UNIQUE (provider, reference, tenant_id);

ALTER TABLE jobs ADD FOREIGN KEY (tenant_id) REFERENCES restaurants (id);
ALTER TABLE webhooks ADD FOREIGN KEY (tenant_id) REFERENCES restaurants (id);
