import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectAnotherApp, feedAll } from '../events/events-helpers.ts';
import { buildTestApp, makeTenant, type Tenant, type TestApp } from '../harness.ts';
import { assertError, ok, request } from './menu-helpers.ts';

/* PUT /v1/menu, the whole-menu sync (spec: PUT /menu; decisions.md: Menu). */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

import type { Menu } from '../../src/domain/menu/menu.schema.ts';

const sync = (tenant: Tenant, body: unknown) => ok(t, tenant.token, 'PUT', '/menu', body);
const menu = (tenant: Tenant): Promise<Menu> => ok(t, tenant.token, 'GET', '/menu');
const byExternalId = <T extends { external_id: string | null }>(
  objects: readonly T[],
  externalId: string,
): T => {
  const found = objects.find((object) => object.external_id === externalId);
  assert.ok(found, `no object ${externalId}`);
  return found;
};
const eventTypes = async (tenant: Tenant) =>
  (await feedAll(t, tenant.token, '&types=menu.*')).map((event) => event.type);

/** A menu of two categories, three products, a shared and a product-only group. */
const pizzeria = {
  mode: 'merge',
  categories: [
    { external_id: 'cat-pizza', name: 'Pizza', tax_class: 'food' },
    { external_id: 'cat-drinks', name: 'Drinks', tax_class: 'drink' },
  ],
  products: [
    {
      external_id: 'p-margherita',
      name: 'Margherita',
      category_external_id: 'cat-pizza',
      description: 'Tomato, mozzarella',
      price: 900,
      allergens: ['Gluten', 'Milch'],
      diets: ['vegetarian'],
      option_group_external_ids: ['g-extras'],
    },
    {
      external_id: 'p-salami',
      name: 'Salami',
      category_external_id: 'cat-pizza',
      price: 1050,
      option_group_external_ids: ['g-extras'],
    },
    { external_id: 'p-cola', name: 'Cola', category_external_id: 'cat-drinks', price: 300, available: false },
  ],
  option_groups: [
    {
      external_id: 'g-extras',
      name: 'Extras',
      max_select: 3,
      options: [
        { external_id: 'o-cheese', name: 'Cheese', price_delta: 150 },
        { external_id: 'o-olives', name: 'Olives', price_delta: 100 },
      ],
    },
    {
      external_id: 'g-crust',
      name: 'Crust',
      min_select: 1,
      max_select: 1,
      product_external_id: 'p-margherita',
      options: [
        { external_id: 'o-thin', name: 'Thin', price_delta: 0 },
        { external_id: 'o-thick', name: 'Thick', price_delta: 50 },
      ],
    },
  ],
};

describe('merge', () => {
  test('creates every kind in body order, answers counts and ids, and emits one menu.synced', async () => {
    const tenant = await makeTenant(t.ctx);
    const result = await sync(tenant, pizzeria);
    assert.equal(result.object, 'menu_sync');
    assert.equal(result.mode, 'merge');
    assert.equal(result.dry_run, false);
    assert.equal(result.changed, true);
    assert.deepEqual(result.counts, {
      categories: { created: 2, updated: 0, deleted: 0, unchanged: 0 },
      products: { created: 3, updated: 0, deleted: 0, unchanged: 0 },
      option_groups: { created: 2, updated: 0, deleted: 0, unchanged: 0 },
      options: { created: 4, updated: 0, deleted: 0, unchanged: 0 },
    });
    assert.deepEqual(result.warnings, []);
    assert.deepEqual(Object.keys(result.ids.options), ['o-cheese', 'o-olives', 'o-thin', 'o-thick']);

    const stored = await menu(tenant);
    assert.deepEqual(
      stored.categories.map((c) => [c.external_id, c.position, c.id]),
      [
        ['cat-pizza', 0, result.ids.categories['cat-pizza']],
        ['cat-drinks', 1, result.ids.categories['cat-drinks']],
      ],
    );
    const margherita = byExternalId(stored.products, 'p-margherita');
    assert.equal(margherita.id, result.ids.products['p-margherita']);
    assert.equal(margherita.category_id, result.ids.categories['cat-pizza']);
    assert.deepEqual(margherita.allergens, ['gluten', 'milk']);
    assert.equal(margherita.position, 0);
    assert.equal(byExternalId(stored.products, 'p-salami').position, 1);
    assert.equal(byExternalId(stored.products, 'p-cola').position, 0, 'first of its category');
    assert.equal(byExternalId(stored.products, 'p-cola').available, false);
    assert.deepEqual(byExternalId(stored.products, 'p-cola').tax_rates, {
      dine_in_bps: 1900,
      takeaway_bps: 1900,
    });
    // Own groups first, then shared ones.
    assert.deepEqual(margherita.option_group_ids, [
      result.ids.option_groups['g-crust'],
      result.ids.option_groups['g-extras'],
    ]);
    const crust = byExternalId(stored.option_groups, 'g-crust');
    assert.equal(crust.product_id, margherita.id);
    assert.deepEqual(
      crust.options.map((o: Record<string, unknown>) => [o.name, o.position]),
      [
        ['Thin', 0],
        ['Thick', 1],
      ],
    );

    const events = await feedAll(t, tenant.token, '&types=menu.*');
    assert.deepEqual(
      events.map((event) => event.type),
      ['menu.synced'],
      'no per-object events',
    );
    assert.deepEqual(events[0]?.data.object, {
      object: 'menu_sync',
      connection_id: tenant.connectionId,
      mode: 'merge',
      counts: result.counts,
    });
  });

  test('the same sync again changes nothing: no updated_at moves, no event', async () => {
    const tenant = await makeTenant(t.ctx);
    await sync(tenant, pizzeria);
    const first = await menu(tenant);
    t.clock.advance(60_000);
    const again = await sync(tenant, pizzeria);
    assert.equal(again.changed, false);
    assert.deepEqual(again.counts.products, { created: 0, updated: 0, deleted: 0, unchanged: 3 });
    assert.deepEqual(again.counts.options, { created: 0, updated: 0, deleted: 0, unchanged: 4 });
    assert.deepEqual(await menu(tenant), first);
    assert.deepEqual(await eventTypes(tenant), ['menu.synced']);
  });

  test('omitted fields stay unchanged, null clears, a new object goes last in its scope', async () => {
    const tenant = await makeTenant(t.ctx);
    await sync(tenant, pizzeria);
    const before = await menu(tenant);
    t.clock.advance(60_000);
    const result = await sync(tenant, {
      mode: 'merge',
      categories: [{ external_id: 'cat-dessert', name: 'Dessert' }],
      products: [
        {
          external_id: 'p-margherita',
          name: 'Margherita',
          price: 950,
          description: null,
          category_external_id: null,
        },
        { external_id: 'p-hawaii', name: 'Hawaii', price: 1100, category_external_id: 'cat-pizza' },
      ],
    });
    assert.deepEqual(result.counts.products, { created: 1, updated: 1, deleted: 0, unchanged: 0 });
    const stored = await menu(tenant);
    assert.equal(byExternalId(stored.categories, 'cat-dessert').position, 2);
    const margherita = byExternalId(stored.products, 'p-margherita');
    assert.equal(margherita.price, 950);
    assert.equal(margherita.description, null);
    assert.equal(margherita.category_id, null);
    assert.deepEqual(margherita.allergens, ['gluten', 'milk'], 'omitted: unchanged');
    assert.equal(margherita.option_group_ids.length, 2, 'omitted links: unchanged');
    // Margherita left the pizza category: Hawaii goes after Salami (position 1).
    assert.equal(byExternalId(stored.products, 'p-hawaii').position, 2);
    assert.equal(byExternalId(stored.products, 'p-salami').position, 1, 'untouched');
    assert.equal(margherita.updated_at, t.clock.now().toISOString());
    assert.equal(
      byExternalId(stored.products, 'p-salami').updated_at,
      byExternalId(before.products, 'p-salami').updated_at,
    );
  });

  test('a product’s updated_at moves with its option groups', async () => {
    const tenant = await makeTenant(t.ctx);
    await sync(tenant, pizzeria);
    const before = await menu(tenant);
    t.clock.advance(60_000);
    const result = await sync(tenant, {
      mode: 'merge',
      option_groups: [{ external_id: 'g-extras', name: 'Toppings' }],
    });
    assert.deepEqual(result.counts.option_groups, { created: 0, updated: 1, deleted: 0, unchanged: 0 });
    assert.deepEqual(result.counts.options, { created: 0, updated: 0, deleted: 0, unchanged: 0 });
    assert.equal(result.counts.products.updated, 2, 'the two products linking the group');
    const after = await menu(tenant);
    for (const key of ['p-margherita', 'p-salami'])
      assert.notEqual(
        byExternalId(after.products, key).updated_at,
        byExternalId(before.products, key).updated_at,
      );
    assert.equal(
      byExternalId(after.products, 'p-cola').updated_at,
      byExternalId(before.products, 'p-cola').updated_at,
    );
    assert.equal(byExternalId(after.option_groups, 'g-extras').options.length, 2, 'options left out: kept');
  });

  test('an option listed in another group moves there; a group made product-only leaves the products linking it', async () => {
    const tenant = await makeTenant(t.ctx);
    const first = await sync(tenant, pizzeria);
    await sync(tenant, {
      mode: 'merge',
      option_groups: [
        {
          external_id: 'g-extras',
          name: 'Extras',
          product_external_id: 'p-salami',
          options: [{ external_id: 'o-thick', name: 'Thick', price_delta: 50 }],
        },
      ],
    });
    const stored = await menu(tenant);
    const extras = byExternalId(stored.option_groups, 'g-extras');
    assert.deepEqual(
      extras.options.map((o: Record<string, unknown>) => o.external_id),
      ['o-cheese', 'o-olives', 'o-thick'],
    );
    assert.deepEqual(
      byExternalId(stored.option_groups, 'g-crust').options.map(
        (o: Record<string, unknown>) => o.external_id,
      ),
      ['o-thin'],
    );
    assert.deepEqual(byExternalId(stored.products, 'p-margherita').option_group_ids, [
      first.ids.option_groups['g-crust'],
    ]);
    assert.deepEqual(byExternalId(stored.products, 'p-salami').option_group_ids, [
      first.ids.option_groups['g-extras'],
    ]);
  });
});

describe('replace', () => {
  test('deletes the caller’s objects the body leaves out, with what goes with them', async () => {
    const tenant = await makeTenant(t.ctx);
    const first = await sync(tenant, pizzeria);
    // Objects the app did not key: a product in the pizza category and an option in the extras group.
    const ownerProduct = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Calzone',
      price: 1200,
      category_id: first.ids.categories['cat-pizza'],
    });
    await ok(t, tenant.token, 'POST', `/menu/option-groups/${first.ids.option_groups['g-extras']}/options`, {
      name: 'Basil',
      price_delta: 20,
    });
    const result = await sync(tenant, {
      mode: 'replace',
      categories: [{ external_id: 'cat-drinks', name: 'Drinks', tax_class: 'drink' }],
      products: [
        {
          external_id: 'p-cola',
          name: 'Cola',
          category_external_id: 'cat-drinks',
          price: 300,
          available: true,
        },
      ],
      option_groups: [],
    });
    assert.deepEqual(result.counts.categories, { created: 0, updated: 0, deleted: 1, unchanged: 1 });
    assert.deepEqual(result.counts.products, { created: 0, updated: 2, deleted: 2, unchanged: 0 });
    assert.deepEqual(result.counts.option_groups, { created: 0, updated: 0, deleted: 2, unchanged: 0 });
    assert.deepEqual(result.counts.options, { created: 0, updated: 0, deleted: 5, unchanged: 0 });
    assert.deepEqual(
      result.warnings.map((w: { code: string }) => w.code),
      ['unmanaged_options_deleted'],
    );
    const stored = await menu(tenant);
    assert.deepEqual(
      stored.categories.map((c) => c.external_id),
      ['cat-drinks'],
    );
    assert.deepEqual(stored.products.map((p) => [p.name, p.category_id]).sort(), [
      ['Calzone', null],
      ['Cola', first.ids.categories['cat-drinks']],
    ]);
    assert.equal(byExternalId(stored.products, 'p-cola').available, true, 'sent: available again');
    assert.equal(stored.option_groups.length, 0);
    assert.ok(
      stored.products.some((p) => p.id === ownerProduct.id),
      'not the caller’s: kept',
    );
  });

  test('kinds left out of the body are untouched; references name objects of the body', async () => {
    const tenant = await makeTenant(t.ctx);
    await sync(tenant, pizzeria);
    const unchanged = await menu(tenant);
    const res = await request(t, tenant.token, 'PUT', '/menu', {
      mode: 'replace',
      categories: [{ external_id: 'cat-drinks', name: 'Drinks' }],
      products: [{ external_id: 'p-salami', name: 'Salami', price: 1050, category_external_id: 'cat-pizza' }],
    });
    assertError(res, 400, 'invalid_request', 'products[0].category_external_id');
    assert.deepEqual(await menu(tenant), unchanged);

    const result = await sync(tenant, {
      mode: 'replace',
      categories: [
        { external_id: 'cat-pizza', name: 'Pizza', tax_class: 'food' },
        { external_id: 'cat-drinks', name: 'Drinks', tax_class: 'drink' },
      ],
    });
    assert.equal(result.changed, false);
    assert.deepEqual(await menu(tenant), unchanged);
  });

  test('another app’s objects are never deleted or changed by it', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await connectAnotherApp(t.ctx, tenant);
    await sync(other, pizzeria);
    const result = await sync(tenant, { mode: 'replace', categories: [], products: [], option_groups: [] });
    assert.equal(result.changed, false);
    const stored = await menu(other);
    assert.equal(stored.products.length, 3);
    assert.equal(stored.categories.length, 2);
  });
});

describe('replace: what goes with a deleted product, and what stays', () => {
  test('a deleted product takes its own groups (any app’s, with a warning); a group sent without options keeps them', async () => {
    const tenant = await makeTenant(t.ctx);
    const first = await sync(tenant, pizzeria);
    // A group of the owner's on the Salami, with an option.
    const ownerGroup = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
      name: 'Chili',
      product_id: first.ids.products['p-salami'],
    });
    await ok(t, tenant.token, 'POST', `/menu/option-groups/${ownerGroup.id}/options`, {
      name: 'Hot',
      price_delta: 0,
    });
    const result = await sync(tenant, {
      mode: 'replace',
      products: pizzeria.products.filter((product) => product.external_id !== 'p-salami'),
      option_groups: pizzeria.option_groups.map(({ options: _, ...group }) => group),
    });
    assert.deepEqual(result.counts.products, { created: 0, updated: 0, deleted: 1, unchanged: 2 });
    assert.deepEqual(result.counts.option_groups, { created: 0, updated: 0, deleted: 1, unchanged: 2 });
    assert.deepEqual(result.counts.options, { created: 0, updated: 0, deleted: 1, unchanged: 0 });
    assert.deepEqual(result.warnings.map((warning: { code: string }) => warning.code).sort(), [
      'unmanaged_option_groups_deleted',
      'unmanaged_options_deleted',
    ]);
    const stored = await menu(tenant);
    assert.equal(
      stored.option_groups.find((group) => group.id === ownerGroup.id),
      undefined,
      'the owner’s group went with its product',
    );
    assert.deepEqual(
      byExternalId(stored.option_groups, 'g-extras').options.map((option) => option.external_id),
      ['o-cheese', 'o-olives'],
      'sent without options: kept',
    );
  });

  test('a group the body keeps on a product the sync deletes → 400 on its product_external_id', async () => {
    const tenant = await makeTenant(t.ctx);
    await sync(tenant, pizzeria);
    const before = await menu(tenant);
    const res = await request(t, tenant.token, 'PUT', '/menu', {
      mode: 'replace',
      products: [pizzeria.products[1]],
      option_groups: [{ external_id: 'g-crust', name: 'Crust' }],
    });
    assertError(res, 400, 'invalid_request', 'option_groups[0].product_external_id');
    assert.deepEqual(await menu(tenant), before);
  });
});

describe('sold out until a time', () => {
  test('a sync’s available: false keeps an end time set before; available: true clears it', async () => {
    const tenant = await makeTenant(t.ctx);
    const first = await sync(tenant, pizzeria);
    const until = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    await ok(t, tenant.token, 'PATCH', `/menu/products/${first.ids.products['p-cola']}`, {
      available: false,
      unavailable_until: until,
    });
    const kept = await sync(tenant, pizzeria);
    assert.equal(kept.changed, false);
    const cola = () => ok(t, tenant.token, 'GET', `/menu/products/${first.ids.products['p-cola']}`);
    assert.equal((await cola()).unavailable_until, until);
    const back = await sync(tenant, {
      mode: 'merge',
      products: [{ ...pizzeria.products[2], available: true }],
    });
    assert.equal(back.counts.products.updated, 1);
    assert.deepEqual([(await cola()).available, (await cola()).unavailable_until], [true, null]);
  });
});

describe('dry run', () => {
  test('reports what would change, changes nothing, emits nothing; ids only of existing objects', async () => {
    const tenant = await makeTenant(t.ctx);
    await sync(tenant, { mode: 'merge', categories: [{ external_id: 'cat-pizza', name: 'Pizza' }] });
    const before = await menu(tenant);
    const result = await sync(tenant, { ...pizzeria, mode: 'replace', dry_run: true });
    assert.equal(result.dry_run, true);
    assert.equal(result.changed, true);
    assert.deepEqual(result.counts.categories, { created: 1, updated: 1, deleted: 0, unchanged: 0 });
    assert.deepEqual(result.counts.products.created, 3);
    assert.deepEqual(Object.keys(result.ids.categories), ['cat-pizza']);
    assert.deepEqual(result.ids.products, {});
    assert.deepEqual(await menu(tenant), before);
    assert.deepEqual(await eventTypes(tenant), ['menu.synced']);
  });
});

describe('bad input changes nothing', () => {
  const cases: [string, (body: typeof pizzeria) => unknown, number, string, string | undefined][] = [
    [
      'unknown category',
      (b) => ({ ...b, products: [{ ...b.products[0], category_external_id: 'nope' }] }),
      400,
      'invalid_request',
      'products[0].category_external_id',
    ],
    [
      'unknown product of a group',
      (b) => ({
        ...b,
        option_groups: [b.option_groups[0], { ...b.option_groups[1], product_external_id: 'nope' }],
      }),
      400,
      'invalid_request',
      'option_groups[1].product_external_id',
    ],
    [
      'unknown option group',
      (b) => ({
        ...b,
        products: [b.products[0], { ...b.products[1], option_group_external_ids: ['g-extras', 'nope'] }],
      }),
      400,
      'invalid_request',
      'products[1].option_group_external_ids[1]',
    ],
    [
      'another product’s own group',
      (b) => ({
        ...b,
        products: [b.products[0], { ...b.products[1], option_group_external_ids: ['g-crust'] }],
      }),
      400,
      'invalid_request',
      'products[1].option_group_external_ids[0]',
    ],
    [
      'repeated external_id',
      (b) => ({ ...b, products: [b.products[0], { ...b.products[1], external_id: 'p-margherita' }] }),
      400,
      'invalid_request',
      'products[1].external_id',
    ],
    [
      'repeated option external_id across groups',
      (b) => ({
        ...b,
        option_groups: [
          b.option_groups[0],
          { ...b.option_groups[1], options: [{ external_id: 'o-cheese', name: 'x', price_delta: 0 }] },
        ],
      }),
      400,
      'invalid_request',
      'option_groups[1].options[0].external_id',
    ],
    [
      'external_id with outer space',
      (b) => ({ ...b, products: [{ ...b.products[0], external_id: ' p-1' }] }),
      400,
      'invalid_request',
      'products[0].external_id',
    ],
    [
      'external_id with a control character',
      (b) => ({ ...b, categories: [{ external_id: 'cat\u0007', name: 'x' }] }),
      400,
      'invalid_request',
      'categories[0].external_id',
    ],
    [
      'name over its limit',
      (b) => ({ ...b, products: [{ ...b.products[0], name: 'x'.repeat(201) }] }),
      400,
      'invalid_request',
      'products[0].name',
    ],
    [
      'blank name',
      (b) => ({ ...b, categories: [{ external_id: 'c', name: '   ' }] }),
      400,
      'invalid_request',
      'categories[0].name',
    ],
    [
      'option name over its limit',
      (b) => ({
        ...b,
        option_groups: [
          { ...b.option_groups[0], options: [{ external_id: 'o', name: 'x'.repeat(121), price_delta: 0 }] },
        ],
      }),
      400,
      'invalid_request',
      'option_groups[0].options[0].name',
    ],
    [
      'min_select above max_select',
      (b) => ({ ...b, option_groups: [{ ...b.option_groups[0], min_select: 4 }] }),
      400,
      'invalid_request',
      'option_groups[0].min_select',
    ],
    [
      'unknown tax class',
      (b) => ({ ...b, categories: [{ external_id: 'c', name: 'x', tax_class: 'tobacco' }] }),
      400,
      'invalid_request',
      'categories[0].tax_class',
    ],
    [
      '35 allergens',
      (b) => ({
        ...b,
        products: [{ ...b.products[0], allergens: Array.from({ length: 35 }, (_, i) => `a${i}`) }],
      }),
      400,
      'invalid_request',
      'products[0].allergens',
    ],
    [
      '21 own allergen labels',
      (b) => ({
        ...b,
        products: [{ ...b.products[0], allergens: Array.from({ length: 21 }, (_, i) => `own ${i}`) }],
      }),
      400,
      'invalid_request',
      'products[0].allergens',
    ],
    [
      'malformed image URL',
      (b) => ({ ...b, products: [{ ...b.products[0], image_url: 'not a url' }] }),
      400,
      'invalid_request',
      'products[0].image_url',
    ],
    [
      'unknown field',
      (b) => ({ ...b, products: [{ ...b.products[0], colour: 'red' }] }),
      400,
      'invalid_request',
      'products[0].colour',
    ],
    ['no mode', (b) => ({ categories: b.categories }), 400, 'invalid_request', 'mode'],
    [
      'a new product without price',
      (b) => ({ ...b, products: [b.products[0], { ...b.products[1], price: undefined }] }),
      400,
      'invalid_request',
      'products[1].price',
    ],
    [
      'a new product without name',
      (b) => ({ ...b, products: [{ ...b.products[0], name: undefined }] }),
      400,
      'invalid_request',
      'products[0].name',
    ],
    [
      'a new option group without name',
      (b) => ({ ...b, option_groups: [b.option_groups[0], { ...b.option_groups[1], name: undefined }] }),
      400,
      'invalid_request',
      'option_groups[1].name',
    ],
    [
      'a new option without price_delta',
      (b) => ({
        ...b,
        option_groups: [
          { ...b.option_groups[0], options: [{ external_id: 'o-new', name: 'New' }] },
          b.option_groups[1],
        ],
      }),
      400,
      'invalid_request',
      'option_groups[0].options[0].price_delta',
    ],
    [
      'a new option without name',
      (b) => ({
        ...b,
        option_groups: [
          b.option_groups[0],
          { ...b.option_groups[1], options: [{ external_id: 'o-new', price_delta: 0 }] },
        ],
      }),
      400,
      'invalid_request',
      'option_groups[1].options[0].name',
    ],
    [
      // The spec's body: a category's name is required, for one that exists too.
      'a category without name, also an existing one',
      (b) => ({ ...b, categories: [{ external_id: 'cat-old' }] }),
      400,
      'invalid_request',
      'categories[0].name',
    ],
    [
      '201 categories',
      (b) => ({
        ...b,
        categories: Array.from({ length: 201 }, (_, i) => ({ external_id: `c${i}`, name: `C${i}` })),
      }),
      422,
      'limit_exceeded',
      'categories',
    ],
  ];
  for (const [name, mutate, status, code, param] of cases)
    test(`${name} → ${status} ${code} on ${param}`, async () => {
      const tenant = await makeTenant(t.ctx);
      await sync(tenant, { mode: 'merge', categories: [{ external_id: 'cat-old', name: 'Old' }] });
      const before = await menu(tenant);
      assertError(
        await request(t, tenant.token, 'PUT', '/menu', mutate(structuredClone(pizzeria))),
        status,
        code,
        param,
      );
      assert.deepEqual(await menu(tenant), before);
      assert.deepEqual(await eventTypes(tenant), ['menu.synced']);
    });

  test('20,001 options → 422 limit_exceeded; 5,001 products and 2,001 option groups too', async () => {
    const tenant = await makeTenant(t.ctx);
    const options = (group: number) =>
      Array.from({ length: 1000 }, (_, i) => ({ external_id: `o${group}-${i}`, name: 'o', price_delta: 0 }));
    const groups = Array.from({ length: 21 }, (_, g) => ({
      external_id: `g${g}`,
      name: 'g',
      options: options(g),
    }));
    groups[20] = {
      ...groups[20],
      options: (groups[20] as { options: unknown[] }).options.slice(0, 1),
    } as never;
    assertError(
      await request(t, tenant.token, 'PUT', '/menu', { mode: 'merge', option_groups: groups }),
      422,
      'limit_exceeded',
      'option_groups',
    );
    const products = Array.from({ length: 5001 }, (_, i) => ({ external_id: `p${i}`, name: 'p', price: 1 }));
    assertError(
      await request(t, tenant.token, 'PUT', '/menu', { mode: 'merge', products }),
      422,
      'limit_exceeded',
      'products',
    );
    const manyGroups = Array.from({ length: 2001 }, (_, g) => ({ external_id: `g${g}`, name: 'g' }));
    assertError(
      await request(t, tenant.token, 'PUT', '/menu', { mode: 'merge', option_groups: manyGroups }),
      422,
      'limit_exceeded',
      'option_groups',
    );
    assert.equal((await menu(tenant)).option_groups.length, 0);
  });
});

describe('external ids are per app (issue 26, item 1)', () => {
  test('a second app syncing the first app’s external_ids creates its own objects; neither touches the other’s', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await connectAnotherApp(t.ctx, tenant);
    const first = await sync(tenant, pizzeria);
    const ownOf = async (app: Tenant) => {
      const { categories, products, option_groups } = await menu(app);
      const own = <T extends { external_id: string | null }>(objects: T[]) =>
        objects.filter((object) => object.external_id !== null);
      return { categories: own(categories), products: own(products), option_groups: own(option_groups) };
    };
    const firstBefore = await ownOf(tenant);

    t.clock.advance(60_000);
    const second = await sync(other, pizzeria);
    assert.deepEqual(second.counts, first.counts, 'all created: none of them is the second app’s yet');
    for (const kind of ['categories', 'products', 'option_groups', 'options'] as const)
      for (const [externalId, id] of Object.entries(second.ids[kind] as Record<string, string>))
        assert.notEqual(id, first.ids[kind][externalId], `${kind} ${externalId}`);
    assert.deepEqual(await ownOf(tenant), firstBefore, 'the first app’s objects unchanged');
    const stored = await menu(tenant);
    assert.equal(stored.categories.length, 4);
    assert.equal(stored.products.length, 6);
    // Each app sees only its own values, and each product its own app's groups.
    const secondOwn = await ownOf(other);
    assert.deepEqual(
      secondOwn.products.map((product) => product.id).sort(),
      Object.values(second.ids.products).sort(),
    );
    assert.deepEqual(byExternalId(secondOwn.products, 'p-margherita').option_group_ids, [
      second.ids.option_groups['g-crust'],
      second.ids.option_groups['g-extras'],
    ]);

    // The second app's replace keeps one category and one product: only its own others go.
    t.clock.advance(60_000);
    const narrowed = await sync(other, {
      mode: 'replace',
      categories: [pizzeria.categories[0]],
      products: [{ external_id: 'p-salami', name: 'Salami', category_external_id: 'cat-pizza', price: 1050 }],
      option_groups: [],
    });
    assert.deepEqual(narrowed.counts.categories, { created: 0, updated: 0, deleted: 1, unchanged: 1 });
    assert.deepEqual(narrowed.counts.products.deleted, 2);
    assert.deepEqual(narrowed.counts.option_groups.deleted, 2);
    assert.deepEqual(narrowed.counts.options.deleted, 4);
    assert.deepEqual(narrowed.warnings, []);
    assert.deepEqual(await ownOf(tenant), firstBefore, 'the first app’s objects unchanged');

    // And the first app's replace of everything leaves the second app's objects.
    const secondBefore = await ownOf(other);
    t.clock.advance(60_000);
    const emptied = await sync(tenant, { mode: 'replace', categories: [], products: [], option_groups: [] });
    assert.deepEqual(emptied.counts.categories.deleted, 2);
    assert.deepEqual(emptied.counts.products.deleted, 3);
    assert.deepEqual(await ownOf(other), secondBefore, 'the second app’s objects unchanged');
    assert.deepEqual(await ownOf(tenant), { categories: [], products: [], option_groups: [] });
  });

  test('a merge by the second app updates its own object, never the first app’s of the same external_id', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await connectAnotherApp(t.ctx, tenant);
    const first = await sync(tenant, pizzeria);
    await sync(other, { mode: 'merge', products: [{ external_id: 'p-salami', name: 'Salami', price: 1 }] });
    const result = await sync(other, {
      mode: 'merge',
      products: [{ external_id: 'p-salami', name: 'Salami piccante', price: 1200 }],
    });
    assert.deepEqual(result.counts.products, { created: 0, updated: 1, deleted: 0, unchanged: 0 });
    const salami = await ok(t, tenant.token, 'GET', `/menu/products/${first.ids.products['p-salami']}`);
    assert.deepEqual([salami.name, salami.price, salami.external_id], ['Salami', 1050, 'p-salami']);
    const theirs = await ok(t, other.token, 'GET', `/menu/products/${result.ids.products['p-salami']}`);
    assert.deepEqual([theirs.name, theirs.price, theirs.external_id], ['Salami piccante', 1200, 'p-salami']);
    // Each app's filter finds its own object.
    for (const [app, id] of [
      [tenant, first.ids.products['p-salami']],
      [other, result.ids.products['p-salami']],
    ] as const)
      assert.deepEqual(
        (await ok(t, app.token, 'GET', '/menu/products?external_id=p-salami')).data.map(
          (product: { id: string }) => product.id,
        ),
        [id],
      );
  });
});

describe('a merge names existing objects with the fields that change (issue 26, item 2)', () => {
  test('an existing option without price_delta, a product without name and price, a group without name: the rest stays', async () => {
    const tenant = await makeTenant(t.ctx);
    await sync(tenant, pizzeria);
    const before = await menu(tenant);
    t.clock.advance(60_000);
    const result = await sync(tenant, {
      mode: 'merge',
      products: [{ external_id: 'p-margherita', available: false }],
      option_groups: [
        {
          external_id: 'g-extras',
          max_select: 2,
          options: [
            { external_id: 'o-cheese', available: false },
            { external_id: 'o-olives', name: 'Black olives' },
          ],
        },
      ],
    });
    assert.deepEqual(result.counts.products.updated, 2, 'Margherita, and Salami with its group');
    assert.deepEqual(result.counts.option_groups, { created: 0, updated: 1, deleted: 0, unchanged: 0 });
    assert.deepEqual(result.counts.options, { created: 0, updated: 2, deleted: 0, unchanged: 0 });
    const after = await menu(tenant);
    const margherita = byExternalId(after.products, 'p-margherita');
    assert.deepEqual(
      { ...margherita, available: true, updated_at: null },
      { ...byExternalId(before.products, 'p-margherita'), updated_at: null },
      'only available changed',
    );
    assert.equal(margherita.available, false);
    const extras = byExternalId(after.option_groups, 'g-extras');
    assert.deepEqual([extras.name, extras.min_select, extras.max_select], ['Extras', 0, 2]);
    const cheese = byExternalId(extras.options, 'o-cheese');
    const olives = byExternalId(extras.options, 'o-olives');
    assert.deepEqual([cheese.name, cheese.price_delta, cheese.available], ['Cheese', 150, false]);
    assert.deepEqual([olives.name, olives.price_delta, olives.available], ['Black olives', 100, true]);
  });

  test('a new option among existing ones without price_delta → 400 on it; nothing changes', async () => {
    const tenant = await makeTenant(t.ctx);
    await sync(tenant, pizzeria);
    const before = await menu(tenant);
    const body = {
      mode: 'merge',
      option_groups: [
        {
          external_id: 'g-extras',
          options: [
            { external_id: 'o-cheese', available: false },
            { external_id: 'o-olives', name: 'Black olives' },
            { external_id: 'o-onions', name: 'Onions' },
          ],
        },
      ],
    };
    for (const dryRun of [true, false])
      assertError(
        await request(t, tenant.token, 'PUT', '/menu', { ...body, dry_run: dryRun }),
        400,
        'invalid_request',
        'option_groups[0].options[2].price_delta',
      );
    assert.deepEqual(await menu(tenant), before);
    assert.deepEqual(await eventTypes(tenant), ['menu.synced']);
  });
});

describe('limits of the operation', () => {
  test('a body up to 2 MB, counted in bytes, is read; one byte more → 413 payload_too_large', async () => {
    const tenant = await makeTenant(t.ctx);
    const limit = 2 * 1024 * 1024;
    const frame = (filler: string) => `{"mode":"merge","x":"${filler}"}`;
    const fits = frame('a'.repeat(limit - frame('').length));
    assert.equal(Buffer.byteLength(fits), limit);
    const put = (payload: string) =>
      t.app.inject({
        method: 'PUT',
        url: '/v1/menu',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        payload,
      });
    // Read, and refused for its unknown field, not for its size.
    assertError(await put(fits), 400, 'invalid_request', 'x');
    // The same number of characters, one of them two bytes long.
    assertError(await put(fits.replace('"x":"a', '"x":"ü')), 413, 'payload_too_large', undefined);
  });

  test('10 syncs a minute per connection, then 429 rate_limited with Retry-After; reads go on', async () => {
    const tenant = await makeTenant(t.ctx);
    const body = { mode: 'merge', categories: [{ external_id: 'c', name: 'C' }] };
    for (let i = 0; i < 10; i += 1) await sync(tenant, { ...body, dry_run: i % 2 === 0 });
    const res = await request(t, tenant.token, 'PUT', '/menu', body);
    assertError(res, 429, 'rate_limited', undefined);
    assert.ok(Number(res.headers['retry-after']) > 0);
    await menu(tenant);
    const other = await connectAnotherApp(t.ctx, tenant);
    await sync(other, { mode: 'merge', categories: [{ external_id: 'd', name: 'D' }] });
  });
});
