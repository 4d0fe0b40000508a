import { getAllCountries, getCountryForTimezone } from 'countries-and-timezones';

const codes = new Set<string>(Object.keys(getAllCountries()));

/**
 * The country whose VAT a restaurant charges, as ISO 3166-1 alpha-2 upper case, or null:
 * - its country (restaurants.country: the tax setting, which the store's address shows too);
 * - else the main country of its IANA time zone (countries-and-timezones: Europe/Zurich → CH,
 *   Europe/Berlin → DE, Europe/Vaduz → LI); a zone of no country (UTC) → null, never a guess.
 */
export function taxCountryOf(restaurant: { country: string | null; timezone: string }): string | null {
  const code = restaurant.country?.trim().toUpperCase() ?? '';
  if (codes.has(code)) return code;
  return getCountryForTimezone(restaurant.timezone)?.id ?? null;
}
