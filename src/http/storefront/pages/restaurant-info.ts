import { LRUCache } from 'lru-cache';
import { DateTime } from 'luxon';
import { localDate } from '../../../domain/store/schedule.ts';
import type { Store } from '../../../domain/store/store.schema.ts';
import type { Locale } from '../../../i18n/i18n.ts';

/** A day of the week ahead as the storefront shows it, in the restaurant's time zone. */
export interface ShownDay {
  /** The weekday's name, in the page's language. */
  weekday: string;
  /** The date, short, in the page's language. */
  date: string;
  today: boolean;
  /** The day's hours ('11:30 AM – 2:30 PM'), earliest first; none: closed. */
  hours: string[];
  /** Open around the clock (always_open, no special day). */
  allDay: boolean;
  /** A special day replaces the weekly hours (its note, if any). */
  special: { note: string | null } | null;
}

/**
 * The seven days from today (restaurant-local) with the hours guests may come by: a special day's
 * own hours or closure, else the weekly hours of its weekday (schedule.ts's rules; a window past
 * midnight is shown on the day it starts). Times in the page's language (luxon).
 */
export function weekAhead(store: Store, now: Date, locale: Locale): ShownDay[] {
  // Worked out once per day, language and hours (luxon's zone arithmetic is the page's dearest part).
  const key = JSON.stringify([
    localDate(store.timezone, now),
    locale,
    store.timezone,
    store.always_open,
    store.opening_hours,
    store.closures,
  ]);
  let week = shownWeeks.get(key);
  if (week === undefined) {
    week = shownWeek(store, now, locale);
    shownWeeks.set(key, week);
  }
  return week;
}

/** The weeks shown lately, by what they were worked out from (nothing else goes into one). */
const shownWeeks = new LRUCache<string, ShownDay[]>({ max: 1000 });

function shownWeek(store: Store, now: Date, locale: Locale): ShownDay[] {
  const today = DateTime.fromJSDate(now, { zone: store.timezone }).setLocale(locale).startOf('day');
  // Each time of day worded once: the same hours recur on most days.
  const times = new Map<string, string>();
  const time = (hhmm: string) => {
    let worded = times.get(hhmm);
    if (worded === undefined) {
      worded = DateTime.fromFormat(hhmm, 'HH:mm', { locale }).toLocaleString(DateTime.TIME_SIMPLE);
      times.set(hhmm, worded);
    }
    return worded;
  };
  return Array.from({ length: 7 }, (_, offset) => {
    const day = today.plus({ days: offset });
    const special = store.closures.find((closure) => closure.date === day.toISODate()) ?? null;
    const weekly = store.opening_hours.filter((window) => window.weekday === day.weekday - 1);
    const windows = special ? (special.closed ? [] : special.hours) : weekly;
    const allDay = !special && store.always_open;
    return {
      weekday: day.toLocaleString({ weekday: 'long' }),
      date: day.toLocaleString({ day: 'numeric', month: 'short' }),
      today: offset === 0,
      hours: allDay
        ? []
        : [...windows]
            .sort((a, b) => a.open.localeCompare(b.open))
            .map((window) => `${time(window.open)} – ${time(window.close)}`),
      allDay,
      special: special && { note: special.note },
    };
  });
}

/** A link to the restaurant on a map: its location, else a search for its address; null: neither. */
export function mapLink(store: Store): string | null {
  if (store.location) {
    const { lat, lon } = store.location;
    return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=17/${lat}/${lon}`;
  }
  const address = store.address?.line;
  return address ? `https://www.openstreetmap.org/search?query=${encodeURIComponent(address)}` : null;
}
