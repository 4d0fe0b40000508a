import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../shared/errors.ts';
import type { Transitions } from '../shared/state-machine.ts';

/** The non-final order statuses a restaurant may use, in their order (spec: Order status). */
export const usableOrderStatuses = ['pending', 'confirmed', 'preparing', 'ready'] as const;

/** The final order statuses every restaurant has, listed after the ones it uses. */
export const finalOrderStatuses = ['completed', 'cancelled'] as const;

export type OrderStatus = (typeof usableOrderStatuses)[number] | (typeof finalOrderStatuses)[number];

/*
 * An order's moves (spec: Order status; decisions.md, Orders): forward only, skipping statuses
 * allowed (a restaurant may not use them all: a move to one it does not use is `stage_not_used`,
 * checked apart), `cancelled` from any status that is not final, nothing out of a final one.
 */
export const orderTransitions: Transitions<OrderStatus> = {
  pending: ['confirmed', 'preparing', 'ready', 'completed', 'cancelled'],
  confirmed: ['preparing', 'ready', 'completed', 'cancelled'],
  preparing: ['ready', 'completed', 'cancelled'],
  ready: ['completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

/*
 * The statuses a restaurant uses (spec: Order status, "a restaurant may skip statuses"): any of
 * pending, confirmed, preparing, ready, at least one, in that order, none twice. pending may be
 * skipped too: a restaurant without it takes orders automatically (a new order starts in its
 * first status).
 */
export function checkOrderStatuses(statuses: readonly string[]): void {
  const inOrder = usableOrderStatuses.filter((status) => statuses.includes(status));
  if (statuses.length === 0 || !isDeepStrictEqual(inOrder, [...statuses]))
    throw new ApiError(
      'invalid_request',
      `order_statuses: at least one of ${usableOrderStatuses.join(', ')}, in that order, none twice.`,
      {
        param: 'order_statuses',
      },
    );
}
