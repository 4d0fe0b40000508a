import Type, { type Static } from 'typebox';
import { nullable, Timestamp } from '../shared/common.schema.ts';
import { allergenLimits, dietLimits } from './label-rules.ts';

/** Longest names (spec: Limits, Field limits); positions as `PUT /menu` takes them. */
export const maxCategoryName = 80;
export const maxProductName = 200;
export const maxGroupName = 120;
export const maxDescription = 2000;
export const maxPosition = 100_000;
export const maxPrice = 100_000_000;
/** Shared option groups one product links (option_group_ids on a product write). */
export const maxLinkedGroups = 50;

/*
 * Text fields carry no pattern: the services check them (trimmed names not blank, no control
 * characters; external_id without outer space or control characters), each refusal a 400 on the field.
 */
export const visibleText = (maxLength: number, examples: string[]) =>
  Type.String({
    minLength: 1,
    maxLength,
    description: `1 to ${maxLength} characters, trimmed, no control characters.`,
    examples,
  });

/** Spec, List filters: 1 to 100 characters, no leading or trailing space, no control characters. */
export const ExternalIdInput = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    'Your own reference for the object (1 to 100 characters, no leading or trailing space, no control ' +
    'characters); once per kind among your app’s objects. Only your app ever sees it.',
  examples: ['cat-pizza'],
});
const ExternalId = nullable(
  Type.String({
    description:
      'Your app’s own reference; null when your app set none (other apps’ values are never shown).',
    examples: ['cat-pizza'],
  }),
);

export const taxClasses = ['food', 'drink', 'alcohol'] as const;
export type TaxClass = (typeof taxClasses)[number];
const TaxClassSchema = (description: string) =>
  nullable(
    Type.Union([Type.Literal('food'), Type.Literal('drink'), Type.Literal('alcohol')], {
      description,
      examples: ['food'],
    }),
  );
export const categoryTaxClass = TaxClassSchema(
  'The VAT class of its products that have none of their own; null means food.',
);
export const productTaxClass = TaxClassSchema('The VAT class; null: the category’s, else food.');

export const Position = Type.Integer({
  minimum: 0,
  maximum: maxPosition,
  description: 'Order in the menu, ascending (ties by id). Left out on create: after the last one.',
  examples: [3],
});
const ShownPosition = Type.Integer({ minimum: 0, description: 'Order in the menu, ascending (ties by id).' });
const Id = Type.String({ format: 'uuid', examples: ['0199c3a1-7b40-7c1e-8a52-3f6d2e9b1d01'] });

/** Sold out until then, available again by itself afterwards (decisions.md, Additions beyond the spec). */
const SoldOutUntil = Type.Union([Timestamp, Type.Null()], {
  description:
    'While sold out (`available` false): when it goes back on sale by itself (then `menu.*.updated` with ' +
    '`changed` ["available", "unavailable_until"]); null: until put back (always null while available).',
});
/** `unavailable_until` on a write: only with `available: false`, a future instant. */
export const SoldOutUntilInput = nullable(
  Type.String({
    format: 'date-time',
    description:
      'With `available: false` only: back on sale by itself at this future instant (with `Z` or an ' +
      'offset). Left out or null with `available: false`: sold out until put back.',
    examples: ['2030-06-01T16:00:00Z'],
  }),
);

/** The Category resource (spec: Category). */
export const CategorySchema = Type.Object(
  {
    object: Type.Literal('category'),
    id: Id,
    external_id: ExternalId,
    name: Type.String({ examples: ['Pizza'] }),
    position: ShownPosition,
    tax_class: categoryTaxClass,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);
export type Category = Static<typeof CategorySchema>;

export const TaxRatesSchema = Type.Object(
  {
    dine_in_bps: nullable(Type.Integer({ minimum: 0, examples: [1900] })),
    takeaway_bps: nullable(Type.Integer({ minimum: 0, examples: [700] })),
  },
  {
    additionalProperties: false,
    description:
      'The VAT rates the tax class resolves to, in basis points (700 = 7 %), eaten in and taken away; null ' +
      'where no rate is stored (not 0 %).',
  },
);
export type TaxRates = Static<typeof TaxRatesSchema>;

const labelLimits = { allergens: allergenLimits, diets: dietLimits };
const labelsDescription = (kind: 'allergens' | 'diets', keys: string) =>
  `Keys (${keys}), common names of them in German, English, French, Spanish and Italian (stored ` +
  `as the key), or the restaurant’s own labels (at most ${labelLimits[kind].maxOwn}, ` +
  `${labelLimits[kind].maxOwnLength} characters each); trimmed, each once.`;
export const allergensDescription = labelsDescription(
  'allergens',
  'gluten, crustaceans, eggs, fish, peanuts, soybeans, milk, nuts, celery, mustard, sesame, sulphites, lupin, molluscs',
);
export const dietsDescription = labelsDescription(
  'diets',
  'vegetarian, vegan, gluten_free, lactose_free, halal, kosher',
);

const HostedImagePath = Type.String({
  format: 'uri-reference',
  examples: ['/images/3f1c0a9e5b7d2e4f6a8c0b1d3e5f7a9c2b4d6e8f0a1c3e5b7d9f1a3c5e7b9d0f.webp'],
});

/** A product's hosted picture (menu-images.ts): a compatible addition to the Product. */
const ProductImagesSchema = nullable(
  Type.Object(
    {
      status: Type.Union([Type.Literal('pending'), Type.Literal('ready'), Type.Literal('failed')], {
        description:
          '`pending`: queued for download; `ready`: hosted (`urls`); `failed`: not to be had (`error`).',
      }),
      urls: nullable(
        Type.Object(
          { '400': HostedImagePath, '1200': HostedImagePath },
          {
            additionalProperties: false,
            description:
              'WebP copies by width in pixels (a narrower picture keeps its own width), served by ' +
              'Servery’s API host (resolve against the API address) and cached for a year; null until ready.',
          },
        ),
      ),
      error: nullable(Type.String({ description: 'Why the picture could not be had (failed only).' })),
    },
    {
      additionalProperties: false,
      description:
        'Servery’s hosted copy of `image_url`, downloaded once per restaurant and address; null without ' +
        '`image_url`.',
    },
  ),
);

/** The Product resource (spec: Product). */
export const ProductSchema = Type.Object(
  {
    object: Type.Literal('product'),
    id: Id,
    external_id: ExternalId,
    category_id: nullable(Type.String({ format: 'uuid', description: 'Its category; null: no category.' })),
    name: Type.String({ examples: ['Margherita'] }),
    description: nullable(Type.String({ examples: ['Tomato, mozzarella, basil'] })),
    price: Type.Integer({
      minimum: 0,
      description: 'In the smallest currency unit, VAT included, options excluded.',
      examples: [950],
    }),
    available: Type.Boolean({ description: 'false: sold out.' }),
    unavailable_until: SoldOutUntil,
    position: { ...ShownPosition, description: 'Order within its category, ascending (ties by id).' },
    allergens: Type.Array(Type.String(), {
      description: allergensDescription,
      examples: [['gluten', 'milk']],
    }),
    diets: Type.Array(Type.String(), { description: dietsDescription, examples: [['vegetarian']] }),
    image_url: nullable(
      Type.String({
        description: 'The picture’s address as your app sent it; Servery hosts a copy (`images`).',
        examples: ['https://images.example.com/margherita.jpg'],
      }),
    ),
    images: ProductImagesSchema,
    tax_class: productTaxClass,
    tax_rates: TaxRatesSchema,
    option_group_ids: Type.Array(Type.String({ format: 'uuid' }), {
      description: 'Its option groups: its own first, then shared ones, each in order.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);
export type Product = Static<typeof ProductSchema>;

/** The Option resource (spec: Option). */
export const OptionSchema = Type.Object(
  {
    object: Type.Literal('option'),
    id: Id,
    external_id: ExternalId,
    group_id: Type.String({ format: 'uuid' }),
    name: Type.String({ examples: ['Extra cheese'] }),
    price_delta: Type.Integer({ description: 'Per unit; may be negative.', examples: [150] }),
    available: Type.Boolean({ description: 'false: sold out on every product using the group.' }),
    unavailable_until: SoldOutUntil,
    position: ShownPosition,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);
export type Option = Static<typeof OptionSchema>;

/** The Option group resource (spec: Option group). */
export const OptionGroupSchema = Type.Object(
  {
    object: Type.Literal('option_group'),
    id: Id,
    external_id: ExternalId,
    name: Type.String({ examples: ['Extras'] }),
    min_select: Type.Integer({ minimum: 0, maximum: 20, description: '0 = optional.' }),
    max_select: Type.Integer({ minimum: 1, maximum: 20 }),
    position: ShownPosition,
    product_id: nullable(
      Type.String({ format: 'uuid', description: 'The only product it belongs to; null = shared.' }),
    ),
    options: Type.Array(OptionSchema, { description: 'In order, sold-out ones included.' }),
    updated_at: { ...Timestamp, description: 'Changes with the group’s own fields, not its options.' },
  },
  { additionalProperties: false },
);
export type OptionGroup = Static<typeof OptionGroupSchema>;

/** The Menu resource (spec: Menu): everything, each kind by position, sold-out items included. */
export const MenuSchema = Type.Object(
  {
    object: Type.Literal('menu'),
    currency: Type.String({ description: 'ISO 4217, the restaurant’s.', examples: ['EUR'] }),
    categories: Type.Array(CategorySchema),
    products: Type.Array(ProductSchema),
    option_groups: Type.Array(OptionGroupSchema),
  },
  { additionalProperties: false },
);
export type Menu = Static<typeof MenuSchema>;

export const categoryFields = ['external_id', 'name', 'position', 'tax_class'] as const;

/** POST /menu/categories. */
export const CategoryInputSchema = Type.Object(
  {
    external_id: Type.Optional(nullable(ExternalIdInput)),
    name: visibleText(maxCategoryName, ['Pizza']),
    position: Type.Optional(Position),
    tax_class: Type.Optional(categoryTaxClass),
  },
  {
    additionalProperties: false,
    examples: [{ external_id: 'cat-pizza', name: 'Pizza', position: 1, tax_class: 'food' }],
  },
);
export type CategoryInput = Static<typeof CategoryInputSchema>;

/** PATCH /menu/categories/{id}: only the sent fields change; null clears. */
export const CategoryPatchSchema = Type.Object(
  {
    external_id: Type.Optional(nullable(ExternalIdInput)),
    name: Type.Optional(visibleText(maxCategoryName, ['Pizza'])),
    position: Type.Optional(Position),
    tax_class: Type.Optional(categoryTaxClass),
  },
  { additionalProperties: false, examples: [{ name: 'Pizzas', position: 2 }] },
);
export type CategoryPatch = Static<typeof CategoryPatchSchema>;

export const Labels = (kind: 'allergens' | 'diets', description: string, examples: string[][]) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
    maxItems: labelLimits[kind].maxItems,
    description,
    examples,
  });

export const productInputFields = {
  external_id: Type.Optional(nullable(ExternalIdInput)),
  category_id: Type.Optional(
    nullable(
      Type.String({
        format: 'uuid',
        description: 'One of the restaurant’s categories; null: no category.',
      }),
    ),
  ),
  description: Type.Optional(
    nullable(Type.String({ maxLength: maxDescription, examples: ['Tomato, mozzarella, basil'] })),
  ),
  available: Type.Optional(
    Type.Boolean({
      description: 'false: sold out; true also ends a sold-out time (`unavailable_until`).',
      examples: [true],
    }),
  ),
  unavailable_until: Type.Optional(SoldOutUntilInput),
  position: Type.Optional({
    ...Position,
    description: 'Order within its category. Left out on create: last.',
  }),
  allergens: Type.Optional(Labels('allergens', allergensDescription, [['gluten', 'milk']])),
  diets: Type.Optional(Labels('diets', dietsDescription, [['vegetarian']])),
  image_url: Type.Optional(
    nullable(
      Type.String({
        maxLength: 2000,
        pattern: '^https://[^\\u0000-\\u0020\\u007f]+$',
        description:
          'An https URI of the picture; one naming an address outside the public internet (a private or ' +
          'loopback IP, `localhost`) is refused (400).',
        examples: ['https://images.example.com/margherita.jpg'],
      }),
    ),
  ),
  tax_class: Type.Optional(productTaxClass),
  option_group_ids: Type.Optional(
    Type.Array(Type.String({ format: 'uuid' }), {
      maxItems: maxLinkedGroups,
      description:
        'The shared option groups it uses, in order (replaces the list). Its own groups (product_id) ' +
        'are linked by themselves and may be listed too; another product’s own group may not.',
      examples: [[]],
    }),
  ),
};
export const ProductName = visibleText(maxProductName, ['Margherita']);
export const Price = Type.Integer({
  minimum: 0,
  maximum: maxPrice,
  description: 'In the smallest currency unit, VAT included, options excluded.',
  examples: [950],
});

/** POST /menu/products. */
export const ProductInputSchema = Type.Object(
  { ...productInputFields, name: ProductName, price: Price },
  {
    additionalProperties: false,
    examples: [
      {
        external_id: 'prod-margherita',
        name: 'Margherita',
        description: 'Tomato, mozzarella, basil',
        price: 950,
        allergens: ['gluten', 'milk'],
        diets: ['vegetarian'],
        tax_class: 'food',
      },
    ],
  },
);
export type ProductInput = Static<typeof ProductInputSchema>;

/** PATCH /menu/products/{id}: only the sent fields change; null clears. */
export const ProductPatchSchema = Type.Object(
  { ...productInputFields, name: Type.Optional(ProductName), price: Type.Optional(Price) },
  { additionalProperties: false, examples: [{ price: 1050, available: false }] },
);
export type ProductPatch = Static<typeof ProductPatchSchema>;

/** The Product's fields a write may change, in the resource's order (events name these). */
export const productFields = [
  'external_id',
  'category_id',
  'name',
  'description',
  'price',
  'available',
  'unavailable_until',
  'position',
  'allergens',
  'diets',
  'image_url',
  'tax_class',
] as const satisfies ReadonlyArray<keyof Product>;

export const optionGroupFields = [
  'external_id',
  'name',
  'min_select',
  'max_select',
  'position',
  'product_id',
] as const satisfies ReadonlyArray<keyof OptionGroup>;
export const optionFields = [
  'external_id',
  'group_id',
  'name',
  'price_delta',
  'available',
  'unavailable_until',
  'position',
] as const satisfies ReadonlyArray<keyof Option>;

export const GroupName = visibleText(maxGroupName, ['Extras']);
export const optionGroupInputFields = {
  external_id: Type.Optional(nullable({ ...ExternalIdInput, examples: ['grp-extras'] })),
  min_select: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 20,
      description: 'Fewest options to choose; 0 = optional. Not above max_select. Left out on create: 0.',
      examples: [0],
    }),
  ),
  max_select: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 20,
      description: 'Most options to choose. Left out on create: 1.',
      examples: [3],
    }),
  ),
  position: Type.Optional({
    ...Position,
    description:
      'Order among the groups of its product (or among the shared ones). Left out on create: last.',
  }),
  product_id: Type.Optional(
    nullable(
      Type.String({
        format: 'uuid',
        description: 'The only product it belongs to (one of the restaurant’s); null: shared.',
      }),
    ),
  ),
};

/** POST /menu/option-groups. */
export const OptionGroupInputSchema = Type.Object(
  { ...optionGroupInputFields, name: GroupName },
  {
    additionalProperties: false,
    examples: [{ external_id: 'grp-extras', name: 'Extras', min_select: 0, max_select: 3 }],
  },
);
export type OptionGroupInput = Static<typeof OptionGroupInputSchema>;

/** PATCH /menu/option-groups/{id}: only the sent fields change; null clears. */
export const OptionGroupPatchSchema = Type.Object(
  { ...optionGroupInputFields, name: Type.Optional(GroupName) },
  { additionalProperties: false, examples: [{ name: 'Toppings', max_select: 4 }] },
);
export type OptionGroupPatch = Static<typeof OptionGroupPatchSchema>;

export const OptionName = visibleText(maxGroupName, ['Extra cheese']);
export const PriceDelta = Type.Integer({
  minimum: -maxPrice,
  maximum: maxPrice,
  description: 'Added to the product’s price per unit, in the smallest currency unit; may be negative.',
  examples: [150],
});
export const optionInputFields = {
  external_id: Type.Optional(nullable({ ...ExternalIdInput, examples: ['opt-cheese'] })),
  available: Type.Optional(
    Type.Boolean({
      description:
        'false: sold out on every product using the group; true also ends a sold-out time (`unavailable_until`).',
      examples: [true],
    }),
  ),
  unavailable_until: Type.Optional(SoldOutUntilInput),
  position: Type.Optional({
    ...Position,
    description: 'Order within its group. Left out on create: last.',
  }),
};

/** POST /menu/option-groups/{id}/options. */
export const OptionInputSchema = Type.Object(
  { ...optionInputFields, name: OptionName, price_delta: PriceDelta },
  {
    additionalProperties: false,
    examples: [{ external_id: 'opt-cheese', name: 'Extra cheese', price_delta: 150 }],
  },
);
export type OptionInput = Static<typeof OptionInputSchema>;

/** PATCH /menu/options/{id}: only the sent fields change; null clears external_id. */
export const OptionPatchSchema = Type.Object(
  {
    ...optionInputFields,
    group_id: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'Moves it to another of the restaurant’s groups (its position stays).',
      }),
    ),
    name: Type.Optional(OptionName),
    price_delta: Type.Optional(PriceDelta),
  },
  { additionalProperties: false, examples: [{ price_delta: 200, available: false }] },
);
export type OptionPatch = Static<typeof OptionPatchSchema>;

/** The answer of a single-object delete (decisions.md, Menu). */
export const DeletedSchema = <K extends 'category' | 'product' | 'option_group' | 'option'>(object: K) =>
  Type.Object(
    { object: Type.Literal(object), id: Type.String({ format: 'uuid' }), deleted: Type.Literal(true) },
    { additionalProperties: false },
  );
export interface Deleted<K extends string> {
  object: K;
  id: string;
  deleted: true;
}
