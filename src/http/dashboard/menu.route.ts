import Type, { type TObject } from 'typebox';
import { createCategory, deleteCategory, updateCategory } from '../../domain/menu/categories.service.ts';
import {
  CategoryInputSchema,
  CategoryPatchSchema,
  CategorySchema,
  DeletedSchema,
  MenuSchema,
  OptionGroupInputSchema,
  OptionGroupPatchSchema,
  OptionGroupSchema,
  OptionInputSchema,
  OptionPatchSchema,
  OptionSchema,
  ProductInputSchema,
  ProductPatchSchema,
  ProductSchema,
} from '../../domain/menu/menu.schema.ts';
import { getMenu } from '../../domain/menu/menu.service.ts';
import { MenuRefreshInputSchema, MenuRefreshRequestSchema } from '../../domain/menu/menu-refresh.schema.ts';
import { requestMenuRefresh } from '../../domain/menu/menu-refresh.service.ts';
import {
  createOptionGroup,
  deleteOptionGroup,
  updateOptionGroup,
} from '../../domain/menu/option-groups.service.ts';
import { createOption, deleteOption, updateOption } from '../../domain/menu/options.service.ts';
import { createProduct, deleteProduct, updateProduct } from '../../domain/menu/products.service.ts';
import { ownersOnly, type SignedInRoute, signedInRoute } from '../shared/signed-in-route.ts';

const base = '/dashboard/api/restaurants/:restaurant_id/menu';
const uuid = Type.String({ format: 'uuid' });
const restaurantParams = Type.Object({ restaurant_id: uuid }, { additionalProperties: false });
const categoryParams = Type.Object(
  { restaurant_id: uuid, category_id: uuid },
  { additionalProperties: false },
);
const productParams = Type.Object({ restaurant_id: uuid, product_id: uuid }, { additionalProperties: false });
const groupParams = Type.Object(
  { restaurant_id: uuid, option_group_id: uuid },
  { additionalProperties: false },
);
const optionParams = Type.Object({ restaurant_id: uuid, option_id: uuid }, { additionalProperties: false });
const noQuery = Type.Object({}, { additionalProperties: false });
const noBody = Type.Object({}, { additionalProperties: false });
const auth = ownersOnly;

/** The API's input without `external_id`: apps' own references, never set in the dashboard. */
const withoutExternalId = <T extends TObject>(schema: T) =>
  Type.Omit(schema, ['external_id'], { additionalProperties: false });
const CategoryInput = withoutExternalId(CategoryInputSchema);
const CategoryPatch = withoutExternalId(CategoryPatchSchema);
const ProductInput = withoutExternalId(ProductInputSchema);
const ProductPatch = withoutExternalId(ProductPatchSchema);
const OptionGroupInput = withoutExternalId(OptionGroupInputSchema);
const OptionGroupPatch = withoutExternalId(OptionGroupPatchSchema);
const OptionInput = withoutExternalId(OptionInputSchema);
const OptionPatch = withoutExternalId(OptionPatchSchema);

/*
 * A restaurant's menu in the dashboard, for its owners (as its store and tables: for anyone else,
 * staff included, the restaurant is 404). The same domain services as the public API's menu
 * operations, acting as the signed-in account: the same rules and the same events, recorded with
 * the account as actor. The dashboard sets no `external_id` (apps' own references) and sees none.
 * The sold-out switch is a PATCH of `available`. A refresh request asks the connected apps to sync
 * the menu again (`menu.refresh_requested`).
 */
export const menuRoutes: readonly SignedInRoute[] = [
  signedInRoute({
    method: 'GET',
    url: base,
    auth,
    schema: { params: restaurantParams, querystring: noQuery, response: { 200: MenuSchema } },
    handler: (ctx) => getMenu(ctx),
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/categories`,
    auth,
    schema: {
      params: restaurantParams,
      querystring: noQuery,
      body: CategoryInput,
      response: { 201: CategorySchema },
    },
    handler: async (ctx, request, reply) => {
      reply.code(201);
      return createCategory(ctx, request.body);
    },
  }),
  signedInRoute({
    method: 'PATCH',
    url: `${base}/categories/:category_id`,
    auth,
    schema: {
      params: categoryParams,
      querystring: noQuery,
      body: CategoryPatch,
      response: { 200: CategorySchema },
    },
    handler: (ctx, request) => updateCategory(ctx, request.params.category_id, request.body),
  }),
  signedInRoute({
    method: 'DELETE',
    url: `${base}/categories/:category_id`,
    auth,
    schema: {
      params: categoryParams,
      querystring: noQuery,
      body: noBody,
      response: { 200: DeletedSchema('category') },
    },
    handler: (ctx, request) => deleteCategory(ctx, request.params.category_id),
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/products`,
    auth,
    schema: {
      params: restaurantParams,
      querystring: noQuery,
      body: ProductInput,
      response: { 201: ProductSchema },
    },
    handler: async (ctx, request, reply) => {
      reply.code(201);
      return createProduct(ctx, request.body);
    },
  }),
  signedInRoute({
    method: 'PATCH',
    url: `${base}/products/:product_id`,
    auth,
    schema: {
      params: productParams,
      querystring: noQuery,
      body: ProductPatch,
      response: { 200: ProductSchema },
    },
    handler: (ctx, request) => updateProduct(ctx, request.params.product_id, request.body),
  }),
  signedInRoute({
    method: 'DELETE',
    url: `${base}/products/:product_id`,
    auth,
    schema: {
      params: productParams,
      querystring: noQuery,
      body: noBody,
      response: { 200: DeletedSchema('product') },
    },
    handler: (ctx, request) => deleteProduct(ctx, request.params.product_id),
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/option-groups`,
    auth,
    schema: {
      params: restaurantParams,
      querystring: noQuery,
      body: OptionGroupInput,
      response: { 201: OptionGroupSchema },
    },
    handler: async (ctx, request, reply) => {
      reply.code(201);
      return createOptionGroup(ctx, request.body);
    },
  }),
  signedInRoute({
    method: 'PATCH',
    url: `${base}/option-groups/:option_group_id`,
    auth,
    schema: {
      params: groupParams,
      querystring: noQuery,
      body: OptionGroupPatch,
      response: { 200: OptionGroupSchema },
    },
    handler: (ctx, request) => updateOptionGroup(ctx, request.params.option_group_id, request.body),
  }),
  signedInRoute({
    method: 'DELETE',
    url: `${base}/option-groups/:option_group_id`,
    auth,
    schema: {
      params: groupParams,
      querystring: noQuery,
      body: noBody,
      response: { 200: DeletedSchema('option_group') },
    },
    handler: (ctx, request) => deleteOptionGroup(ctx, request.params.option_group_id),
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/option-groups/:option_group_id/options`,
    auth,
    schema: {
      params: groupParams,
      querystring: noQuery,
      body: OptionInput,
      response: { 201: OptionSchema },
    },
    handler: async (ctx, request, reply) => {
      reply.code(201);
      return createOption(ctx, request.params.option_group_id, request.body);
    },
  }),
  signedInRoute({
    method: 'PATCH',
    url: `${base}/options/:option_id`,
    auth,
    schema: {
      params: optionParams,
      querystring: noQuery,
      body: OptionPatch,
      response: { 200: OptionSchema },
    },
    handler: (ctx, request) => updateOption(ctx, request.params.option_id, request.body),
  }),
  signedInRoute({
    method: 'DELETE',
    url: `${base}/options/:option_id`,
    auth,
    schema: {
      params: optionParams,
      querystring: noQuery,
      body: noBody,
      response: { 200: DeletedSchema('option') },
    },
    handler: (ctx, request) => deleteOption(ctx, request.params.option_id),
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/refresh-requests`,
    auth,
    schema: {
      params: restaurantParams,
      querystring: noQuery,
      body: MenuRefreshInputSchema,
      response: { 201: MenuRefreshRequestSchema },
    },
    handler: async (ctx, request, reply) => {
      reply.code(201);
      return requestMenuRefresh(ctx, request.body);
    },
  }),
];
