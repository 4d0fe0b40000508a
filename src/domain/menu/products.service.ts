import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid, newId } from '../shared/ids.ts';
import { inPageOrder, type PageRange } from '../shared/paging.ts';
import { checkedText } from '../store/floor-input.ts';
import { normalizeAllergens, normalizeDiets } from './label-rules.ts';
import {
  type Deleted,
  maxProductName,
  type Product,
  type ProductInput,
  type ProductPatch,
  productFields,
  type TaxClass,
  type TaxRates,
} from './menu.schema.ts';
import { acceptedImageUrl, maxTestRestaurantImages, productImages, takeImages } from './menu-images.ts';
import {
  changedFields,
  checkExternalIdFree,
  countProductRemoval,
  externalIdChanged,
  externalIdWrite,
  knownId,
  lockMenu,
  nextPosition,
  orTaken,
  recordMenuEvent,
  shownExternalId,
  updateOrder,
  viewerApp,
} from './menu-writes.ts';
import { dropGroupsOfProduct } from './option-group-rows.ts';
import { soldOutState } from './sold-out-until.ts';
import { taxRatesIn } from './tax-rates.ts';

const noProduct = (id: string) => new ApiError('not_found', `This restaurant has no product ${id}.`);

/**
 * The restaurant's products with what the resource resolves: the category's tax class (for
 * tax_rates) and option_group_ids, the product's own groups first, then the shared ones it links,
 * each in order; and its hosted image, the restaurant's image row of its image_url (found by the
 * URL's hash: menu-images.ts).
 */
function productsOf(ctx: Ctx) {
  // Looked up per product (by primary key), so the plan does not hang on the tables' statistics:
  // right after a sync of thousands of products they do not know the rows yet. Each subquery
  // names the restaurant itself, so that Citus sends the statement to its node alone.
  const tenantId = tenantOf(ctx);
  return ctx.db
    .selectFrom('menu_products as p')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('menu_images as i')
          .select(['i.status as image_status', 'i.sizes as image_sizes', 'i.error as image_error'])
          .where('i.tenant_id', '=', tenantId)
          .whereRef('i.tenant_id', '=', 'p.tenant_id')
          .where('p.image_url', 'is not', null)
          .where('i.url_hash', '=', sql<string>`encode(sha256(convert_to(p.image_url, 'UTF8')), 'hex')`)
          .as('i'),
      (join) => join.onTrue(),
    )
    .selectAll('p')
    .select(['i.image_status', 'i.image_sizes', 'i.image_error'])
    .select(
      sql<TaxClass | null>`(SELECT c.tax_class FROM menu_categories c
        WHERE c.tenant_id = ${tenantId} AND c.id = p.category_id)`.as('category_tax_class'),
    )
    .select(
      sql<string[]>`array(
        SELECT g.id::text FROM menu_option_groups g
        WHERE g.tenant_id = ${tenantId} AND g.product_id = p.id ORDER BY g.position, g.id
      ) || array(
        SELECT l.group_id::text FROM menu_product_option_groups l
        WHERE l.tenant_id = ${tenantId} AND l.product_id = p.id ORDER BY l.position, l.group_id
      )`.as('option_group_ids'),
    )
    .where('p.tenant_id', '=', tenantId);
}

type ProductRow = NonNullable<Awaited<ReturnType<ReturnType<typeof productsOf>['executeTakeFirst']>>>;
type StoredProduct = Omit<
  ProductRow,
  'category_tax_class' | 'option_group_ids' | 'image_status' | 'image_sizes' | 'image_error'
>;

function productOf(row: ProductRow, viewer: string | null, taxRates: TaxRates): Product {
  return {
    object: 'product',
    id: row.id,
    external_id: shownExternalId(row, viewer),
    category_id: row.category_id,
    name: row.name,
    description: row.description,
    price: row.price,
    available: row.available,
    unavailable_until: row.unavailable_until,
    position: row.position,
    allergens: row.allergens,
    diets: row.diets,
    image_url: row.image_url,
    images: productImages(row),
    tax_class: row.tax_class,
    tax_rates: taxRates,
    option_group_ids: row.option_group_ids,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The Products of rows, the tax class being the product's, else its category's, else food. */
async function productsFrom(
  ctx: Ctx,
  rows: readonly ProductRow[],
  viewer: string | null,
): Promise<Product[]> {
  if (rows.length === 0) return [];
  const ratesOf = await taxRatesIn(ctx);
  return rows.map((row) =>
    productOf(row, viewer, ratesOf(row.tax_class ?? row.category_tax_class ?? 'food')),
  );
}

export interface ProductFilters {
  /** Category ids, or `none` for products without a category (any of them). */
  category_id?: string[];
  available?: boolean;
  /** The caller's own external_id. */
  external_id?: string;
  /** Changed after this instant (exclusive). */
  updated_since?: Date;
}

/** The `category_id` filter: a comma list of ids and `none`; anything else is a 400 on it. */
export function parseCategoryFilter(text: string): string[] {
  const items = text.split(',');
  for (const item of items) {
    if (item !== 'none' && !isUuid(item))
      throw new ApiError('invalid_request', `category_id lists category ids or none, not "${item}".`, {
        param: 'category_id',
      });
  }
  return items;
}

/** The products matching `filters`, least recently changed first, after `page.after`. */
export async function listProducts(ctx: Ctx, filters: ProductFilters, page: PageRange): Promise<Product[]> {
  const viewer = await viewerApp(ctx);
  let query = productsOf(ctx);
  if (filters.category_id !== undefined) {
    const ids = filters.category_id.filter((item) => item !== 'none');
    const none = ids.length < filters.category_id.length;
    query = query.where((eb) =>
      eb.or([
        ...(none ? [eb('p.category_id', 'is', null)] : []),
        ...(ids.length > 0 ? [eb('p.category_id', 'in', ids)] : []),
      ]),
    );
  }
  if (filters.available !== undefined) query = query.where('p.available', '=', filters.available);
  if (filters.external_id !== undefined) {
    if (viewer === null) return [];
    query = query.where('p.external_id', '=', filters.external_id).where('p.external_id_app_id', '=', viewer);
  }
  if (filters.updated_since !== undefined) query = query.where('p.updated_at', '>', filters.updated_since);
  return productsFrom(ctx, await inPageOrder(query, updateOrder, page, 'p').execute(), viewer);
}

/** Every product by position (ties by id), for the menu. */
export async function allProducts(ctx: Ctx, viewer: string | null): Promise<Product[]> {
  return productsFrom(ctx, await productsOf(ctx).orderBy('p.position').orderBy('p.id').execute(), viewer);
}

/** The restaurant's products with these ids, by id (for events of writes to many at once). */
export async function productsWithIds(
  ctx: Ctx,
  ids: readonly string[],
  viewer: string | null,
): Promise<Product[]> {
  if (ids.length === 0) return [];
  const rows = await productsOf(ctx)
    .where('p.id', 'in', [...ids])
    .orderBy('p.id')
    .execute();
  return productsFrom(ctx, rows, viewer);
}

async function loadProduct(ctx: Ctx, id: string, viewer: string | null): Promise<Product> {
  const row = await productsOf(ctx).where('p.id', '=', knownId(id, noProduct)).executeTakeFirst();
  if (!row) throw noProduct(id);
  const [product] = await productsFrom(ctx, [row], viewer);
  return product as Product;
}

export async function getProduct(ctx: Ctx, id: string): Promise<Product> {
  return loadProduct(ctx, id, await viewerApp(ctx));
}

/** A category for a product: one of the restaurant's, kept from deletion until the write commits. */
async function checkCategoryForProduct(ctx: Ctx, categoryId: string): Promise<void> {
  const found = isUuid(categoryId)
    ? await ctx.db
        .selectFrom('menu_categories')
        .select('id')
        .where('tenant_id', '=', tenantOf(ctx))
        .where('id', '=', categoryId)
        .forKeyShare()
        .executeTakeFirst()
    : undefined;
  if (!found)
    throw new ApiError('invalid_request', `This restaurant has no category ${categoryId}.`, {
      param: 'category_id',
    });
}

/**
 * A product's new image_url: downloaded before the write's transaction when the API could
 * (ApiRoute.beforeWrite), else queued for the worker (menu-images.ts). A test restaurant that
 * holds its 50 images refuses it: 400 on image_url (spec: the single-product write answers 400).
 */
async function takeProductImage(ctx: Ctx, url: string): Promise<void> {
  const outcomes = await takeImages(ctx, [url]);
  if (outcomes.get(url) === 'capped')
    throw new ApiError(
      'invalid_request',
      `This test restaurant already keeps ${maxTestRestaurantImages} images: no more are downloaded.`,
      { param: 'image_url' },
    );
}

/** A new product; without a position, after the last one of its category. Records menu.product.created. */
export async function createProduct(ctx: Ctx, input: ProductInput): Promise<Product> {
  await lockMenu(ctx);
  const tenantId = tenantOf(ctx);
  const viewer = await viewerApp(ctx);
  const name = checkedText(input.name, 'name', maxProductName);
  const categoryId = input.category_id ?? null;
  if (categoryId !== null) await checkCategoryForProduct(ctx, categoryId);
  const allergens = normalizeAllergens(input.allergens ?? [], 'allergens');
  const diets = normalizeDiets(input.diets ?? [], 'diets');
  const imageUrl = await acceptedImageUrl(ctx, input.image_url ?? null, 'image_url');
  if (imageUrl !== null) await takeProductImage(ctx, imageUrl);
  const sharedGroups =
    input.option_group_ids === undefined ? [] : await checkedGroupLinks(ctx, null, input.option_group_ids);
  const external = externalIdWrite(
    input.external_id,
    { external_id: null, external_id_app_id: null },
    viewer,
  );
  await checkExternalIdFree(ctx, 'menu_products', external, null);
  let position = input.position;
  if (position === undefined) {
    const { max } = await ctx.db
      .selectFrom('menu_products')
      .select((eb) => eb.fn.max('position').as('max'))
      .where('tenant_id', '=', tenantId)
      .where((eb) =>
        categoryId === null ? eb('category_id', 'is', null) : eb('category_id', '=', categoryId),
      )
      .executeTakeFirstOrThrow();
    position = nextPosition(max);
  }
  const now = ctx.clock.now();
  const id = newId();
  await orTaken(
    ctx.db
      .insertInto('menu_products')
      .values({
        tenant_id: tenantId,
        id,
        ...external,
        category_id: categoryId,
        name,
        description: input.description ?? null,
        price: input.price,
        ...soldOutState(
          { available: true, unavailable_until: null },
          { available: input.available, until: input.unavailable_until },
          now,
          'unavailable_until',
        ),
        position,
        allergens,
        diets,
        image_url: imageUrl,
        tax_class: input.tax_class ?? null,
        created_at: now,
        updated_at: now,
      })
      .execute(),
    external.external_id,
  );
  await writeGroupLinks(ctx, id, sharedGroups);
  const product = await loadProduct(ctx, id, viewer);
  await recordMenuEvent(ctx, 'menu.product.created', product);
  return product;
}

/** The stored fields after `patch` (only the sent ones change; null clears). */
async function patched(ctx: Ctx, current: StoredProduct, patch: ProductPatch, viewer: string | null) {
  if (
    patch.category_id !== undefined &&
    patch.category_id !== null &&
    patch.category_id !== current.category_id
  )
    await checkCategoryForProduct(ctx, patch.category_id);
  return {
    ...externalIdWrite(patch.external_id, current, viewer),
    category_id: patch.category_id === undefined ? current.category_id : patch.category_id,
    name: patch.name === undefined ? current.name : checkedText(patch.name, 'name', maxProductName),
    description: patch.description === undefined ? current.description : patch.description,
    price: patch.price ?? current.price,
    ...soldOutState(
      current,
      { available: patch.available, until: patch.unavailable_until },
      ctx.clock.now(),
      'unavailable_until',
    ),
    position: patch.position ?? current.position,
    allergens:
      patch.allergens === undefined ? current.allergens : normalizeAllergens(patch.allergens, 'allergens'),
    diets: patch.diets === undefined ? current.diets : normalizeDiets(patch.diets, 'diets'),
    image_url:
      patch.image_url === undefined
        ? current.image_url
        : await acceptedImageUrl(ctx, patch.image_url, 'image_url'),
    tax_class: patch.tax_class === undefined ? current.tax_class : patch.tax_class,
  };
}

/**
 * Changes the sent fields. A write that changes nothing keeps updated_at and records nothing;
 * otherwise menu.product.updated with changed and previous.
 */
export async function updateProduct(ctx: Ctx, id: string, patch: ProductPatch): Promise<Product> {
  await lockMenu(ctx);
  const viewer = await viewerApp(ctx);
  const current = await ctx.db
    .selectFrom('menu_products')
    .selectAll()
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', knownId(id, noProduct))
    .forUpdate()
    .executeTakeFirst();
  if (!current) throw noProduct(id);
  const next = await patched(ctx, current, patch, viewer);
  if (next.image_url !== null && next.image_url !== current.image_url)
    await takeProductImage(ctx, next.image_url);
  const changed: string[] = changedFields(
    productFields.filter((field) => field !== 'external_id'),
    current,
    next,
  );
  if (externalIdChanged(current, next)) changed.unshift('external_id');
  const before = await loadProduct(ctx, current.id, viewer);
  const sharedGroups =
    patch.option_group_ids === undefined
      ? undefined
      : await checkedGroupLinks(ctx, current.id, patch.option_group_ids);
  if (sharedGroups !== undefined) {
    const own = await ownGroupIds(ctx, current.id);
    if (!isDeepStrictEqual([...own, ...sharedGroups], before.option_group_ids))
      changed.push('option_group_ids');
  }
  if (changed.length === 0) return before;
  if (externalIdChanged(current, next)) await checkExternalIdFree(ctx, 'menu_products', next, current.id);
  await orTaken(
    ctx.db
      .updateTable('menu_products')
      .set({ ...next, updated_at: ctx.clock.now() })
      .where('tenant_id', '=', current.tenant_id)
      .where('id', '=', current.id)
      .execute(),
    next.external_id,
  );
  if (changed.includes('option_group_ids')) await writeGroupLinks(ctx, current.id, sharedGroups ?? []);
  const product = await loadProduct(ctx, current.id, viewer);
  await recordMenuEvent(ctx, 'menu.product.updated', product, {
    changed,
    previous: Object.fromEntries(changed.map((field) => [field, before[field as keyof Product]])),
  });
  return product;
}

/**
 * Deletes the product. Its own option groups go first, each with its options (their deleted events);
 * its links to shared groups go with it. Records menu.product.deleted.
 */
export async function deleteProduct(ctx: Ctx, id: string): Promise<Deleted<'product'>> {
  await lockMenu(ctx);
  const viewer = await viewerApp(ctx);
  const product = await loadProduct(ctx, id, viewer);
  await dropGroupsOfProduct(ctx, product.id, viewer);
  const deleted = await ctx.db
    .deleteFrom('menu_products')
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', product.id)
    .executeTakeFirst();
  if (deleted.numDeletedRows === 0n) throw noProduct(id);
  await countProductRemoval(ctx);
  await recordMenuEvent(ctx, 'menu.product.deleted', product);
  return { object: 'product', id: product.id, deleted: true };
}

/** A category's products move to no category (before it is deleted), each recording menu.product.updated. */
export async function moveProductsOutOf(ctx: Ctx, categoryId: string): Promise<void> {
  const viewer = await viewerApp(ctx);
  const moved = await ctx.db
    .updateTable('menu_products')
    .set({ category_id: null, updated_at: ctx.clock.now() })
    .where('tenant_id', '=', tenantOf(ctx))
    .where('category_id', '=', categoryId)
    .returning('id')
    .execute();
  if (moved.length === 0) return;
  const ids = moved.map((row) => row.id);
  for (const product of await productsWithIds(ctx, ids, viewer)) {
    await recordMenuEvent(ctx, 'menu.product.updated', product, {
      changed: ['category_id'],
      previous: { category_id: categoryId },
    });
  }
}

/*
 * option_group_ids on a product write (the shared groups it uses, in order):
 * - each id names one of the restaurant's groups (else 400 on `option_group_ids[i]`), each once;
 * - a shared group is linked; the product's own group (product_id) is linked by itself and skipped;
 * - another product's own group is refused (it belongs to that product only).
 * The groups are kept from deletion until the write commits.
 */
async function checkedGroupLinks(
  ctx: Ctx,
  productId: string | null,
  ids: readonly string[],
): Promise<string[]> {
  const shared: string[] = [];
  for (const [index, groupId] of ids.entries()) {
    const param = `option_group_ids[${index}]`;
    if (ids.indexOf(groupId) !== index)
      throw new ApiError('invalid_request', `${param} repeats option group ${groupId}.`, { param });
    const group = isUuid(groupId)
      ? await ctx.db
          .selectFrom('menu_option_groups')
          .select('product_id')
          .where('tenant_id', '=', tenantOf(ctx))
          .where('id', '=', groupId)
          .forKeyShare()
          .executeTakeFirst()
      : undefined;
    if (!group)
      throw new ApiError('invalid_request', `This restaurant has no option group ${groupId}.`, { param });
    if (group.product_id === null) shared.push(groupId);
    else if (group.product_id !== productId)
      throw new ApiError(
        'invalid_request',
        `Option group ${groupId} belongs to another product only; link shared groups.`,
        { param },
      );
  }
  return shared;
}

async function ownGroupIds(ctx: Ctx, productId: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('menu_option_groups')
    .select('id')
    .where('tenant_id', '=', tenantOf(ctx))
    .where('product_id', '=', productId)
    .orderBy('position')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/** The product's shared groups become `groupIds`, in that order. */
async function writeGroupLinks(ctx: Ctx, productId: string, groupIds: readonly string[]): Promise<void> {
  const tenantId = tenantOf(ctx);
  await ctx.db
    .deleteFrom('menu_product_option_groups')
    .where('tenant_id', '=', tenantId)
    .where('product_id', '=', productId)
    .execute();
  if (groupIds.length === 0) return;
  await ctx.db
    .insertInto('menu_product_option_groups')
    .values(
      groupIds.map((groupId, position) => ({
        tenant_id: tenantId,
        product_id: productId,
        group_id: groupId,
        position,
      })),
    )
    .execute();
}

/** The option_group_ids of products (for optionGroupsChanged), by product id. */
export async function optionGroupIdsOf(
  ctx: Ctx,
  productIds: readonly string[],
): Promise<Map<string, string[]>> {
  if (productIds.length === 0) return new Map();
  const rows = await productsOf(ctx)
    .where('p.id', 'in', [...productIds])
    .execute();
  return new Map(rows.map((row) => [row.id, row.option_group_ids]));
}

/**
 * Products whose option groups changed (spec: "updated_at also changes with its option groups"):
 * updated_at moves; where option_group_ids differs from `before` (a group joined, left or moved),
 * menu.product.updated records `changed: ["option_group_ids"]` with the earlier list.
 */
export async function optionGroupsChanged(ctx: Ctx, before: ReadonlyMap<string, string[]>): Promise<void> {
  if (before.size === 0) return;
  const viewer = await viewerApp(ctx);
  const ids = [...before.keys()];
  await ctx.db
    .updateTable('menu_products')
    .set({ updated_at: ctx.clock.now() })
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', 'in', ids)
    .execute();
  for (const product of await productsWithIds(ctx, ids, viewer)) {
    const previous = before.get(product.id) ?? [];
    if (isDeepStrictEqual(previous, product.option_group_ids)) continue;
    await recordMenuEvent(ctx, 'menu.product.updated', product, {
      changed: ['option_group_ids'],
      previous: { option_group_ids: previous },
    });
  }
}
