-- Webhook deliveries and their log keyed by restaurant first, as every restaurant table, so the
-- schema can be distributed by restaurant (docs/scale-out.md, `servery distribute --check`). A
-- delivery is still found by its id alone (the delivery log, a resend): its index stays, no
-- longer unique on its own. Jobs and restaurants' own webhooks stop pointing at restaurants with a
-- foreign key: jobs stay on the coordinator and webhooks are copied to every node, neither of
-- which may point into a distributed table. Restaurants are never deleted.
ALTER TABLE webhook_delivery_attempts ADD COLUMN tenant_id uuid;
UPDATE webhook_delivery_attempts a SET tenant_id = d.tenant_id FROM webhook_deliveries d WHERE d.id = a.delivery_id;
ALTER TABLE webhook_delivery_attempts ALTER COLUMN tenant_id SET NOT NULL;
ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_delivery_id_fkey;
ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_pkey;

ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey;
ALTER TABLE webhook_deliveries ADD PRIMARY KEY (tenant_id, id);
CREATE INDEX webhook_deliveries_by_id ON webhook_deliveries (id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_once;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_once UNIQUE (tenant_id, webhook_id, position);

ALTER TABLE webhook_delivery_attempts ADD PRIMARY KEY (tenant_id, delivery_id, attempt);
ALTER TABLE webhook_delivery_attempts ADD FOREIGN KEY (tenant_id, delivery_id)
  REFERENCES webhook_deliveries (tenant_id, id) ON DELETE CASCADE;

ALTER TABLE jobs DROP CONSTRAINT jobs_tenant_id_fkey;
ALTER TABLE webhooks DROP CONSTRAINT webhooks_tenant_id_fkey;
