import { createEvent, type EventAttributes } from 'ics';

/*
 * A reservation as an iCalendar file (RFC 5545, written by the `ics` package) the guest's calendar
 * can add: METHOD:PUBLISH (no invitation to answer), UID from the reservation id (so a later file
 * updates the same entry), times in UTC.
 */

export interface CalendarEntry {
  reservationId: string;
  start: Date;
  minutes: number;
  stamp: Date;
  summary: string;
}

export function reservationCalendar(entry: CalendarEntry): string {
  const start = entry.start.getTime();
  const event: EventAttributes & { timestamp: number } = {
    uid: `${entry.reservationId}@servery`,
    productId: '-//Servery//Reservations//EN',
    method: 'PUBLISH',
    start,
    startInputType: 'utc',
    startOutputType: 'utc',
    end: start + entry.minutes * 60_000,
    endInputType: 'utc',
    endOutputType: 'utc',
    title: entry.summary,
    // DTSTAMP: the package takes `timestamp` (its schema has it, its types do not).
    timestamp: entry.stamp.getTime(),
  };
  const { error, value } = createEvent(event);
  if (error || value === null) throw error ?? new Error('no calendar file');
  return value;
}
