import { DateTime } from 'luxon';
import { ApiError } from '../shared/errors.ts';
import { type Grouping, maxReportDays } from './report.schema.ts';

/*
 * A report's days: restaurant-local dates `from` to `to` (inclusive, at most 366 days), the
 * instants they span in the restaurant's zone (local midnight to local midnight, so a day is 23 or
 * 25 hours long across a DST change), and its periods (days, weeks from Monday, months).
 */

export interface ReportPeriod {
  readonly from: string;
  readonly to: string;
  /** First instant of `from`, local. */
  readonly start: Date;
  /** First instant after `to`, local. */
  readonly end: Date;
}

/** The report's days; `to` before `from` or a span over 366 days is a 400 on `to`. */
export function reportPeriod(zone: string, from: string, to: string): ReportPeriod {
  const first = DateTime.fromISO(from, { zone });
  const last = DateTime.fromISO(to, { zone });
  if (last < first) throw new ApiError('invalid_request', '`to` is before `from`.', { param: 'to' });
  const days = last.diff(first, 'days').days + 1;
  if (Math.round(days) > maxReportDays)
    throw new ApiError(
      'invalid_request',
      `A report spans at most ${maxReportDays} days (from ${from} to ${to} is ${Math.round(days)}).`,
      { param: 'to' },
    );
  return { from, to, start: first.toJSDate(), end: last.plus({ days: 1 }).startOf('day').toJSDate() };
}

/** The report's periods, oldest first: `key` the period's first day (as the database truncates it), clipped bounds. */
export function periodsOf(
  period: ReportPeriod,
  group: Grouping,
): { key: string; from: string; to: string }[] {
  const periods: { key: string; from: string; to: string }[] = [];
  const last = DateTime.fromISO(period.to, { zone: 'utc' });
  let day = DateTime.fromISO(period.from, { zone: 'utc' });
  while (day <= last) {
    // luxon's weeks are ISO weeks, from Monday, as PostgreSQL's date_trunc('week').
    const start = day.startOf(group);
    const end = DateTime.min(start.endOf(group).startOf('day'), last);
    periods.push({ key: iso(start), from: iso(day), to: iso(end) });
    day = end.plus({ days: 1 });
  }
  return periods;
}

const iso = (day: DateTime) => day.toISODate() as string;
