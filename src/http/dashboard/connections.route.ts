import Type from 'typebox';
import { ConnectionRevokedSchema } from '../../domain/connections/connection.schema.ts';
import {
  disconnectApp,
  listRestaurantConnections,
  RestaurantConnectionListSchema,
} from '../../domain/connections/restaurant-connections.ts';
import { ownersOnly, type SignedInRoute, signedInRoute } from '../shared/signed-in-route.ts';

const base = '/dashboard/api/restaurants/:restaurant_id/connections';
const restaurantParams = Type.Object(
  { restaurant_id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
const connectionParams = Type.Object(
  { restaurant_id: Type.String({ format: 'uuid' }), connection_id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
const noQuery = Type.Object({}, { additionalProperties: false });
const noBody = Type.Object({}, { additionalProperties: false });

/**
 * The apps connected to a restaurant, for its owners (anyone else: 404): the list, and
 * disconnecting one, which ends the connection and its tokens at once (restaurant-connections.ts).
 */
export const connectionRoutes: readonly SignedInRoute[] = [
  signedInRoute({
    method: 'GET',
    url: base,
    auth: ownersOnly,
    schema: {
      params: restaurantParams,
      querystring: noQuery,
      response: { 200: RestaurantConnectionListSchema },
    },
    handler: (ctx) => listRestaurantConnections(ctx),
  }),
  signedInRoute({
    method: 'DELETE',
    url: `${base}/:connection_id`,
    auth: ownersOnly,
    schema: {
      params: connectionParams,
      querystring: noQuery,
      body: noBody,
      response: { 200: ConnectionRevokedSchema },
    },
    handler: (ctx, request) => disconnectApp(ctx, request.params.connection_id),
  }),
];
