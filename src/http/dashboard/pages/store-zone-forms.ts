import { maxDeliveryZones, type Store, type StoreSettingsPatch } from '../../../domain/store/store.schema.ts';
import type { Locale } from '../../../i18n/i18n.ts';
import { moneyInputValue } from '../../../i18n/money.ts';
import type { FormReader, FormValues } from './menu-forms.ts';

/*
 * The delivery zones' form: one row per zone (`zone-<row>-name`, `-postal_codes`, `-fee`,
 * `-min_order`), the zones in their order, and an empty row to add one. A row left empty adds
 * nothing; a zone whose Remove box is ticked (`zone-<row>-remove`) is left out. The whole list is
 * saved at once, so a refusal naming `delivery_zones[2].fee` shows beside the third zone kept.
 */

const zoneFields = ['name', 'postal_codes', 'fee', 'min_order'] as const;

/** The id of a zone's field in the form: `zone-0-fee`. */
export const zoneField = (row: number, field: (typeof zoneFields)[number]) => `zone-${row}-${field}`;

/** How many zone rows the sent form has. */
export function sentZoneRows(values: FormValues): number {
  let rows = 0;
  while (values[zoneField(rows, 'name')] !== undefined) rows += 1;
  return rows;
}

/** Postal codes as typed: separated by commas, semicolons, spaces or new lines. */
function postalCodes(text: string): string[] {
  return text.split(/[\s,;]+/).filter((code) => code !== '');
}

/*
 * The form as the dashboard's store patch (`delivery_zones`), with the row of each zone kept
 * (`rows`), so that a refusal names its row's field. Amounts are typed as the other money fields.
 */
export function zonesInput(
  form: FormReader,
  currency: string,
): { input: StoreSettingsPatch; rows: number[] } {
  const rows: number[] = [];
  const zones: NonNullable<StoreSettingsPatch['delivery_zones']> = [];
  for (let row = 0; row < sentZoneRows(form.values); row += 1) {
    const texts = zoneFields.map((field) => form.text(zoneField(row, field)).trim());
    if (form.text(`zone-${row}-remove`) === 'yes' || texts.every((text) => text === '')) continue;
    rows.push(row);
    zones.push({
      name: form.text(zoneField(row, 'name')).trim(),
      postal_codes: postalCodes(form.text(zoneField(row, 'postal_codes'))),
      fee: form.money(zoneField(row, 'fee'), currency),
      min_order: form.money(zoneField(row, 'min_order'), currency),
    });
  }
  return { input: { delivery_zones: zones }, rows };
}

/** The zones as the form shows them, and the empty row to add one (while there is room). */
export function zonesValues(store: Store, locale: Locale): { values: FormValues; rows: number } {
  const values: FormValues = {};
  store.delivery_zones.forEach((zone, row) => {
    values[zoneField(row, 'name')] = zone.name;
    values[zoneField(row, 'postal_codes')] = zone.postal_codes.join(', ');
    values[zoneField(row, 'fee')] = moneyInputValue(zone.fee, store.currency, locale);
    values[zoneField(row, 'min_order')] = moneyInputValue(zone.min_order, store.currency, locale);
  });
  const count = store.delivery_zones.length;
  return { values, rows: count < maxDeliveryZones ? count + 1 : count };
}

/** The zone field a refusal names: `delivery_zones[1].postal_codes[4]` → the second kept zone's codes. */
export function zoneFieldOf(param: string, rows: readonly number[]): string {
  const match = /^delivery_zones\[(\d+)\]\.(name|postal_codes|fee|min_order)/.exec(param);
  const row = match ? rows[Number(match[1])] : undefined;
  if (match && row !== undefined) return zoneField(row, match[2] as (typeof zoneFields)[number]);
  return 'zones';
}

/** The message of a zone field's refusal (`errors.<key>`): one per kind of field. */
export function zoneErrorKey(field: string): string {
  const kind = /^zone-\d+-(\w+)$/.exec(field)?.[1];
  return kind ? `zone_${kind}` : 'zones';
}
