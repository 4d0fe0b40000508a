import Type, { type Static } from 'typebox';
import { Timestamp } from '../shared/common.schema.ts';
import { type Plan, plans, type Scope, scopes } from '../shared/scopes.ts';
import { connectionRateLimit } from './rate-limit.ts';

/** The Connection resource exactly as the spec's table lists it (`GET /me`). */
export const ConnectionSchema = Type.Object({
  object: Type.Literal('connection'),
  id: Type.String({ format: 'uuid' }),
  livemode: Type.Boolean(),
  app: Type.Object({ client_id: Type.String(), name: Type.String() }),
  tenant: Type.Object({
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    slug: Type.String(),
    timezone: Type.String(),
    currency: Type.String(),
    country: Type.Union([Type.String(), Type.Null()]),
  }),
  scopes: Type.Array(Type.Enum(scopes)),
  plan: Type.Enum(plans),
  rate_limit: Type.Object({ limit: Type.Integer(), window_seconds: Type.Integer() }),
  created_at: Timestamp,
});
export type Connection = Static<typeof ConnectionSchema>;

export const ConnectionRevokedSchema = Type.Object({
  object: Type.Literal('connection'),
  id: Type.String({ format: 'uuid' }),
  revoked: Type.Literal(true),
});
export type ConnectionRevoked = Static<typeof ConnectionRevokedSchema>;

/** What the Connection resource is made of, as the queries that show it select it. */
export interface ConnectionRow {
  connection_id: string;
  scopes: readonly Scope[];
  connected_at: Date;
  client_id: string;
  app_name: string;
  tenant_id: string;
  name: string;
  slug: string;
  timezone: string;
  currency: string;
  country: string | null;
  plan: Plan;
  livemode: boolean;
}

export function toConnection(row: ConnectionRow): Connection {
  return {
    object: 'connection',
    id: row.connection_id,
    livemode: row.livemode,
    app: { client_id: row.client_id, name: row.app_name },
    tenant: {
      id: row.tenant_id,
      name: row.name,
      slug: row.slug,
      timezone: row.timezone,
      currency: row.currency,
      country: row.country,
    },
    scopes: [...row.scopes],
    plan: row.plan,
    rate_limit: { limit: connectionRateLimit.limit, window_seconds: connectionRateLimit.windowSeconds },
    created_at: row.connected_at,
  };
}
