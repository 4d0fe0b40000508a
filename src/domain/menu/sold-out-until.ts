import { ApiError } from '../shared/errors.ts';
import { parseTimestamp } from '../shared/timestamps.ts';

/** A product's or option's availability as stored: `unavailable_until` is set only while sold out. */
export interface SoldOutState {
  available: boolean;
  unavailable_until: Date | null;
}

/*
 * Sold out until a time (decisions.md, Additions beyond the spec), on every write of `available`
 * (single-object POST and PATCH, availability entries):
 * - an end time goes only with `available: false` (with `true`, or without `available`, it is a 400
 *   on `untilParam`) and must be in the future (else a 400 on it);
 * - `available: true` clears it (back on sale); `available: false` without one clears it too (sold
 *   out until put back);
 * - `available` not sent: both stay, but an end time of null clears the end (still sold out).
 */
export function soldOutState(
  current: SoldOutState,
  sent: { available?: boolean | undefined; until?: string | null | undefined },
  now: Date,
  untilParam: string,
): SoldOutState {
  if (sent.until === undefined || sent.until === null) {
    if (sent.available !== undefined) return { available: sent.available, unavailable_until: null };
    return {
      available: current.available,
      unavailable_until: sent.until === null ? null : current.unavailable_until,
    };
  }
  if (sent.available !== false)
    throw new ApiError('invalid_request', `${untilParam} goes only with available: false.`, {
      param: untilParam,
    });
  const until = parseTimestamp(sent.until);
  if (until === null)
    throw new ApiError('invalid_request', `${untilParam} is no instant.`, { param: untilParam });
  if (until <= now)
    throw new ApiError('invalid_request', `${untilParam} must be in the future.`, { param: untilParam });
  return { available: false, unavailable_until: until };
}
