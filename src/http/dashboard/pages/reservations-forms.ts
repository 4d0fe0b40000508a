import type { TFunction } from 'i18next';
import type {
  Reservation,
  ReservationInput,
  ReservationPatch,
} from '../../../domain/reservations/reservation.schema.ts';
import type {
  ReservationSettings,
  ReservationSettingsPatch,
} from '../../../domain/reservations/reservation-settings.schema.ts';
import type { FormError } from '../../web/page.ts';
import type { FormReader, FormValues } from './menu-forms.ts';

/*
 * The reservation pages' forms: what a sent form means as the input of the reservation services,
 * and what a form shows first. Field names are the API's (`starts_at`, `party_size`, `table_ids`,
 * …), so a refusal's `param` names the field its error goes beside. A time is chosen from the
 * day's times, each sent as the instant it is; tables are checkboxes (none: Servery picks).
 */

/** The input without the fields left out (undefined), as a JSON body would have it. */
function sent<T extends object>(input: T): T {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as T;
}

const optional = (form: FormReader, name: string) => form.optionalText(name)?.trim() ?? undefined;

/**
 * A booking at the host stand. The guest is e-mailed when `notify_guest` is ticked and there is an
 * address to write to; without one the box has nothing to do.
 */
export function bookingInput(form: FormReader): ReservationInput {
  const tableIds = form.list('table_ids');
  const email = optional(form, 'guest_email');
  return sent({
    starts_at: form.text('starts_at'),
    party_size: form.integer('party_size') as number,
    guest_name: form.text('guest_name').trim(),
    guest_phone: optional(form, 'guest_phone'),
    guest_email: email,
    note: optional(form, 'note'),
    duration_minutes: form.integer('duration_minutes'),
    table_ids: tableIds.length > 0 ? tableIds : undefined,
    notify_guest: email === undefined ? undefined : form.text('notify_guest') === 'true',
  });
}

/** A new booking's form: two guests, the guest told. */
export const newBookingValues: FormValues = { party_size: '2', notify_guest: 'true' };

const sameTables = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((id) => b.includes(id));

/**
 * The changes of a reservation's form: only the fields that differ from the reservation, so a
 * seated party's note can change without its time and tables being booked again. No table ticked
 * means "let Servery pick" (only when some were ticked before).
 */
export function reservationPatch(form: FormReader, reservation: Reservation): ReservationPatch {
  const patch: ReservationPatch = {};
  if ('starts_at' in form.values) {
    const startsAt = form.text('starts_at');
    if (Date.parse(startsAt) !== reservation.starts_at.getTime()) patch.starts_at = startsAt;
    const party = form.integer('party_size');
    if (party === undefined) form.invalid.push('party_size');
    else if (party !== reservation.party_size) patch.party_size = party;
    const duration = form.integer('duration_minutes');
    if (duration !== undefined && duration !== reservation.duration_minutes)
      patch.duration_minutes = duration;
    const tableIds = form.list('table_ids');
    if (!sameTables(tableIds, reservation.table_ids)) patch.table_ids = tableIds;
  }
  const name = form.text('guest_name').trim();
  if (name !== reservation.guest_name) patch.guest_name = name;
  const note = optional(form, 'note') ?? null;
  if (note !== reservation.note) patch.note = note;
  return patch;
}

export function reservationValues(reservation: Reservation): FormValues {
  return {
    starts_at: reservation.starts_at.toISOString(),
    party_size: String(reservation.party_size),
    duration_minutes: String(reservation.duration_minutes),
    table_ids: reservation.table_ids,
    guest_name: reservation.guest_name ?? '',
    note: reservation.note ?? '',
  };
}

/** Blank rows of durations the settings form offers for new rules (at most 10 rules in all). */
const blankDurationRows = 2;
const maxDurationRules = 10;

/** The settings' fields as the form shows them: a pair of fields per duration rule, then blanks. */
export function settingsValues(settings: ReservationSettings): FormValues {
  const values: FormValues = {
    slot_minutes: String(settings.slot_minutes),
    last_seating_minutes: String(settings.last_seating_minutes),
    guest_horizon_days: String(settings.guest_horizon_days),
    guest_lead_minutes: String(settings.guest_lead_minutes),
    combinations: settings.combinations.map((ids) => ids.join(',')),
  };
  settings.durations.forEach((rule, index) => {
    values[`durations-${index}-max_party`] = rule.max_party === null ? '' : String(rule.max_party);
    values[`durations-${index}-minutes`] = String(rule.minutes);
  });
  return values;
}

/** How many rows of durations a settings form has: up to the last one filled in, plus blanks. */
export function durationRowCount(values: FormValues): number {
  const filled = Object.entries(values)
    .filter(
      ([name, value]) => /^durations-\d+-/.test(name) && typeof value === 'string' && value.trim() !== '',
    )
    .map(([name]) => Number(name.split('-')[1]) + 1);
  return Math.min(Math.max(0, ...filled) + blankDurationRows, maxDurationRules);
}

/** The settings patch of a sent form, and the form row of each rule sent (rows left blank are skipped). */
export function settingsPatch(form: FormReader): { patch: ReservationSettingsPatch; durationRows: number[] } {
  const durationRows: number[] = [];
  const durations: { max_party: number | null; minutes: number }[] = [];
  for (let row = 0; row < maxDurationRules; row += 1) {
    const maxParty = `durations-${row}-max_party`;
    const minutes = `durations-${row}-minutes`;
    if (form.text(maxParty).trim() === '' && form.text(minutes).trim() === '') continue;
    durationRows.push(row);
    durations.push({ max_party: form.integer(maxParty) ?? null, minutes: form.integer(minutes) as number });
  }
  const added = form.list('new_combination');
  const combinations = [
    ...form.list('combinations').map((ids) => ids.split(',')),
    ...(added.length > 0 ? [added] : []),
  ];
  const patch = sent({
    slot_minutes: form.integer('slot_minutes') as number,
    last_seating_minutes: form.integer('last_seating_minutes') as number,
    guest_horizon_days: form.integer('guest_horizon_days') as number,
    guest_lead_minutes: form.integer('guest_lead_minutes') as number,
    durations,
    combinations,
  });
  return { patch, durationRows };
}

/** A refused field: where its error shows, and its message (`errors.<key>`). */
export interface Refusal {
  field?: string;
  key: string;
}

/** The field of a booking's or reservation's refusal: `table_ids[2]` is the tables' field. */
export function bookingRefusal(code: string, param: string | undefined): Refusal {
  const field = param?.replace(/\[\d+\]$/, '');
  if (code === 'slot_unavailable') return { field, key: field === 'table_ids' ? 'tablesTaken' : 'slotTaken' };
  return field === undefined ? { key: 'other' } : { field, key: field };
}

/**
 * The field of a settings refusal: `durations[k].minutes` is the minutes of the k-th rule sent
 * (its form row in `durationRows`); `combinations[k]` the combinations kept, or the new one.
 */
export function settingsRefusal(
  param: string | undefined,
  durationRows: readonly number[],
  kept: number,
): Refusal {
  if (param === undefined) return { key: 'other' };
  const rule = /^durations\[(\d+)\]\.(max_party|minutes)$/.exec(param);
  if (rule)
    return {
      field: `durations-${durationRows[Number(rule[1])] ?? 0}-${rule[2]}`,
      key: `durations_${rule[2]}`,
    };
  if (param.startsWith('durations')) return { field: 'durations-0-minutes', key: 'durations_minutes' };
  const combination = /^combinations\[(\d+)\]/.exec(param);
  if (combination) {
    const field = Number(combination[1]) >= kept ? 'new_combination' : 'combinations';
    return { field, key: field };
  }
  return { field: param, key: param };
}

/** A form's errors with their messages (`form.errors.<key>`, else a general one). */
export function formErrors(t: TFunction, refusals: readonly Refusal[]): FormError[] {
  return refusals.map(({ field, key }) => ({
    ...(field === undefined ? {} : { field }),
    message: t(`form.errors.${key}`, { defaultValue: t('form.errors.other') }),
  }));
}
