import Type, { type Static } from 'typebox';
import { Timestamp } from '../common.schema.ts';
import { plans, scopes } from '../scopes.ts';

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
