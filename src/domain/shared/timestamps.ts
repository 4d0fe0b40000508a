import { DateTime } from 'luxon';

/*
 * The one reader of timestamps in requests (spec: Conventions), on every surface:
 * - RFC 3339 `YYYY-MM-DDTHH:MM:SS[.fraction]` with a zone, `Z` or an offset (`+02:00`, `+0200`,
 *   `+02`); without one it is no instant;
 * - a real instant: a calendar date that exists, hours 00–23, no leap second (`23:59:60` cannot
 *   be held by a Date, so it is refused rather than answered with a 500), offsets up to ±23:59.
 * luxon checks the calendar; the pattern keeps out what luxon would take leniently (`24:00`,
 * `+24:00`, a missing zone).
 */
const rfc3339 =
  /^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3])(:?[0-5]\d)?)$/i;

/** The instant a request's timestamp names, or null when it names none. */
export function parseTimestamp(text: string): Date | null {
  if (!rfc3339.test(text)) return null;
  const parsed = DateTime.fromISO(text.toUpperCase(), { setZone: true });
  return parsed.isValid ? parsed.toJSDate() : null;
}
