import type { FastifyRequest } from 'fastify';
import { type Ctx, tenantOf } from '../../domain/shared/context.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import type { Limiter, Limiters } from '../../domain/shared/limits.ts';
import { guestLimits, guestOrderLimit, guestOrdersPerMinute } from '../../domain/store/guest-limits.ts';

/** What the guest placed too much of: the pages say which. */
export type GuestPlacement = 'orders' | 'bookings';

/** A placement past a guest limit: 429 rate_limited with Retry-After (the guest API's answer). */
export class GuestLimitReached extends ApiError {
  readonly placement: GuestPlacement;
  readonly retryAfterSeconds: number;
  constructor(placement: GuestPlacement, retryAfterSeconds: number) {
    super(
      'rate_limited',
      `Too many ${placement} were placed here just now; retry after ${retryAfterSeconds} s.`,
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    );
    this.placement = placement;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * One count a placement takes: on a limiter, under a key. Refused past the limiter's points, or
 * when `within(used, points)` is false: the count is past a lower limit.
 */
interface Count {
  limiter: Limiter;
  key: string;
  within?: (used: number, points: number) => Promise<boolean>;
}

/*
 * The guest limits of domain/store/guest-limits.ts, as the storefront's forms and guest API count
 * them: a placement is counted before it runs, refused (429) when any count is past its limit, and
 * taken back when it is refused or fails (a guest correcting a form is not counted twice). The
 * address is the client's (request.ip, behind TRUST_PROXY the forwarded one).
 */
export function guestLimiters(limiters: Limiters) {
  const limiter = (name: string, limit: { points: number; durationSeconds: number }) =>
    limiters.createLimiter({ keyPrefix: `guest-${name}`, ...limit });
  const onSiteFromAddress = limiter('orders-on-site-address', guestLimits.ordersOnSiteFromAddress);
  const onlineFromAddress = limiter('orders-online-address', guestLimits.ordersOnlineFromAddress);
  // Counted up to the most an owner may set; a restaurant's own limit is its share of that (so
  // that limits replaced for the bench, LimitOverrides, replace it too).
  const onSiteAtRestaurant = limiter('orders-on-site-restaurant', {
    points: guestOrdersPerMinute.most,
    durationSeconds: 60,
  });
  const bookingsFromAddress = limiter('bookings-address', guestLimits.bookingsFromAddress);
  const bookingsAtRestaurant = limiter('bookings-restaurant', guestLimits.bookingsAtRestaurant);

  async function placeCounted<T>(
    placement: GuestPlacement,
    counts: Count[],
    place: () => Promise<T>,
  ): Promise<T> {
    const states = await Promise.all(counts.map((count) => count.limiter.consume(count.key)));
    // A count the limiter refused was not kept by its store (past its limit): only the others go back.
    const takeBack = () =>
      Promise.all(
        counts.filter((_, i) => states[i]?.allowed).map((count) => count.limiter.refund(count.key)),
      );
    const inside = await Promise.all(
      states.map(
        (state, i) =>
          state.allowed && (counts[i]?.within?.(state.limit - state.remaining, state.limit) ?? true),
      ),
    );
    const past = states.filter((_, i) => !inside[i]);
    if (past.length > 0) {
      await takeBack();
      throw new GuestLimitReached(placement, Math.max(...past.map((state) => state.resetSeconds)));
    }
    try {
      return await place();
    } catch (error) {
      await takeBack();
      throw error;
    }
  }

  return {
    /** Places a guest's order within the limits: paid on site or online, from a table's QR link or not. */
    async order<T>(
      request: FastifyRequest,
      ctx: Ctx,
      order: { payment_method?: string; table_key?: string | null },
      place: () => Promise<T>,
    ): Promise<T> {
      const tenantId = tenantOf(ctx);
      const address = `${tenantId}:${request.ip}`;
      const online = order.payment_method === 'online';
      const counts: Count[] = [];
      if (!order.table_key)
        counts.push({ limiter: online ? onlineFromAddress : onSiteFromAddress, key: address });
      if (!online) {
        // Within the standard share no limit an owner can set is passed: the restaurant's own is
        // read only beyond it (it is never lower, migration 0033).
        const withinShare = (used: number, points: number, perMinute: number) =>
          used * guestOrdersPerMinute.most <= points * perMinute;
        counts.push({
          limiter: onSiteAtRestaurant,
          key: tenantId,
          within: async (used, points) =>
            withinShare(used, points, guestOrdersPerMinute.standard) ||
            withinShare(used, points, await guestOrderLimit(ctx)),
        });
      }
      return placeCounted('orders', counts, place);
    },
    /** Places a guest's booking within the limits. */
    booking<T>(request: FastifyRequest, tenantId: string, place: () => Promise<T>): Promise<T> {
      return placeCounted(
        'bookings',
        [
          { limiter: bookingsFromAddress, key: `${tenantId}:${request.ip}` },
          { limiter: bookingsAtRestaurant, key: tenantId },
        ],
        place,
      );
    },
  };
}

export type GuestLimiters = ReturnType<typeof guestLimiters>;
