import type { Ctx } from '../shared/context.ts';
import type { TaxClass, TaxRates } from './menu.schema.ts';
import { taxCountryOf } from './tax-country.ts';
import { vatRates } from './vat-rates.ts';

/**
 * The VAT rates each tax class resolves to in the ctx's restaurant (spec: Product, tax_rates),
 * eaten in and taken away, in basis points, from the rate table of its country (tax-country.ts);
 * null where the rate is not known (never 0 by accident). The restaurant is read once.
 */
export async function taxRatesIn(ctx: Ctx): Promise<(taxClass: TaxClass) => TaxRates> {
  const restaurant = await ctx.db
    .selectFrom('restaurants')
    .select(['country', 'timezone'])
    .where('id', '=', ctx.tenantId as string)
    .executeTakeFirstOrThrow();
  const country = taxCountryOf(restaurant);
  return (taxClass) => vatRates(country, taxClass);
}
