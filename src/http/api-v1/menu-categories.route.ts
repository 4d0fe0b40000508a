import {
  createCategory,
  deleteCategory,
  getCategory,
  listCategories,
  updateCategory,
} from '../../domain/menu/categories.service.ts';
import {
  CategoryInputSchema,
  CategoryPatchSchema,
  CategorySchema,
  DeletedSchema,
} from '../../domain/menu/menu.schema.ts';
import { updateOrder } from '../../domain/menu/menu-writes.ts';
import { keysetPage, ListOf } from '../shared/pagination.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';
import { IdParams, linksToTheNew, menuListFilters, menuListQuery, read, tags, write } from './menu-params.ts';

const list = 'menu/categories';

const CategoryListQuery = menuListQuery(list, 'cat-pizza');

const category200 = { 200: { ...CategorySchema, description: 'The category.' } };
const changeNote =
  ' `external_id` is yours alone: other apps and events see null; one your app already uses for another ' +
  'category is 409 `external_id_taken` (another app may use the same value for its own).';
const theNewCategory = linksToTheNew('category', ['getCategory', 'updateCategory', 'deleteCategory']);

export const listCategoriesRoute = apiRoute({
  method: 'GET',
  url: '/menu/categories',
  auth: read,
  schema: {
    operationId: 'listCategories',
    summary: 'The menu’s categories, least recently changed first',
    description:
      'Ascending `updated_at` (then id). Filters: `external_id` (your app’s own value), `updated_since` ' +
      '(exclusive). Send a cursor with the same filters.',
    tags,
    querystring: CategoryListQuery,
    response: {
      200: { ...ListOf(CategorySchema), description: 'A page of categories.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: (ctx, request) =>
    keysetPage(list, updateOrder, request.query, (page) =>
      listCategories(ctx, menuListFilters(request), page),
    ),
});

export const postCategoryRoute = apiRoute({
  method: 'POST',
  url: '/menu/categories',
  auth: write,
  links: { 201: theNewCategory },
  schema: {
    operationId: 'createCategory',
    summary: 'Add a category',
    description:
      '`name` 1 to 80 characters (trimmed); without `position` it goes after the last category. Emits ' +
      `\`menu.category.created\`.${changeNote}`,
    tags,
    body: CategoryInputSchema,
    response: {
      201: { ...CategorySchema, description: 'The new category.' },
      ...errorResponses(400, 401, 403, 409, 413, 422, 429, 500),
    },
  },
  handler: async (ctx, request, _auth, reply) => {
    const category = await createCategory(ctx, request.body);
    reply.code(201);
    return category;
  },
});

export const getCategoryRoute = apiRoute({
  method: 'GET',
  url: '/menu/categories/:id',
  auth: read,
  schema: {
    operationId: 'getCategory',
    summary: 'One category',
    description: 'Another restaurant’s category is never found (404).',
    tags,
    params: IdParams,
    response: { ...category200, ...errorResponses(400, 401, 403, 404, 429, 500) },
  },
  handler: (ctx, request) => getCategory(ctx, request.params.id),
});

export const patchCategoryRoute = apiRoute({
  method: 'PATCH',
  url: '/menu/categories/:id',
  auth: write,
  schema: {
    operationId: 'updateCategory',
    summary: 'Change a category',
    description:
      'Only the sent fields change; `null` clears `external_id` and `tax_class`. Emits ' +
      '`menu.category.updated` with `changed` and `previous` when a field changed; a request that changes ' +
      `nothing keeps \`updated_at\` and emits nothing.${changeNote}`,
    tags,
    params: IdParams,
    body: CategoryPatchSchema,
    response: { ...category200, ...errorResponses(400, 401, 403, 404, 409, 413, 422, 429, 500) },
  },
  handler: (ctx, request) => updateCategory(ctx, request.params.id, request.body),
});

export const deleteCategoryRoute = apiRoute({
  method: 'DELETE',
  url: '/menu/categories/:id',
  auth: write,
  destructive: 'data',
  schema: {
    operationId: 'deleteCategory',
    summary: 'Delete a category',
    description:
      'Its products move to no category (each emits `menu.product.updated`); then emits ' +
      '`menu.category.deleted`.',
    tags,
    params: IdParams,
    response: {
      200: { ...DeletedSchema('category'), description: 'The category is gone.' },
      ...errorResponses(400, 401, 403, 404, 409, 429, 500),
    },
  },
  handler: (ctx, request) => deleteCategory(ctx, request.params.id),
});

export const categoryRoutes = [
  listCategoriesRoute,
  postCategoryRoute,
  getCategoryRoute,
  patchCategoryRoute,
  deleteCategoryRoute,
];
