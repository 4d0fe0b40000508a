import type { Menu, Product } from '../../../domain/menu/menu.schema.ts';

/*
 * The menu's filter of allergens and diets (a plain GET form, `?without=gluten&diet=vegan`): a
 * product declaring any allergen in `without` is hidden, and with diets chosen only products
 * declaring every one of them are shown. A product declaring nothing is hidden by no allergen (the
 * restaurant declares what its dishes contain). The choices offered are the labels on the menu;
 * a value the menu does not use is ignored.
 */
export interface MenuFilter {
  /** The allergens and diets the menu's products declare, to choose from. */
  allergens: string[];
  diets: string[];
  /** Those chosen. */
  without: string[];
  only: string[];
}

/** The filter the query asks for, among the labels the menu uses. */
export function menuFilter(menu: Menu, query: Record<string, unknown>): MenuFilter {
  const labels = (pick: (product: Product) => string[]) =>
    [...new Set(menu.products.flatMap(pick))].sort((a, b) => a.localeCompare(b));
  const allergens = labels((product) => product.allergens);
  const diets = labels((product) => product.diets);
  const chosen = (name: string, among: string[]) =>
    [query[name]]
      .flat()
      .filter((value): value is string => typeof value === 'string' && among.includes(value));
  return { allergens, diets, without: chosen('without', allergens), only: chosen('diet', diets) };
}

/** Whether the filter lets the product be shown. */
export function passes(filter: MenuFilter, product: Product): boolean {
  return (
    filter.without.every((allergen) => !product.allergens.includes(allergen)) &&
    filter.only.every((diet) => product.diets.includes(diet))
  );
}
