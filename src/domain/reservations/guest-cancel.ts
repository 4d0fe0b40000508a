import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid, sha256 } from '../shared/ids.ts';
import type { Reservation } from './reservation.schema.ts';
import { reservationOf, updateReservation } from './reservations.service.ts';

/*
 * The guest cancels from the link in their e-mail (storefront `/reservations/{id}/cancel?token=`):
 * - the token opens only its own reservation of this restaurant (anything else: not_found);
 * - only a pending or confirmed reservation that has not started can be cancelled; the move goes
 *   through updateReservation, so the transition table and the reservation.updated event (with
 *   previous_status) are a PATCH's.
 */

/** The reservation the link opens, and whether the guest may still cancel it; not_found otherwise. */
export async function reservationByCancelToken(
  ctx: Ctx,
  id: string,
  token: string,
): Promise<{ reservation: Reservation; cancellable: boolean }> {
  const row =
    isUuid(id) && token !== ''
      ? await ctx.db
          .selectFrom('reservations')
          .selectAll()
          .where('tenant_id', '=', tenantOf(ctx))
          .where('id', '=', id)
          .where('cancel_token_hash', '=', sha256(token))
          .where('deleted_at', 'is', null)
          .executeTakeFirst()
      : undefined;
  if (!row) throw new ApiError('not_found', `This restaurant has no reservation ${id} for this link.`);
  const open = row.status === 'pending' || row.status === 'confirmed';
  return {
    reservation: reservationOf(row),
    cancellable: open && row.starts_at.getTime() > ctx.clock.now().getTime(),
  };
}

/** Cancels for the guest; 409 invalid_transition when it can no longer be cancelled (nothing changes). */
export async function cancelByGuest(ctx: Ctx, id: string, token: string): Promise<Reservation> {
  const { reservation, cancellable } = await reservationByCancelToken(ctx, id, token);
  if (!cancellable)
    throw new ApiError('invalid_transition', `This reservation is ${reservation.status} or has started.`, {
      param: 'status',
    });
  return updateReservation(ctx, id, { status: 'cancelled' });
}
