-- A refresh token's replacement is checked at commit. The rotation (oauth/refresh-rotation.ts)
-- uses the token up and inserts its replacement in one statement; PostgreSQL checks the key at its
-- end, but Citus runs a statement's writing CTEs one after the other, and the use would be checked
-- before the replacement exists. The rule is the same: at commit, replaced_by names a refresh
-- token of the same restaurant.
ALTER TABLE refresh_tokens ALTER CONSTRAINT refresh_tokens_tenant_id_replaced_by_fkey
  DEFERRABLE INITIALLY DEFERRED;
