import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';

/*
 * How much guests may place at one restaurant through its storefront and guest API
 * (docs/storefront.md, "Limits"), so that no one fills a kitchen's board with made-up orders:
 * - orders paid on site, from one address: 10 in 10 minutes; with online payment 30 (such an order
 *   reaches the kitchen only once paid). Orders from a table's QR link are not counted per
 *   address: guests at the tables share the restaurant's own network;
 * - orders paid on site at the restaurant, from everyone: 60 a minute, which its owner may raise
 *   up to 1,000 in the dashboard (stores.guest_orders_per_minute);
 * - bookings, from one address: 5 in 10 minutes; at the restaurant: 30 a minute.
 * The counts are the service's rate limits' (adapters/rate-limit-stores.ts): shared by every
 * process through PostgreSQL or Redis.
 */
export const guestLimits = {
  ordersOnSiteFromAddress: { points: 10, durationSeconds: 600 },
  ordersOnlineFromAddress: { points: 30, durationSeconds: 600 },
  bookingsFromAddress: { points: 5, durationSeconds: 600 },
  bookingsAtRestaurant: { points: 30, durationSeconds: 60 },
} as const;

/** The restaurant's limit of orders paid on site per minute: by default, and the most an owner sets. */
export const guestOrdersPerMinute = { standard: 60, most: 1000 } as const;

/** The restaurant's limit of orders paid on site per minute. */
export async function guestOrderLimit(ctx: Ctx): Promise<number> {
  const row = await ctx.db
    .selectFrom('stores')
    .select('guest_orders_per_minute')
    .where('tenant_id', '=', tenantOf(ctx))
    .executeTakeFirst();
  return row?.guest_orders_per_minute ?? guestOrdersPerMinute.standard;
}

/** Sets it (the owner, in the dashboard): a whole number from 60 to 1,000, else 400 on the field. */
export async function setGuestOrderLimit(ctx: Ctx, perMinute: number): Promise<void> {
  const { standard, most } = guestOrdersPerMinute;
  if (!Number.isInteger(perMinute) || perMinute < standard || perMinute > most)
    throw new ApiError(
      'invalid_request',
      `guest_orders_per_minute must be a whole number from ${standard} to ${most}.`,
      { param: 'guest_orders_per_minute' },
    );
  await ctx.db
    .updateTable('stores')
    .set({ guest_orders_per_minute: perMinute })
    .where('tenant_id', '=', tenantOf(ctx))
    .execute();
}
