-- Who made the change an event reports (the audit trail): {"kind": "connection" | "account" |
-- "system", "id", "role"} from the ctx's actor (src/domain/shared/context.ts). Null for events
-- recorded before.
ALTER TABLE events ADD COLUMN actor jsonb;
