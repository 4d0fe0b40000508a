import { sql } from 'kysely';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { sha256 } from '../shared/ids.ts';
import { features, requireFeature } from '../shared/plans.ts';
import type { Plan } from '../shared/scopes.ts';
import { localDate } from '../store/schedule.ts';
import type { Store } from '../store/store.schema.ts';
import { lastGuestDate, loadFloor } from './availability.ts';
import type { Reservation, ReservationInput } from './reservation.schema.ts';
import { createReservation, reservationOf } from './reservations.service.ts';

/*
 * Guests booking a table at the storefront (issue 15):
 * - only restaurants whose plan includes reservations and that have a weekly schedule take them;
 * - a guest books as the guest availability offers: tables bookable online, at least the lead time
 *   ahead, at most the horizon's days after today (createReservation checks the time is offered
 *   and a table is free, under the restaurant's reservation lock, so nothing is overbooked);
 * - the booking form's guest key books once: the same key again answers the reservation it made;
 * - the guest's e-mail (live restaurants) carries a link with a random cancel token, stored hashed.
 */

/** Whether a restaurant takes bookings from guests: its plan includes them and it has weekly hours. */
export function takesGuestBookings(plan: Plan, store: Pick<Store, 'always_open' | 'opening_hours'>): boolean {
  const plans: readonly Plan[] = features.reservations.plans;
  return plans.includes(plan) && !store.always_open && store.opening_hours.length > 0;
}

/** A reservation the guest made with this booking key, or null. */
export async function guestBookingByKey(ctx: Ctx, key: string): Promise<Reservation | null> {
  const row = await ctx.db
    .selectFrom('reservations')
    .selectAll()
    .where('tenant_id', '=', tenantOf(ctx))
    .where('guest_key_hash', '=', sha256(key))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row ? reservationOf(row) : null;
}

/**
 * Books as a guest (source `guest`, the guest e-mailed unless the restaurant is a test one); 403
 * plan_required or 409 slot_unavailable (param starts_at) when the guest may not book this time.
 */
export async function bookAsGuest(
  ctx: Ctx,
  input: ReservationInput & { guest_email: string },
  guestKey: string,
): Promise<Reservation> {
  const keyHash = sha256(guestKey);
  // Two sends of one form take turns here; the second finds the first's reservation.
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`servery.guest-booking:${keyHash}`}, 0))`.execute(
    ctx.db,
  );
  const before = await guestBookingByKey(ctx, guestKey);
  if (before) return before;
  const restaurant = await ctx.db
    .selectFrom('restaurants as r')
    .innerJoin('stores as s', 's.tenant_id', 'r.id')
    .select(['r.plan', 's.always_open', 's.opening_hours'])
    .where('r.id', '=', tenantOf(ctx))
    .executeTakeFirstOrThrow();
  if (!takesGuestBookings(restaurant.plan, restaurant)) {
    requireFeature(restaurant.plan, 'reservations');
    throw new ApiError('slot_unavailable', 'This restaurant offers no times.', { param: 'starts_at' });
  }
  const now = ctx.clock.now();
  const start = new Date(input.starts_at);
  const floor = await loadFloor(ctx, []);
  if (start.getTime() < now.getTime() + floor.guestLeadMinutes * 60_000)
    throw new ApiError('slot_unavailable', 'Guests book at least the lead time ahead.', {
      param: 'starts_at',
    });
  if (localDate(floor.timezone, start) > lastGuestDate(floor, now))
    throw new ApiError('slot_unavailable', 'Guests book at most the horizon ahead.', { param: 'starts_at' });
  const created = await createReservation(ctx, input, 'guest');
  await ctx.db
    .updateTable('reservations')
    .set({ guest_key_hash: keyHash })
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', created.id)
    .execute();
  return created;
}
