import { DateTime } from 'luxon';
import type { Locale } from './i18n.ts';

/*
 * Times on pages are the restaurant's wall-clock times (its time zone), whatever the browser's:
 * a `datetime-local` field sends `2026-11-02T18:30`, which names an instant only in that zone.
 */

/** The instant a `datetime-local` value names in `zone` (ISO 8601 with offset), or null. */
export function parseLocalDateTime(text: string, zone: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text)) return null;
  const local = DateTime.fromISO(text, { zone });
  return local.isValid ? local.toISO({ suppressMilliseconds: true }) : null;
}

/** An instant for reading, in the restaurant's zone and the page's language. */
export function formatDateTime(at: Date | string, zone: string, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }).format(
    new Date(at),
  );
}
