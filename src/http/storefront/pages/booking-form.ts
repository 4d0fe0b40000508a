import type { TFunction } from 'i18next';
import Type from 'typebox';
import {
  type ReservationInput,
  ReservationInputSchema,
} from '../../../domain/reservations/reservation.schema.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import { checkedInput } from '../../shared/validation.ts';
import type { FormError } from '../../web/page.ts';

/*
 * The booking form's fields as POST /reservations' input: each contact field checked against the
 * spec's schema of that field (so the page accepts what the API does) and every field's error shown
 * at once; name and e-mail are required (the e-mail carries the confirmation and the cancel link).
 */

export const contactFields = ['guest_name', 'guest_email', 'guest_phone', 'note'] as const;
export type BookingValues = Record<
  'date' | 'party_size' | 'starts_at' | (typeof contactFields)[number],
  string
>;

export function bookingValues(body: unknown): BookingValues {
  const form = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
  return {
    date: field('date'),
    party_size: field('party_size'),
    starts_at: field('starts_at'),
    guest_name: field('guest_name').trim(),
    guest_email: field('guest_email').trim(),
    guest_phone: field('guest_phone').trim(),
    note: field('note').trim(),
  };
}

/** A party size as the spec takes it (1 to 200), or null. */
export function partySize(text: string): number | null {
  return /^\d{1,3}$/.test(text.trim()) && Number(text) >= 1 && Number(text) <= 200 ? Number(text) : null;
}

/** The message beside a field the domain or the schema refused (`param`). */
export function bookingError(t: TFunction, error: { param?: string | undefined; code?: string }): FormError {
  const field = error.param ?? 'starts_at';
  if (field === 'starts_at')
    return { field, message: t(error.code === 'slot_unavailable' ? 'errors.taken' : 'errors.time') };
  if ((contactFields as readonly string[]).includes(field)) return { field, message: t(`errors.${field}`) };
  return { field: 'starts_at', message: t('errors.taken') };
}

/** The input to book with, or the errors of the contact fields (all of them). */
export function bookingInput(
  t: TFunction,
  values: BookingValues,
  party: number,
  locale: ReservationInput['guest_locale'],
): { input: ReservationInput & { guest_email: string }; errors: FormError[] } {
  const input = {
    starts_at: values.starts_at,
    party_size: party,
    guest_name: values.guest_name,
    guest_email: values.guest_email,
    ...(values.guest_phone !== '' && { guest_phone: values.guest_phone }),
    ...(values.note !== '' && { note: values.note }),
    guest_locale: locale,
  };
  const errors: FormError[] = [];
  if (values.starts_at === '') errors.push({ field: 'starts_at', message: t('errors.time') });
  const refused = (field: (typeof contactFields)[number]) => errors.push(bookingError(t, { param: field }));
  for (const field of contactFields) {
    if (values[field] === '') {
      if (field === 'guest_name' || field === 'guest_email') refused(field);
      continue;
    }
    // The spec's limits: the schema of the field alone, so that every field is checked.
    const schema = Type.Object({ [field]: ReservationInputSchema.properties[field] });
    try {
      checkedInput(schema, { [field]: values[field] });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      refused(field);
    }
  }
  // createReservation's rule (a phone number has at least six digits), said beside the field.
  if (
    values.guest_phone !== '' &&
    (values.guest_phone.match(/\d/g) ?? []).length < 6 &&
    !errors.some((e) => e.field === 'guest_phone')
  )
    refused('guest_phone');
  return { input, errors };
}
