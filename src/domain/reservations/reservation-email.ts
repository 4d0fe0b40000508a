import type { Selectable } from 'kysely';
import type { ReservationsTable } from '../../db/schema.ts';
import { pickLocale } from '../../i18n/i18n.ts';
import { queueEmail } from '../email/email-outbox.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import type { Floor } from './availability.ts';

/**
 * Queues the guest's e-mail about a new reservation (in the caller's transaction): "confirmed" or,
 * for a pending one, "request received", in the guest's language (else the restaurant's), with
 * the reservation as a calendar file, and with `cancelToken` the guest's link to cancel it, on the
 * storefront (`ctx.storefront`, its page `/reservations/{id}/cancel`). The caller decides whether
 * the guest is e-mailed at all.
 */
export async function queueReservationEmail(
  ctx: Ctx,
  floor: Floor,
  row: Selectable<ReservationsTable>,
  cancelToken: string | null,
): Promise<void> {
  const cancelUrl =
    cancelToken !== null && ctx.storefront !== undefined
      ? `${ctx.storefront}/reservations/${row.id}/cancel?token=${cancelToken}`
      : undefined;
  await queueEmail(ctx, {
    tenantId: row.tenant_id,
    to: row.guest_email as string,
    locale: pickLocale([row.guest_locale ?? floor.language]),
    template: row.status === 'pending' ? 'reservationRequested' : 'reservationConfirmed',
    params: {
      restaurant: floor.name,
      reservation_id: row.id,
      code: row.code,
      starts_at: row.starts_at.toISOString(),
      duration_minutes: row.duration_minutes,
      party_size: row.party_size,
      timezone: floor.timezone,
      created_at: row.created_at.toISOString(),
      ...(cancelUrl !== undefined && { cancel_url: cancelUrl }),
    },
  });
}

/**
 * Queues the guest's e-mail that the reservation is cancelled (by the guest's link, the restaurant
 * or an app), in the guest's language (else the restaurant's): only with the guest's e-mail, not
 * when the reservation was made with `notify_guest: false`, and never from a test restaurant.
 */
export async function queueReservationCancelledEmail(
  ctx: Ctx,
  row: Selectable<ReservationsTable>,
): Promise<void> {
  if (row.guest_email === null || !row.notify_guest) return;
  const restaurant = await ctx.db
    .selectFrom('restaurants')
    .select(['name', 'timezone', 'language', 'livemode'])
    .where('id', '=', tenantOf(ctx))
    .executeTakeFirstOrThrow();
  if (!restaurant.livemode) return;
  await queueEmail(ctx, {
    tenantId: row.tenant_id,
    to: row.guest_email,
    locale: pickLocale([row.guest_locale ?? restaurant.language]),
    template: 'reservationCancelled',
    params: {
      restaurant: restaurant.name,
      code: row.code,
      starts_at: row.starts_at.toISOString(),
      party_size: row.party_size,
      timezone: restaurant.timezone,
    },
  });
}
