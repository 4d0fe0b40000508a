import { DateTime } from 'luxon';

/*
 * When a store takes orders: its weekly hours, special days and pause, in the restaurant's IANA
 * time zone. All zone arithmetic is luxon's.
 *
 * - A weekly window on weekday d (0 = Monday … 6 = Sunday): close later than open → from d open
 *   until d close; close earlier than open → past midnight, until close on the next day; close equal
 *   to open → until midnight (the end of d). A weekday without windows is closed. Opening instants
 *   are inclusive, closing instants exclusive.
 * - A window belongs to the day it starts on: a Friday 18:00–02:00 window runs until Saturday 02:00
 *   whatever Saturday is.
 * - A special day on date D replaces the windows that start on D: closed → none; otherwise its own
 *   hours, with the same overnight and until-midnight rules.
 * - always_open: no weekly schedule; every day is one window 00:00–00:00 (until midnight), so the
 *   store is open around the clock except where a special day replaces a day.
 * - Local times → instants: a local time maps to the first instant at which the restaurant's clock
 *   reads that time or later, for opening and closing alike. So on the fall-back night a time that
 *   occurs twice means its first occurrence, and a time inside the spring-forward gap means the
 *   first instant after the gap (Berlin 2027-03-28: 02:00 and 02:30 both mean 03:00 CEST). luxon
 *   alone would move a time in the gap forward by the gap's length (02:30 → 03:30) and pick the
 *   occurrence of a repeated time from today's offset, hence the two corrections below. A window
 *   lasts its real length (22:00–06:00 over a change: 7 or 9 hours); one lying wholly in a gap
 *   vanishes.
 * - Touching windows (Monday 22:00–00:00 and Tuesday 00:00–02:00, or an overnight window and the
 *   next day's) form one opening: the next opening is the first instant at which the store is open,
 *   never a boundary inside an open period.
 * - Lookahead: two weeks in local calendar days (the same local time 14 days later), inclusive.
 * - Pause: active while paused and (no end, or now before its end); a pause whose end has passed is
 *   no pause, even before the worker lifts it, so the status is never stale. While active the status
 *   is `paused`; next_opening_at is the first instant at or after the end at which the hours let the
 *   store open (the end itself when they do), if within two weeks of now, and null for a pause
 *   without end.
 * - Otherwise `open` (next_opening_at null) when the hours let it open now, else `closed` with
 *   next_opening_at = the next opening within two weeks, or null.
 */

/** 'HH:MM', restaurant-local. */
export interface HoursWindow {
  open: string;
  close: string;
}
/** weekday 0 = Monday … 6 = Sunday. */
export interface WeeklyWindow extends HoursWindow {
  weekday: number;
}
/** date 'YYYY-MM-DD', restaurant-local. */
export interface SpecialDay {
  date: string;
  closed: boolean;
  hours: HoursWindow[];
}
export interface Schedule {
  timezone: string;
  alwaysOpen: boolean;
  openingHours: WeeklyWindow[];
  /** From yesterday on: yesterday's special day decides the window that may spill into today. */
  specialDays: SpecialDay[];
}
export interface Pause {
  paused: boolean;
  until: Date | null;
}
export type StoreStatus = 'open' | 'closed' | 'paused';

const lookaheadDays = 14;
const minutesPerDay = 24 * 60;
const wholeDay: HoursWindow = { open: '00:00', close: '00:00' };

/** status and next_opening_at as GET /store shows them at `now`. */
export function storeStatus(
  schedule: Schedule,
  pause: Pause,
  now: Date,
): { status: StoreStatus; next_opening_at: Date | null } {
  const horizon = lookaheadEnd(schedule, now);
  if (pause.paused && (pause.until === null || now < pause.until)) {
    const next = pause.until && firstOpenInstant(schedule, pause.until.getTime(), horizon);
    return { status: 'paused', next_opening_at: toDate(next ?? null) };
  }
  // One scan gives both: open now exactly when the first opening from now is now.
  const next = firstOpenInstant(schedule, now.getTime(), horizon);
  if (next === now.getTime()) return { status: 'open', next_opening_at: null };
  return { status: 'closed', next_opening_at: toDate(next) };
}

/** The same local time 14 days after `from` (the first instant reading it). */
function lookaheadEnd(schedule: Schedule, from: Date): number {
  const zone = schedule.timezone;
  const wall = from.getTime() + offsetMs(zone, from.getTime());
  const minutes = Math.floor((wall % dayMs) / 60_000);
  return firstInstantReading(zone, calendarDate(zone, from.getTime()) + lookaheadDays * dayMs, minutes);
}

function toDate(ms: number | null): Date | null {
  return ms === null ? null : new Date(ms);
}

/** The first instant in [from, until] at which the store is open, or null. */
function firstOpenInstant(schedule: Schedule, from: number, until: number): number | null {
  if (until < from) return null;
  // A window ends at most one day after the day it starts on, so the day before `from` is the
  // earliest that can still be open at `from`.
  // Windows of a later day start later than any of an earlier day, so the first day with an
  // opening has the earliest one: no need to look further.
  const first = calendarDate(schedule.timezone, from) - dayMs;
  const last = calendarDate(schedule.timezone, until);
  for (let day = first; day <= last; day += dayMs) {
    let best: number | null = null;
    for (const [start, end] of periodsStartingOn(schedule, day)) {
      if (end <= from || start > until) continue;
      const opening = Math.max(start, from);
      if (best === null || opening < best) best = opening;
    }
    if (best !== null) return best;
  }
  return null;
}

/*
 * A restaurant-local calendar day is kept as the milliseconds of its midnight in UTC: a plain
 * number, free of DST, so stepping a day is adding dayMs (luxon objects cost microseconds each,
 * and GET /store steps through several days per request).
 */

/** The restaurant-local date of an instant, as midnight UTC. */
function calendarDate(zone: string, ms: number): number {
  const wall = ms + offsetMs(zone, ms);
  return wall - (wall % dayMs);
}

/** A calendar day as `YYYY-MM-DD`. */
function isoDate(day: number): string {
  return new Date(day).toISOString().slice(0, 10);
}

/** The restaurant-local date (`YYYY-MM-DD`) of an instant. */
export function localDate(zone: string, at: Date): string {
  return isoDate(calendarDate(zone, at.getTime()));
}

const dayMs = 24 * 60 * 60 * 1000;
const quarterHourMs = 15 * 60 * 1000;

/*
 * A bounded cache per zone (emptied when full) of answers that never change and cost luxon tens of
 * microseconds (Intl) to work out. Keyed by zone, then by a number: no key strings to build.
 */
function zoneCache(maxEntries: number, compute: (zone: string, key: number) => number) {
  const zones = new Map<string, Map<number, number>>();
  let size = 0;
  return (zone: string, key: number): number => {
    let values = zones.get(zone);
    if (values === undefined) {
      values = new Map();
      zones.set(zone, values);
    }
    let value = values.get(key);
    if (value === undefined) {
      if (size >= maxEntries) {
        for (const other of zones.values()) other.clear();
        size = 0;
      }
      value = compute(zone, key);
      values.set(key, value);
      size += 1;
    }
    return value;
  };
}

/*
 * The zone's UTC offset at an instant (ms). Every zone changes its offset only at a quarter hour
 * of UTC, so one look-up serves a whole quarter hour.
 */
const quarterOffsets = zoneCache(
  50_000,
  (zone, quarter) => DateTime.fromMillis(quarter * quarterHourMs, { zone }).offset * 60_000,
);

function offsetMs(zone: string, ms: number): number {
  return quarterOffsets(zone, Math.floor(ms / quarterHourMs));
}

/**
 * The [start, end) instants (ms) of the windows that start on the restaurant-local date `date`
 * (`YYYY-MM-DD`), by the rules above: reservation times are offered from these.
 */
export function windowsStartingOn(schedule: Schedule, date: string): [number, number][] {
  return periodsStartingOn(schedule, Date.parse(`${date}T00:00:00Z`));
}

/** The [start, end) instants of the windows that start on `day`, empty ones left out. */
function periodsStartingOn(schedule: Schedule, day: number): [number, number][] {
  const date = isoDate(day);
  const special = schedule.specialDays.find((s) => s.date === date);
  // 0 = Monday … 6 = Sunday (getUTCDay: 0 = Sunday).
  const weekday = (new Date(day).getUTCDay() + 6) % 7;
  const windows = special
    ? special.closed
      ? []
      : special.hours
    : schedule.alwaysOpen
      ? [wholeDay]
      : schedule.openingHours.filter((w) => w.weekday === weekday);
  return windows
    .map((w): [number, number] => {
      const open = minutesOf(w.open);
      const close = minutesOf(w.close);
      // Minutes past the start day's midnight: past midnight, or until midnight when equal.
      const end = close > open ? close : close < open ? close + minutesPerDay : minutesPerDay;
      return [
        firstInstantReading(schedule.timezone, day, open),
        firstInstantReading(schedule.timezone, day, end),
      ];
    })
    .filter(([start, end]) => start < end);
}

function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/*
 * The first instant reading a wall-clock time (ms since the epoch as if the zone were UTC); GET
 * /store resolves a few dozen, and the answers never change.
 */
const instants = zoneCache(50_000, resolveLocalTime);

/** The first instant at which the clock in `zone` reads `minutes` past midnight of `day`, or later. */
function firstInstantReading(zone: string, day: number, minutes: number): number {
  // 24:00 of a day reads as 00:00 of the next: the same key.
  return instants(zone, day + minutes * 60_000);
}

function resolveLocalTime(zone: string, reading: number): number {
  for (let wall = DateTime.fromMillis(reading, { zone: 'utc' }); ; wall = wall.plus({ minutes: 1 })) {
    const local = DateTime.fromObject(
      { year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute },
      { zone },
    );
    // luxon moves a time that does not exist (spring-forward gap) forward; the first minute that
    // does exist after it is the first instant after the gap.
    if (local.hour !== wall.hour || local.minute !== wall.minute || local.day !== wall.day) continue;
    // A time that exists twice (fall-back night): its first occurrence.
    return Math.min(...local.getPossibleOffsets().map((d) => d.toMillis()));
  }
}
