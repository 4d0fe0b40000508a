import Type, { type Static } from 'typebox';
import { StoreSchema } from '../store/store.schema.ts';
import { OrderSchema, orderStatuses } from './order.schema.ts';

/** How long completed and cancelled orders stay on the order board after their last change. */
export const boardRecentHours = 3;

/**
 * The dashboard's order board (the kitchen's view): the restaurant's current orders with what the
 * board needs to lay them out (the statuses in use, busy mode) and a version that changes with
 * every change of the board (its live updates compare it).
 */
export const OrderBoardSchema = Type.Object(
  {
    object: Type.Literal('order_board'),
    version: Type.String({
      description: 'Opaque; changes whenever an order on the board or the store’s settings change.',
    }),
    order_statuses: Type.Array(Type.Enum(orderStatuses), {
      description:
        'The statuses the restaurant uses, in order, then completed and cancelled (as the Store’s).',
    }),
    busy: StoreSchema.properties.busy,
    timezone: Type.String(),
    currency: Type.String(),
    orders: Type.Array(OrderSchema, {
      description:
        `Listed orders that are not final, and those completed or cancelled in the last ${boardRecentHours} ` +
        'hours, oldest first.',
    }),
  },
  { additionalProperties: false },
);
export type OrderBoard = Static<typeof OrderBoardSchema>;
