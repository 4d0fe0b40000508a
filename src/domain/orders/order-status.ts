import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../shared/errors.ts';

/** The non-final order statuses a restaurant may use, in their order (spec: Order status). */
export const usableOrderStatuses = ['pending', 'confirmed', 'preparing', 'ready'] as const;

/** The final order statuses every restaurant has, listed after the ones it uses. */
export const finalOrderStatuses = ['completed', 'cancelled'];

/** The statuses in use: pending first, the others in their order, none twice. */
export function checkOrderStatuses(statuses: readonly string[]): void {
  const inOrder = usableOrderStatuses.filter((status) => statuses.includes(status));
  if (statuses[0] !== 'pending' || !isDeepStrictEqual(inOrder, [...statuses]))
    throw new ApiError(
      'invalid_request',
      `order_statuses: pending first, then any of ${usableOrderStatuses.slice(1).join(', ')} in that order.`,
      {
        param: 'order_statuses',
      },
    );
}
