import type { Locale } from './i18n.ts';

/*
 * Amounts on pages: stored in minor units (integers), shown and typed as decimal amounts of the
 * restaurant's currency, with as many decimals as the currency has (EUR 2, JPY 0, BHD 3).
 */

/*
 * Intl.NumberFormat instances (and a currency's decimals) are made once per locale, currency and
 * kind and kept: making one costs far more than formatting with it, and a menu page formats
 * hundreds of amounts.
 */
const formats = new Map<string, Intl.NumberFormat>();
function numberFormat(key: string, make: () => Intl.NumberFormat): Intl.NumberFormat {
  let format = formats.get(key);
  if (!format) {
    format = make();
    formats.set(key, format);
  }
  return format;
}

const digitsOf = new Map<string, number>();

/** The decimals of a currency's amounts (ISO 4217, as Intl knows them). */
export function currencyDigits(currency: string): number {
  let digits = digitsOf.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
      .maximumFractionDigits as number;
    digitsOf.set(currency, digits);
  }
  return digits;
}

/** An amount for reading (`9,50 €` in German); `signed` shows `+` before positive ones. */
export function formatMoney(minor: number, currency: string, locale: Locale, signed = false): string {
  const signDisplay = signed ? 'exceptZero' : 'auto';
  const format = numberFormat(
    `${locale} ${currency} ${signDisplay}`,
    () => new Intl.NumberFormat(locale, { style: 'currency', currency, signDisplay }),
  );
  return format.format(minor / 10 ** currencyDigits(currency));
}

/** An amount as a form field shows it: digits and the locale's decimal sign, no grouping (`9,50`). */
export function moneyInputValue(minor: number, currency: string, locale: Locale): string {
  const digits = currencyDigits(currency);
  const format = numberFormat(
    `input ${locale} ${digits}`,
    () =>
      new Intl.NumberFormat(locale, {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
        useGrouping: false,
      }),
  );
  return format.format(minor / 10 ** digits);
}

/**
 * The minor units of a typed amount, or null when it is none: digits with `.` or `,` before at
 * most the currency's decimals (`9`, `9.5`, `9,50`), a leading `-` only where `signed`; spaces
 * are ignored. No grouping signs: `1.000` would be ambiguous.
 */
export function parseMoney(text: string, currency: string, signed = false): number | null {
  const match = /^(-?)(\d+)(?:[.,](\d*))?$/.exec(text.replace(/\s/g, ''));
  if (!match) return null;
  const [, sign, whole = '', fraction = ''] = match;
  const digits = currencyDigits(currency);
  if ((sign && !signed) || fraction.length > digits) return null;
  const minor = Number(whole + fraction.padEnd(digits, '0'));
  if (!Number.isSafeInteger(minor)) return null;
  return sign ? -minor : minor;
}
