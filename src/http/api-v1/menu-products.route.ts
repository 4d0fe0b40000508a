import Type from 'typebox';
import {
  DeletedSchema,
  ProductInputSchema,
  ProductPatchSchema,
  ProductSchema,
} from '../../domain/menu/menu.schema.ts';
import { downloadNewImages } from '../../domain/menu/menu-images.ts';
import { updateOrder } from '../../domain/menu/menu-writes.ts';
import {
  createProduct,
  deleteProduct,
  getProduct,
  listProducts,
  parseCategoryFilter,
  updateProduct,
} from '../../domain/menu/products.service.ts';
import { keysetPage, ListOf } from '../shared/pagination.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';
import { IdParams, linksToTheNew, menuListFilters, menuListQuery, read, tags, write } from './menu-params.ts';

const list = 'menu/products';

/** The category filter: category ids or `none`, comma-separated. */
export const categoryFilterPattern =
  '^(none|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(,(none|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}))*$';

/**
 * The list's own filters, `category_id` and `available`, with their examples as validation leaves
 * them (`available` a boolean): the cursor's example is bound to them.
 */
const ProductListQuery = menuListQuery(list, 'prod-margherita', {
  filters: {
    category_id: Type.Optional(
      Type.String({
        pattern: categoryFilterPattern,
        minLength: 1,
        maxLength: 3700,
        description: 'Comma list of category ids; `none` for products without a category.',
        examples: ['none'],
      }),
    ),
    available: Type.Optional(
      Type.Boolean({ description: '`true`: only available; `false`: only sold out.', examples: [true] }),
    ),
  },
  examples: { category_id: 'none', available: true },
});

const product200 = { 200: { ...ProductSchema, description: 'The product.' } };
const changeNote =
  ' `category_id` must be one of the restaurant’s categories (else 400). `external_id` is yours alone: other ' +
  'apps and events see null; one your app already uses for another product is 409 `external_id_taken` ' +
  '(another app may use the same value for its own). ' +
  '`option_group_ids` sets the shared option groups the product uses, in order (its own groups, listed ' +
  'first in the answer, may be sent back and are skipped); another product’s own group or an unknown id ' +
  'is a 400 on the item. A new `image_url` is downloaded, checked and hosted in standard sizes (`images`); ' +
  'a picture that cannot be had leaves the write as it is, with `images.status` `failed`; a test restaurant ' +
  'keeps at most 50 images (then 400 on `image_url`).';
const theNewProduct = linksToTheNew('product', ['getProduct', 'updateProduct', 'deleteProduct']);

export const listProductsRoute = apiRoute({
  method: 'GET',
  url: '/menu/products',
  auth: read,
  schema: {
    operationId: 'listProducts',
    summary: 'The menu’s products, least recently changed first',
    description:
      'Ascending `updated_at` (then id). Filters: `category_id` (ids and `none`), `available`, ' +
      '`external_id` (your app’s own value), `updated_since` (exclusive). Send a cursor with the same filters.',
    tags,
    querystring: ProductListQuery,
    response: {
      200: { ...ListOf(ProductSchema), description: 'A page of products.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: (ctx, request) => {
    const { category_id, available } = request.query;
    const filters = {
      ...(category_id !== undefined && { category_id: parseCategoryFilter(category_id) }),
      ...(available !== undefined && { available }),
      ...menuListFilters(request),
    };
    return keysetPage(list, updateOrder, request.query, (page) => listProducts(ctx, filters, page));
  },
});

export const postProductRoute = apiRoute({
  method: 'POST',
  url: '/menu/products',
  auth: write,
  links: { 201: theNewProduct },
  schema: {
    operationId: 'createProduct',
    summary: 'Add a product',
    description:
      '`name` 1 to 200 characters (trimmed), `price` in the smallest currency unit; without `position` it goes ' +
      `after the last product of its category. Emits \`menu.product.created\`.${changeNote}`,
    tags,
    body: ProductInputSchema,
    response: {
      201: { ...ProductSchema, description: 'The new product.' },
      ...errorResponses(400, 401, 403, 409, 413, 422, 429, 500),
    },
  },
  beforeWrite: (ctx, request) => downloadNewImages(ctx, [request.body.image_url]),
  handler: async (ctx, request, _auth, reply) => {
    const product = await createProduct(ctx, request.body);
    reply.code(201);
    return product;
  },
});

export const getProductRoute = apiRoute({
  method: 'GET',
  url: '/menu/products/:id',
  auth: read,
  schema: {
    operationId: 'getProduct',
    summary: 'One product',
    description: 'Another restaurant’s product is never found (404).',
    tags,
    params: IdParams,
    response: { ...product200, ...errorResponses(400, 401, 403, 404, 429, 500) },
  },
  handler: (ctx, request) => getProduct(ctx, request.params.id),
});

export const patchProductRoute = apiRoute({
  method: 'PATCH',
  url: '/menu/products/:id',
  auth: write,
  schema: {
    operationId: 'updateProduct',
    summary: 'Change a product',
    description:
      'Only the sent fields change; `null` clears the nullable ones. Emits `menu.product.updated` with ' +
      '`changed` and `previous` when a field changed; a request that changes nothing keeps `updated_at` and ' +
      `emits nothing.${changeNote}`,
    tags,
    params: IdParams,
    body: ProductPatchSchema,
    response: { ...product200, ...errorResponses(400, 401, 403, 404, 409, 413, 422, 429, 500) },
  },
  beforeWrite: (ctx, request) => downloadNewImages(ctx, [request.body.image_url]),
  handler: (ctx, request) => updateProduct(ctx, request.params.id, request.body),
});

export const deleteProductRoute = apiRoute({
  method: 'DELETE',
  url: '/menu/products/:id',
  auth: write,
  destructive: 'data',
  schema: {
    operationId: 'deleteProduct',
    summary: 'Delete a product',
    description:
      'Its own option groups go with it, each with its options (`menu.option.deleted`, then ' +
      '`menu.option_group.deleted`); then emits `menu.product.deleted`.',
    tags,
    params: IdParams,
    response: {
      200: { ...DeletedSchema('product'), description: 'The product is gone.' },
      ...errorResponses(400, 401, 403, 404, 409, 429, 500),
    },
  },
  handler: (ctx, request) => deleteProduct(ctx, request.params.id),
});

export const productRoutes = [
  listProductsRoute,
  postProductRoute,
  getProductRoute,
  patchProductRoute,
  deleteProductRoute,
];
