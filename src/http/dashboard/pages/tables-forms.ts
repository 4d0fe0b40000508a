import type { TFunction } from 'i18next';
import type { DashboardArea, DashboardTable } from '../../../domain/store/table.schema.ts';
import type { FormError } from '../../web/page.ts';
import type { FormReader, FormValues } from './menu-forms.ts';

/*
 * The forms of tables and areas: what a sent form means as the input of the service, and what an
 * object's form shows. Field names are the API's (`label`, `seats`, `area_id`, …), so a refusal's
 * `param` names the field its error goes beside. A form always sends every field: an empty number
 * is null (the restaurant's default size, no minimum party), an unchecked box is false.
 */

export function tableInput(form: FormReader) {
  return {
    label: form.text('label'),
    seats: form.integer('seats') ?? null,
    area_id: form.optionalText('area_id'),
    bookable_online: form.text('bookable_online') === 'true',
    min_party: form.integer('min_party') ?? null,
  };
}

export function areaInput(form: FormReader) {
  return { name: form.text('name'), bookable_online: form.text('bookable_online') === 'true' };
}

/** A new table's form: bookable online, as the service's default. */
export const newTableValues = (areaId: string): FormValues => ({ area_id: areaId, bookable_online: 'true' });
export const newAreaValues: FormValues = { bookable_online: 'true' };

export function tableValues(table: DashboardTable): FormValues {
  return {
    label: table.label,
    seats: table.seats_is_default ? '' : String(table.seats),
    area_id: table.area_id ?? '',
    min_party: table.min_party === null ? '' : String(table.min_party),
    ...(table.bookable_online ? { bookable_online: 'true' } : {}),
  };
}

export function areaValues(area: DashboardArea): FormValues {
  return { name: area.name, ...(area.bookable_online ? { bookable_online: 'true' } : {}) };
}

/** The errors of fields, each with its message (`tablesForm.errors.<field>`, else a general one). */
export function fieldErrors(t: TFunction, fields: readonly (string | undefined)[]): FormError[] {
  return fields.map((field) =>
    field === undefined
      ? { message: t('tablesForm.errors.other') }
      : { field, message: t(`tablesForm.errors.${field}`, { defaultValue: t('tablesForm.errors.other') }) },
  );
}
