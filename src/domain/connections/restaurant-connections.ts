import Type, { type Static } from 'typebox';
import { nullable, Timestamp } from '../shared/common.schema.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import { type Scope, scopes } from '../shared/scopes.ts';
import type { ConnectionRevoked } from './connection.schema.ts';
import { endActiveConnection } from './connections.service.ts';

/** An app connected to the restaurant, as its owners see it in the dashboard. */
export const RestaurantConnectionSchema = Type.Object(
  {
    object: Type.Literal('connection'),
    id: Type.String({ format: 'uuid' }),
    app: Type.Object(
      {
        client_id: Type.String(),
        name: Type.String(),
        logo_url: nullable(Type.String()),
        website: nullable(Type.String()),
      },
      { additionalProperties: false },
    ),
    scopes: Type.Array(Type.Enum(scopes)),
    created_at: Timestamp,
  },
  { additionalProperties: false },
);
export type RestaurantConnection = Static<typeof RestaurantConnectionSchema>;

export const RestaurantConnectionListSchema = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(RestaurantConnectionSchema) },
  { additionalProperties: false },
);

/** The active connections of the ctx's restaurant, oldest first; with `connectionId`, that one. */
async function activeConnections(ctx: Ctx, connectionId?: string): Promise<RestaurantConnection[]> {
  let query = ctx.db
    .selectFrom('connections as c')
    .innerJoin('apps as a', 'a.id', 'c.app_id')
    .select(['c.id', 'c.scopes', 'c.created_at', 'a.client_id', 'a.name', 'a.logo_url', 'a.website'])
    .where('c.tenant_id', '=', tenantOf(ctx))
    .where('c.ended_at', 'is', null);
  if (connectionId !== undefined) query = query.where('c.id', '=', connectionId);
  const rows = await query.orderBy('c.created_at').orderBy('c.id').execute();
  return rows.map((row) => ({
    object: 'connection',
    id: row.id,
    app: { client_id: row.client_id, name: row.name, logo_url: row.logo_url, website: row.website },
    scopes: row.scopes as Scope[],
    created_at: row.created_at,
  }));
}

export async function listRestaurantConnections(
  ctx: Ctx,
): Promise<{ object: 'list'; data: RestaurantConnection[] }> {
  return { object: 'list', data: await activeConnections(ctx) };
}

/** One active connection of the restaurant; another restaurant's or an ended one is `not_found`. */
export async function restaurantConnection(ctx: Ctx, connectionId: string): Promise<RestaurantConnection> {
  const [found] = isUuid(connectionId) ? await activeConnections(ctx, connectionId) : [];
  if (!found) throw new ApiError('not_found', `No connected app ${connectionId}.`);
  return found;
}

/**
 * The restaurant disconnects an app: the connection ends as when the app ends it itself (every
 * token stops working at once, `app.disconnected`, the owners e-mailed), with reason `restaurant`.
 * Another restaurant's connection, or one already ended, is `not_found`.
 */
export async function disconnectApp(ctx: Ctx, connectionId: string): Promise<ConnectionRevoked> {
  const ended = isUuid(connectionId)
    ? await endActiveConnection(ctx, tenantOf(ctx), connectionId, 'restaurant')
    : false;
  if (!ended) throw new ApiError('not_found', `No connected app ${connectionId}.`);
  return { object: 'connection', id: connectionId, revoked: true };
}
