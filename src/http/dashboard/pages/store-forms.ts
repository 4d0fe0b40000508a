import { DateTime } from 'luxon';
import { usableOrderStatuses } from '../../../domain/orders/order-status.ts';
import type {
  ClosureInput,
  PauseInput,
  Store,
  StoreHoursInput,
  StoreSettingsPatch,
  WeeklyWindow,
} from '../../../domain/store/store.schema.ts';
import { orderTypes } from '../../../domain/store/store.schema.ts';
import type { Locale } from '../../../i18n/i18n.ts';
import { parseLocalDateTime } from '../../../i18n/local-time.ts';
import { moneyInputValue } from '../../../i18n/money.ts';
import type { FormReader, FormValues } from './menu-forms.ts';

/*
 * The store pages' forms: what a sent form means as the input of a store service, what the page
 * shows in it, and which form field a refusal's `param` names. A field the form cannot read goes
 * into `form.invalid` (its error then shows beside it), so a half-read form is never written.
 */

const timePattern = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/** The two weekly lists of PUT /store/hours, and the form's name for each. */
export const hourLists = ['opening_hours', 'delivery_hours'] as const;
export type HourList = (typeof hourLists)[number];

/** The id of a range's row in the hours form (also its opening time's input): `opening_hours-0-1`. */
export const rowId = (list: HourList, weekday: number, index: number) => `${list}-${weekday}-${index}`;

/** A whole number, required; anything else is invalid. */
function wholeNumber(form: FormReader, name: string): number {
  const value = form.integer(name);
  if (value === undefined) form.invalid.push(name);
  return value ?? 0;
}

/** A decimal number, or null when empty. */
function decimal(form: FormReader, name: string): number | null {
  const text = form.text(name).trim().replace(',', '.');
  if (text === '') return null;
  if (!/^-?\d{1,3}(\.\d{1,8})?$/.test(text)) form.invalid.push(name);
  return Number(text);
}

/*
 * The settings form as PATCH's body. Every order type is sent (an unchecked box is false: switching
 * off is always allowed; switching on a type outside the plan is the service's 403); the order
 * statuses are put in the order the service requires. Location: both coordinates or neither.
 */
export function settingsInput(form: FormReader, currency: string): StoreSettingsPatch {
  const checkedTypes = form.list('order_types');
  const statuses = form.list('order_statuses');
  const lat = decimal(form, 'lat');
  const lon = decimal(form, 'lon');
  if ((lat === null) !== (lon === null)) form.invalid.push(lat === null ? 'lat' : 'lon');
  return {
    order_types: Object.fromEntries(orderTypes.map((type) => [type, checkedTypes.includes(type)])),
    lead_times: {
      pickup_minutes: wholeNumber(form, 'pickup_minutes'),
      delivery_minutes: wholeNumber(form, 'delivery_minutes'),
    },
    preorders: form.text('preorders') === 'true',
    min_order: form.money('min_order', currency),
    // The schema's type of the list is too narrow (a union built by map); the schema checks it.
    order_statuses: usableOrderStatuses.filter((status) =>
      statuses.includes(status),
    ) as StoreSettingsPatch['order_statuses'],
    contact: {
      phone: form.optionalText('phone'),
      email: form.optionalText('email'),
      website: form.optionalText('website'),
    },
    address_line: form.optionalText('address_line'),
    location: lat === null || lon === null ? null : { lat, lon },
  };
}

export function settingsValues(store: Store, locale: Locale): FormValues {
  return {
    order_types: orderTypes.filter((type) => store.order_types[type]),
    pickup_minutes: String(store.lead_times.pickup_minutes),
    delivery_minutes: String(store.lead_times.delivery_minutes),
    preorders: store.preorders ? 'true' : '',
    min_order: moneyInputValue(store.min_order, store.currency, locale),
    order_statuses: store.order_statuses,
    phone: store.contact.phone ?? '',
    email: store.contact.email ?? '',
    website: store.contact.website ?? '',
    address_line: store.address?.line ?? '',
    lat: store.location ? String(store.location.lat) : '',
    lon: store.location ? String(store.location.lon) : '',
  };
}

/** The settings field a refusal names: `lead_times.pickup_minutes` → `pickup_minutes`. */
export function settingsFieldOf(param: string): string {
  if (param.startsWith('order_types')) return 'order_types';
  if (param.startsWith('order_statuses')) return 'order_statuses';
  if (param === 'location') return 'lat';
  return param.split('.').at(-1) ?? param;
}

/**
 * A range of two times (`<id>-open`, `<id>-close`): both empty → none; both `HH:MM` → the range;
 * anything else → `field` (default `<id>`) invalid.
 */
function timeRange(form: FormReader, id: string, field = id): { open: string; close: string } | null {
  const open = form.text(`${id}-open`).trim();
  const close = form.text(`${id}-close`).trim();
  if (open === '' && close === '') return null;
  if (!timePattern.test(open) || !timePattern.test(close)) {
    if (!form.invalid.includes(field)) form.invalid.push(field);
    return null;
  }
  return { open, close };
}

/** How many ranges of a weekday the sent form has (its rows, filled or not). */
export function sentRows(values: FormValues, list: HourList, weekday: number): number {
  let rows = 0;
  while (values[`${rowId(list, weekday, rows)}-open`] !== undefined) rows += 1;
  return rows;
}

/*
 * The hours form as PUT /store/hours's body, with the row of each window sent (`rows`, by list
 * and position) so that a refusal naming `opening_hours[3]` shows beside that row.
 */
export function hoursInput(form: FormReader): { input: StoreHoursInput; rows: Record<HourList, string[]> } {
  const rows: Record<HourList, string[]> = { opening_hours: [], delivery_hours: [] };
  const lists: Record<HourList, WeeklyWindow[]> = { opening_hours: [], delivery_hours: [] };
  for (const list of hourLists) {
    for (let weekday = 0; weekday < 7; weekday += 1) {
      for (let index = 0; index < sentRows(form.values, list, weekday); index += 1) {
        const id = rowId(list, weekday, index);
        const range = timeRange(form, id);
        if (range === null) continue;
        lists[list].push({ weekday, ...range });
        rows[list].push(id);
      }
    }
  }
  return {
    input: {
      always_open: form.text('always_open') === 'true',
      opening_hours: lists.opening_hours,
      delivery_hours: lists.delivery_hours,
    },
    rows,
  };
}

/** The hours as the form shows them: each window in its weekday's rows. */
export function hoursValues(store: Store): FormValues {
  const values: FormValues = { always_open: store.always_open ? 'true' : '' };
  for (const list of hourLists) {
    for (let weekday = 0; weekday < 7; weekday += 1) {
      store[list]
        .filter((window) => window.weekday === weekday)
        .forEach((window, index) => {
          values[`${rowId(list, weekday, index)}-open`] = window.open;
          values[`${rowId(list, weekday, index)}-close`] = window.close;
        });
    }
  }
  return values;
}

/** The hours field a refusal names: `opening_hours[2].close` → that window's row. */
export function hoursFieldOf(param: string, rows: Record<HourList, string[]>): string {
  const match = /^(opening_hours|delivery_hours)(?:\[(\d+)\])?/.exec(param);
  if (!match) return 'always_open';
  const list = match[1] as HourList;
  return (match[2] !== undefined && rows[list][Number(match[2])]) || list;
}

/** The special day's ranges on the form: two rows. */
export const specialDayRows = ['hours-0', 'hours-1'] as const;

/** The special-day form as POST /store/closures's body. */
export function specialDayInput(form: FormReader): ClosureInput {
  const date = form.text('date').trim();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) form.invalid.push('date');
  const hours = specialDayRows.flatMap((id) => {
    const range = timeRange(form, id, 'hours');
    return range ? [range] : [];
  });
  return { date, closed: form.text('closed') !== 'false', hours, note: form.optionalText('note') };
}

/** The special-day field a refusal names: `hours[1].open` → the hours. */
export function specialDayFieldOf(param: string): string {
  return param.startsWith('hours') ? 'hours' : param;
}

/** The pause form: a note, and an end (the restaurant's wall-clock time) or none. */
export function pauseInput(form: FormReader, zone: string): PauseInput {
  const untilText = form.text('until').trim();
  const until = untilText === '' ? null : parseLocalDateTime(untilText, zone);
  if (until === null && untilText !== '') form.invalid.push('until');
  return { until, note: form.optionalText('note') };
}

/** The pause and busy forms as shown: the pause's note and end (restaurant time), busy defaults. */
export function pauseValues(store: Store): FormValues {
  const until = store.paused_until
    ? DateTime.fromJSDate(new Date(store.paused_until), { zone: store.timezone }).toFormat(
        "yyyy-MM-dd'T'HH:mm",
      )
    : '';
  const extraMinutes = String(store.busy?.extra_minutes ?? 15);
  return { note: store.pause_note ?? '', until, extra_minutes: extraMinutes, duration: '60' };
}

/** How long busy mode may be set for, in minutes (the service allows up to 24 hours). */
export const busyDurations = [30, 60, 90, 120, 180, 240, 360, 480, 720, 1440] as const;

/** The busy form: extra minutes for one of `busyDurations` from now. */
export function busyInput(form: FormReader, now: Date): StoreSettingsPatch {
  const extraMinutes = wholeNumber(form, 'extra_minutes');
  const duration = Number(form.text('duration'));
  const known = (busyDurations as readonly number[]).includes(duration);
  if (!known) form.invalid.push('duration');
  const until = new Date(now.getTime() + (known ? duration : 0) * 60_000).toISOString();
  return { busy: { extra_minutes: extraMinutes, until } };
}

/** The busy field a refusal names. */
export function busyFieldOf(param: string): string {
  return param === 'busy.until' ? 'duration' : 'extra_minutes';
}
