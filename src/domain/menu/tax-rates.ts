import type { Ctx } from '../shared/context.ts';
import type { TaxClass, TaxRates } from './menu.schema.ts';
import { taxCountryOf } from './tax-country.ts';
import { vatRates } from './vat-rates.ts';

/**
 * The VAT rates a product's tax class resolves to in the ctx's restaurant (spec: Product,
 * tax_rates), eaten in and taken away, in basis points, from the rate table of its country
 * (tax-country.ts); null where the rate is not known (never 0 by accident).
 */
export async function taxRatesFor(ctx: Ctx, taxClass: TaxClass): Promise<TaxRates> {
  const restaurant = await ctx.db
    .selectFrom('restaurants')
    .select(['country', 'timezone'])
    .where('id', '=', ctx.tenantId as string)
    .executeTakeFirstOrThrow();
  return vatRates(taxCountryOf(restaurant), taxClass);
}
