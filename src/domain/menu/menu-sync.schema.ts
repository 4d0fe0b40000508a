import Type, { type Static, type TSchema } from 'typebox';
import { nullable } from '../shared/common.schema.ts';
import {
  categoryTaxClass,
  ExternalIdInput,
  GroupName,
  maxCategoryName,
  OptionName,
  optionGroupInputFields,
  optionInputFields,
  Position,
  Price,
  PriceDelta,
  ProductName,
  productInputFields,
  visibleText,
} from './menu.schema.ts';

/*
 * PUT /menu (spec: PUT /menu; decisions.md: Menu). Every object is keyed by the caller's
 * external_id; references name the caller's external_ids too. Omitted fields stay unchanged, null
 * clears. The fields a new object needs are optional here and required by the service of a new
 * one only (400 on the field). The per-body limits are checked by the service (422 limit_exceeded,
 * not a schema 400).
 */

/** Objects of each kind one sync may carry (decisions.md). */
export const syncLimits = {
  categories: 200,
  products: 5000,
  option_groups: 2000,
  options: 20_000,
} as const;

/** Bytes of a sync body (spec: 2 MB). */
export const syncBodyLimit = 2 * 1024 * 1024;

/** Syncs per connection and minute (spec: Limits). */
export const syncRateLimit = { limit: 10, windowSeconds: 60 } as const;

const SyncKey = (examples: string[]) => ({
  ...ExternalIdInput,
  description:
    'Your own reference for the object: the key of the sync (1 to 100 characters, no leading or ' +
    'trailing space, no control characters), unique per kind among your objects.',
  examples,
});
/** A field a new object needs: an existing one may leave it out (then it stays unchanged). */
const NeededByNew = <T extends TSchema & { description?: string }>(schema: T, what: string) =>
  Type.Optional({
    ...schema,
    description: `${schema.description} Required for a new ${what}; left out: unchanged.`,
  });

const Reference = (description: string, examples: string[]) =>
  Type.String({ minLength: 1, maxLength: 100, description, examples });

const SyncCategory = Type.Object(
  {
    external_id: SyncKey(['cat-pizza']),
    name: visibleText(maxCategoryName, ['Pizza']),
    position: Type.Optional({ ...Position, description: 'Left out: unchanged; a new one goes last.' }),
    tax_class: Type.Optional(categoryTaxClass),
  },
  { additionalProperties: false },
);

const SyncProduct = Type.Object(
  {
    external_id: SyncKey(['prod-margherita']),
    name: NeededByNew(ProductName, 'product'),
    category_external_id: Type.Optional(
      nullable(
        Reference(
          'Its category: the external_id of one of your categories (in this body, or kept from ' +
            'before in `merge` mode); null: no category.',
          ['cat-pizza'],
        ),
      ),
    ),
    description: productInputFields.description,
    price: NeededByNew(Price, 'product'),
    available: productInputFields.available,
    position: Type.Optional({
      ...Position,
      description: 'Order within its category. Left out: unchanged; a new one goes last.',
    }),
    allergens: productInputFields.allergens,
    diets: productInputFields.diets,
    image_url: productInputFields.image_url,
    tax_class: productInputFields.tax_class,
    option_group_external_ids: Type.Optional(
      Type.Array(Reference('The external_id of one of your option groups.', ['grp-extras']), {
        maxItems: 50,
        description:
          'The shared option groups it uses, in order (replaces its list). Its own groups ' +
          '(`product_external_id`) come first by themselves and may be listed too.',
        examples: [['grp-extras']],
      }),
    ),
  },
  { additionalProperties: false },
);

const SyncOption = Type.Object(
  {
    external_id: SyncKey(['opt-cheese']),
    name: NeededByNew(OptionName, 'option'),
    price_delta: NeededByNew(PriceDelta, 'option'),
    available: optionInputFields.available,
    position: Type.Optional({
      ...Position,
      description: 'Order within its group. Left out: unchanged; a new one goes last.',
    }),
  },
  { additionalProperties: false },
);

const SyncOptionGroup = Type.Object(
  {
    external_id: SyncKey(['grp-extras']),
    name: NeededByNew(GroupName, 'option group'),
    min_select: optionGroupInputFields.min_select,
    max_select: optionGroupInputFields.max_select,
    position: Type.Optional({
      ...Position,
      description:
        'Order among the groups of its product (or the shared ones). Left out: unchanged; new: last.',
    }),
    product_external_id: Type.Optional(
      nullable(
        Reference('The only product it belongs to (one of your products\u2019 external_id); null: shared.', [
          'prod-margherita',
        ]),
      ),
    ),
    options: Type.Optional(
      Type.Array(SyncOption, {
        description:
          'Its options, in order. Left out: its options stay as they are. An option listed in another ' +
          'group before moves to this one.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const MenuSyncInputSchema = Type.Object(
  {
    mode: Type.Union([Type.Literal('merge'), Type.Literal('replace')], {
      description:
        '`merge`: create and update. `replace`: also delete your objects of each kind sent (`categories`, ' +
        '`products`, `option_groups` with their options) that the body does not list.',
      examples: ['merge'],
    }),
    dry_run: Type.Optional(
      Type.Boolean({
        description: 'Validate and report what would change; change nothing, download no images.',
        examples: [false],
      }),
    ),
    categories: Type.Optional(
      Type.Array(SyncCategory, { description: `At most ${syncLimits.categories}. Left out: untouched.` }),
    ),
    products: Type.Optional(
      Type.Array(SyncProduct, { description: `At most ${syncLimits.products}. Left out: untouched.` }),
    ),
    option_groups: Type.Optional(
      Type.Array(SyncOptionGroup, {
        description: `At most ${syncLimits.option_groups} groups and ${syncLimits.options} options. Left out: untouched.`,
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        mode: 'merge',
        categories: [{ external_id: 'cat-drinks', name: 'Drinks', position: 2, tax_class: 'drink' }],
        products: [
          {
            external_id: 'prod-lemonade',
            name: 'Lemonade',
            category_external_id: 'cat-drinks',
            price: 350,
            diets: ['vegan'],
            option_group_external_ids: ['grp-size'],
          },
        ],
        option_groups: [
          {
            external_id: 'grp-size',
            name: 'Size',
            min_select: 1,
            max_select: 1,
            options: [
              { external_id: 'opt-small', name: 'Small', price_delta: 0 },
              { external_id: 'opt-large', name: 'Large', price_delta: 120 },
            ],
          },
        ],
      },
    ],
  },
);
export type MenuSyncInput = Static<typeof MenuSyncInputSchema>;
export type SyncCategoryInput = Static<typeof SyncCategory>;
export type SyncProductInput = Static<typeof SyncProduct>;
export type SyncOptionGroupInput = Static<typeof SyncOptionGroup>;
export type SyncOptionInput = Static<typeof SyncOption>;

export const syncKinds = ['categories', 'products', 'option_groups', 'options'] as const;
export type SyncKind = (typeof syncKinds)[number];

const Counts = Type.Object(
  {
    created: Type.Integer({ minimum: 0 }),
    updated: Type.Integer({ minimum: 0 }),
    deleted: Type.Integer({ minimum: 0 }),
    unchanged: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
const Ids = Type.Record(Type.String(), Type.String({ format: 'uuid' }), {
  description: 'Your external_id → our id, for every object of the body (in a dry run: those that exist).',
});

export const SyncWarningSchema = Type.Object(
  {
    code: Type.String({
      description:
        '`unmanaged_options_deleted`, `unmanaged_option_groups_deleted`, `images_deferred`, `images_capped`.',
      examples: ['unmanaged_options_deleted'],
    }),
    message: Type.String(),
    param: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type SyncWarning = Static<typeof SyncWarningSchema>;

/** What a sync did (or, in a dry run, would do). */
export const MenuSyncSchema = Type.Object(
  {
    object: Type.Literal('menu_sync'),
    mode: Type.Union([Type.Literal('merge'), Type.Literal('replace')]),
    dry_run: Type.Boolean(),
    changed: Type.Boolean({ description: 'Whether anything changed (would change, in a dry run).' }),
    counts: Type.Object(
      { categories: Counts, products: Counts, option_groups: Counts, options: Counts },
      {
        additionalProperties: false,
        description:
          'Per kind: objects of the body created, updated or unchanged, and objects deleted (also as a ' +
          'consequence: options of a deleted group). Products moved out of a deleted category, and ' +
          'products whose option groups changed, count as updated.',
      },
    ),
    ids: Type.Object(
      { categories: Ids, products: Ids, option_groups: Ids, options: Ids },
      { additionalProperties: false },
    ),
    warnings: Type.Array(SyncWarningSchema),
  },
  { additionalProperties: false },
);
export type MenuSync = Static<typeof MenuSyncSchema>;
export type SyncCounts = Static<typeof Counts>;

/** data.object of menu.synced: what the sync did and which connection made it (no external_ids). */
export interface MenuSynced extends Pick<MenuSync, 'mode' | 'counts'> {
  object: 'menu_sync';
  connection_id: string;
}
