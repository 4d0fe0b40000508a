import type { TFunction } from 'i18next';
import { allergenKeys } from '../../../domain/menu/allergen-names.ts';
import { dietKeys } from '../../../domain/menu/diet-names.ts';
import {
  type Category,
  type Option,
  type OptionGroup,
  type Product,
  taxClasses,
} from '../../../domain/menu/menu.schema.ts';
import type { Locale } from '../../../i18n/i18n.ts';
import { moneyInputValue, parseMoney } from '../../../i18n/money.ts';
import { inputProblems } from '../../shared/validation.ts';
import type { FormError } from '../../web/page.ts';

/*
 * The menu editor's forms: what a sent form means as the input of a menu service, and what an
 * object's form shows. Field names are the API's (`name`, `price`, `category_id`, …), so a
 * refusal's `param` names the field to show its error beside, except own allergen and diet labels,
 * typed in `allergens_other` and `diets_other` beside the checkboxes of the keys.
 */

/** A form as sent or shown: each field's text; a repeated field (checkboxes) as a list. */
export type FormValues = Record<string, string | string[]>;

/** The fields of a sent form (a parsed urlencoded body), nothing else. */
export function sentValues(body: unknown): FormValues {
  const values: FormValues = {};
  if (typeof body !== 'object' || body === null) return values;
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === 'string') values[name] = value;
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) values[name] = value;
  }
  return values;
}

/** Reads a sent form; a field whose text is no value of its kind is noted in `invalid`. */
export class FormReader {
  readonly invalid: string[] = [];
  readonly values: FormValues;
  constructor(values: FormValues) {
    this.values = values;
  }

  text(name: string): string {
    const value = this.values[name];
    return typeof value === 'string' ? value : '';
  }

  /** Empty or blank: null. */
  optionalText(name: string): string | null {
    const value = this.text(name);
    return value.trim() === '' ? null : value;
  }

  /** Every value of a repeated field (checked boxes). */
  list(name: string): string[] {
    const value = this.values[name];
    return value === undefined ? [] : typeof value === 'string' ? [value] : value;
  }

  /** Own labels: separated by commas, each trimmed, empty ones dropped. */
  labels(name: string): string[] {
    return this.text(name)
      .split(',')
      .map((label) => label.trim())
      .filter((label) => label !== '');
  }

  /** A whole number; empty: undefined (left out). */
  integer(name: string): number | undefined {
    const text = this.text(name).trim();
    if (text === '') return undefined;
    if (!/^\d{1,9}$/.test(text)) this.invalid.push(name);
    return Number(text);
  }

  /** An amount in minor units of `currency` (money.ts); `signed` allows a minus. */
  money(name: string, currency: string, signed = false): number {
    const minor = parseMoney(this.text(name), currency, signed);
    if (minor === null) this.invalid.push(name);
    return minor ?? 0;
  }

  /**
   * Notes every field whose value in `input` (read from this form) the API's schema refuses,
   * `fieldOf` naming the field of a `param` (the param itself unless given); then the invalid
   * fields stand in the form's order.
   */
  check(schema: object, input: object, fieldOf: (param: string) => string = (param) => param): void {
    for (const field of inputProblems(schema, input).map(fieldOf))
      if (!this.invalid.includes(field)) this.invalid.push(field);
    const order = Object.keys(this.values);
    const place = (field: string) => (order.includes(field) ? order.indexOf(field) : order.length);
    this.invalid.sort((a, b) => place(a) - place(b));
  }

  /** One of `allowed`, or null when empty. */
  choice<T extends string>(name: string, allowed: readonly T[]): T | null {
    const text = this.text(name);
    if (text === '') return null;
    if (!(allowed as readonly string[]).includes(text)) this.invalid.push(name);
    return text as T;
  }
}

/** The input without the fields left out (undefined), as a JSON body would have it. */
function sent<T extends object>(input: T): T {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as T;
}

export function categoryInput(form: FormReader) {
  return sent({
    name: form.text('name'),
    position: form.integer('position'),
    tax_class: form.choice('tax_class', taxClasses),
  });
}

export function productInput(form: FormReader, currency: string) {
  return sent({
    name: form.text('name'),
    description: form.optionalText('description'),
    price: form.money('price', currency),
    category_id: form.optionalText('category_id'),
    position: form.integer('position'),
    allergens: [...form.list('allergens'), ...form.labels('allergens_other')],
    diets: [...form.list('diets'), ...form.labels('diets_other')],
    tax_class: form.choice('tax_class', taxClasses),
    option_group_ids: form.list('option_group_ids'),
  });
}

export function optionGroupInput(form: FormReader) {
  return sent({
    name: form.text('name'),
    min_select: form.integer('min_select'),
    max_select: form.integer('max_select'),
    product_id: form.optionalText('product_id'),
    position: form.integer('position'),
  });
}

export function optionInput(form: FormReader, currency: string) {
  return sent({
    name: form.text('name'),
    price_delta: form.money('price_delta', currency, true),
    position: form.integer('position'),
  });
}

export function categoryValues(category: Category): FormValues {
  return { name: category.name, position: String(category.position), tax_class: category.tax_class ?? '' };
}

/** Keys among the labels are checked; the own labels go into the text field beside them. */
function labelValues(name: 'allergens' | 'diets', labels: readonly string[], keys: readonly string[]) {
  return {
    [name]: labels.filter((label) => keys.includes(label)),
    [`${name}_other`]: labels.filter((label) => !keys.includes(label)).join(', '),
  };
}

export function productValues(product: Product, currency: string, locale: Locale): FormValues {
  return {
    name: product.name,
    description: product.description ?? '',
    price: moneyInputValue(product.price, currency, locale),
    category_id: product.category_id ?? '',
    position: String(product.position),
    ...labelValues('allergens', product.allergens, allergenKeys),
    ...labelValues('diets', product.diets, dietKeys),
    tax_class: product.tax_class ?? '',
    option_group_ids: product.option_group_ids,
    image_url: product.image_url ?? '',
  };
}

export function optionGroupValues(group: OptionGroup): FormValues {
  return {
    name: group.name,
    min_select: String(group.min_select),
    max_select: String(group.max_select),
    product_id: group.product_id ?? '',
    position: String(group.position),
  };
}

export function optionValues(option: Option, currency: string, locale: Locale): FormValues {
  return {
    name: option.name,
    price_delta: moneyInputValue(option.price_delta, currency, locale),
    position: String(option.position),
  };
}

/** The form field a refusal's `param` names: `allergens[3]` is the own allergens' field. */
export function fieldOf(param: string): string {
  const name = param.replace(/\[\d+\]$/, '');
  return name === 'allergens' || name === 'diets' ? `${name}_other` : name;
}

/** The errors of fields, each with its message (`menuForm.errors.<field>`, else a general one). */
export function fieldErrors(t: TFunction, fields: readonly (string | undefined)[]): FormError[] {
  return fields.map((field) =>
    field === undefined
      ? { message: t('menuForm.errors.other') }
      : { field, message: t(`menuForm.errors.${field}`, { defaultValue: t('menuForm.errors.other') }) },
  );
}
