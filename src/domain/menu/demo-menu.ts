import type { Ctx } from '../shared/context.ts';
import { createCategory } from './categories.service.ts';
import type { ProductInput } from './menu.schema.ts';
import { createOptionGroup } from './option-groups.service.ts';
import { createOption } from './options.service.ts';
import { createProduct } from './products.service.ts';

/** What demoMenu adds, for the demo's description. */
export const demoMenuSummary = 'a menu of 3 categories, 8 products, 2 option groups';

/*
 * A small trattoria's menu, as its owner would enter it: starters, pizzas with a shared group of
 * extras, drinks (their own VAT class) with a size choice on the lemonade; allergens and diets
 * as keys; one pizza sold out. The demo restaurant's menu, and the one a developer's new test
 * restaurant starts with (accounts/developer-sign-up.ts).
 */
export async function demoMenu(ctx: Ctx): Promise<void> {
  const starters = await createCategory(ctx, { name: 'Antipasti' });
  const pizza = await createCategory(ctx, { name: 'Pizza' });
  const drinks = await createCategory(ctx, { name: 'Drinks', tax_class: 'drink' });
  const extras = await createOptionGroup(ctx, { name: 'Extras', min_select: 0, max_select: 3 });
  for (const [name, price_delta] of [
    ['Extra mozzarella', 150],
    ['Rocket', 100],
    ['Chili oil', 50],
  ] as const)
    await createOption(ctx, extras.id, { name, price_delta });

  const products: ProductInput[] = [
    {
      category_id: starters.id,
      name: 'Bruschetta',
      description: 'Toasted bread, tomatoes, garlic, basil',
      price: 650,
      allergens: ['gluten'],
      diets: ['vegan'],
    },
    {
      category_id: starters.id,
      name: 'Vitello tonnato',
      price: 1250,
      allergens: ['eggs', 'fish'],
    },
    {
      category_id: pizza.id,
      name: 'Margherita',
      description: 'Tomato, mozzarella, basil',
      price: 950,
      allergens: ['gluten', 'milk'],
      diets: ['vegetarian'],
      option_group_ids: [extras.id],
    },
    {
      category_id: pizza.id,
      name: 'Diavola',
      description: 'Tomato, mozzarella, spicy salami',
      price: 1150,
      allergens: ['gluten', 'milk'],
      option_group_ids: [extras.id],
    },
    {
      category_id: pizza.id,
      name: 'Quattro formaggi',
      price: 1250,
      allergens: ['gluten', 'milk'],
      diets: ['vegetarian'],
      available: false,
      option_group_ids: [extras.id],
    },
    { category_id: drinks.id, name: 'Sparkling water', description: '0.75 l', price: 550 },
    {
      category_id: drinks.id,
      name: 'Chianti',
      description: '0.2 l',
      price: 690,
      allergens: ['sulphites'],
      tax_class: 'alcohol',
    },
  ];
  for (const product of products) await createProduct(ctx, product);
  const lemonade = await createProduct(ctx, {
    category_id: drinks.id,
    name: 'Lemonade',
    price: 390,
    diets: ['vegan'],
  });
  const size = await createOptionGroup(ctx, {
    name: 'Size',
    min_select: 1,
    max_select: 1,
    product_id: lemonade.id,
  });
  await createOption(ctx, size.id, { name: '0.3 l', price_delta: 0 });
  await createOption(ctx, size.id, { name: '0.5 l', price_delta: 150 });
}
