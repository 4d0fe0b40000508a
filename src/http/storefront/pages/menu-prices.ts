import type { Menu, OptionGroup, Product } from '../../../domain/menu/menu.schema.ts';
import type { Cart } from './cart-cookie.ts';

/*
 * The cart as the menu prices it now (never a price from the browser), and the option rules a
 * guest can fix on the product's page. placeOrder applies the same rules again when the order is
 * placed; these only show a problem earlier, beside its field.
 */

/** On sale: available, or sold out until a time that has passed (as placeOrder counts it). */
export function onSale(
  item: { available: boolean; unavailable_until: Date | string | null },
  now: Date,
): boolean {
  return item.available || (item.unavailable_until !== null && new Date(item.unavailable_until) <= now);
}

/** A product's option groups: its own and the shared ones it links, in menu order. */
export function groupsOf(menu: Menu, product: Product): OptionGroup[] {
  return menu.option_groups.filter(
    (group) => group.product_id === product.id || product.option_group_ids.includes(group.id),
  );
}

export interface OptionProblem {
  /** The group's field on the product page (`group_<id>`). */
  field: string;
  kind: 'count' | 'soldOut' | 'unknown';
  group: string;
  min: number;
  max: number;
}

/** Each group's problem with the chosen options: unknown or sold-out ones, or a count outside min..max. */
export function optionErrors(menu: Menu, product: Product, chosen: string[], now: Date): OptionProblem[] {
  const groups = groupsOf(menu, product);
  const problems: OptionProblem[] = [];
  const known = new Set(groups.flatMap((group) => group.options.map((option) => option.id)));
  if (chosen.some((id) => !known.has(id)) && groups[0]) problems.push(problem(groups[0], 'unknown'));
  for (const group of groups) {
    const picked = group.options.filter((option) => chosen.includes(option.id));
    if (picked.some((option) => !onSale(option, now))) problems.push(problem(group, 'soldOut'));
    else if (picked.length < group.min_select || picked.length > group.max_select)
      problems.push(problem(group, 'count'));
  }
  return problems;
}

function problem(group: OptionGroup, kind: OptionProblem['kind']): OptionProblem {
  return {
    field: `group_${group.id}`,
    kind,
    group: group.name,
    min: group.min_select,
    max: group.max_select,
  };
}

export interface PricedLine {
  index: number;
  quantity: number;
  /** null: the product left the menu. */
  name: string | null;
  options: string[];
  unitPrice: number;
  lineTotal: number;
  onSale: boolean;
}

/** The cart's lines at the menu's prices now, and their subtotal. */
export function pricedCart(menu: Menu, cart: Cart, now: Date): { lines: PricedLine[]; subtotal: number } {
  const options = new Map(menu.option_groups.flatMap((group) => group.options.map((o) => [o.id, o])));
  const lines = cart.lines.map((line, index) => {
    const product = menu.products.find((candidate) => candidate.id === line.productId);
    const chosen = line.optionIds.flatMap((id) => options.get(id) ?? []);
    const unitPrice = (product?.price ?? 0) + chosen.reduce((sum, option) => sum + option.price_delta, 0);
    return {
      index,
      quantity: line.quantity,
      name: product?.name ?? null,
      options: chosen.map((option) => option.name),
      unitPrice,
      lineTotal: unitPrice * line.quantity,
      onSale:
        product !== undefined &&
        onSale(product, now) &&
        chosen.length === line.optionIds.length &&
        chosen.every((option) => onSale(option, now)),
    };
  });
  return { lines, subtotal: lines.reduce((sum, line) => sum + line.lineTotal, 0) };
}
