import Type from 'typebox';
import { PlacedOrderSchema } from '../../domain/orders/order-placement.schema.ts';
import { placeTestOrder } from '../../domain/orders/test-order.service.ts';
import { ownersOnly, type SignedInRoute, signedInRoute } from '../shared/signed-in-route.ts';

const params = Type.Object(
  { restaurant_id: Type.String({ maxLength: 100 }) },
  { additionalProperties: false },
);

/** The developer's one-click test order in their test restaurant (its owners only; a live restaurant: 404). */
export const testOrderRoutes: readonly SignedInRoute[] = [
  signedInRoute({
    method: 'POST',
    url: '/console/api/restaurants/:restaurant_id/test-orders',
    auth: ownersOnly,
    schema: {
      params,
      querystring: Type.Object({}, { additionalProperties: false }),
      body: Type.Object({}, { additionalProperties: false }),
      response: { 201: PlacedOrderSchema },
    },
    handler: async (ctx, _request, reply) => {
      const placed = await placeTestOrder(ctx);
      reply.code(201);
      return placed;
    },
  }),
];
