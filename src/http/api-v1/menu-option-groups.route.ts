import {
  DeletedSchema,
  OptionGroupInputSchema,
  OptionGroupPatchSchema,
  OptionGroupSchema,
} from '../../domain/menu/menu.schema.ts';
import { updateOrder } from '../../domain/menu/menu-writes.ts';
import {
  createOptionGroup,
  deleteOptionGroup,
  getOptionGroup,
  listOptionGroups,
  updateOptionGroup,
} from '../../domain/menu/option-groups.service.ts';
import { keysetPage, ListOf } from '../shared/pagination.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';
import { IdParams, linksToTheNew, menuListFilters, menuListQuery, read, tags, write } from './menu-params.ts';

const list = 'menu/option-groups';

const OptionGroupListQuery = menuListQuery(list, 'grp-extras');

const group200 = { 200: { ...OptionGroupSchema, description: 'The option group with its options.' } };
const changeNote =
  ' `min_select` above `max_select` is a 400 on `min_select`; `product_id` must be one of the restaurant’s ' +
  'products (else 400), null makes the group shared. The products using the group (its product and the ' +
  'products linking it) change their `updated_at` with it and emit `menu.product.updated` when their ' +
  '`option_group_ids` change. `external_id` is yours alone: other apps and events see null; one your app ' +
  'already uses for another option group is 409 `external_id_taken` (another app may use the same value ' +
  'for its own).';
const theNewGroup = {
  ...linksToTheNew('option group', ['getOptionGroup', 'updateOptionGroup', 'deleteOptionGroup']),
  createOption: {
    operationId: 'createOption',
    parameters: { id: '$response.body#/id' },
    description: 'Add an option to the new option group.',
  },
};

export const listOptionGroupsRoute = apiRoute({
  method: 'GET',
  url: '/menu/option-groups',
  auth: read,
  schema: {
    operationId: 'listOptionGroups',
    summary: 'The menu’s option groups, least recently changed first',
    description:
      'Each with its options. Ascending `updated_at` (then id; a group’s `updated_at` moves with its own ' +
      'fields, not its options). Filters: `external_id` (your app’s own value), `updated_since` ' +
      '(exclusive). Send a cursor with the same filters.',
    tags,
    querystring: OptionGroupListQuery,
    response: {
      200: { ...ListOf(OptionGroupSchema), description: 'A page of option groups.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: (ctx, request) =>
    keysetPage(list, updateOrder, request.query, (page) =>
      listOptionGroups(ctx, menuListFilters(request), page),
    ),
});

export const postOptionGroupRoute = apiRoute({
  method: 'POST',
  url: '/menu/option-groups',
  auth: write,
  links: { 201: theNewGroup },
  schema: {
    operationId: 'createOptionGroup',
    summary: 'Add an option group',
    description:
      '`name` 1 to 120 characters (trimmed); `min_select` 0 to 20 (default 0), `max_select` 1 to 20 ' +
      '(default 1); without `position` it goes after the last group of its product (or the last shared ' +
      `one). Options are added with \`POST /menu/option-groups/{id}/options\`. Emits \`menu.option_group.created\`.${changeNote}`,
    tags,
    body: OptionGroupInputSchema,
    response: {
      201: { ...OptionGroupSchema, description: 'The new option group.' },
      ...errorResponses(400, 401, 403, 409, 413, 422, 429, 500),
    },
  },
  handler: async (ctx, request, _auth, reply) => {
    const group = await createOptionGroup(ctx, request.body);
    reply.code(201);
    return group;
  },
});

export const getOptionGroupRoute = apiRoute({
  method: 'GET',
  url: '/menu/option-groups/:id',
  auth: read,
  schema: {
    operationId: 'getOptionGroup',
    summary: 'One option group',
    description:
      'With its options in order, sold-out ones included. Another restaurant’s group is never found (404).',
    tags,
    params: IdParams,
    response: { ...group200, ...errorResponses(400, 401, 403, 404, 429, 500) },
  },
  handler: (ctx, request) => getOptionGroup(ctx, request.params.id),
});

export const patchOptionGroupRoute = apiRoute({
  method: 'PATCH',
  url: '/menu/option-groups/:id',
  auth: write,
  schema: {
    operationId: 'updateOptionGroup',
    summary: 'Change an option group',
    description:
      'Only the sent fields change; `null` clears `external_id` and makes the group shared (`product_id`). ' +
      'A shared group given a `product_id` leaves the products linking it. Emits ' +
      '`menu.option_group.updated` with `changed` and `previous` when a field changed; a request that ' +
      `changes nothing keeps \`updated_at\` and emits nothing.${changeNote}`,
    tags,
    params: IdParams,
    body: OptionGroupPatchSchema,
    response: { ...group200, ...errorResponses(400, 401, 403, 404, 409, 413, 422, 429, 500) },
  },
  handler: (ctx, request) => updateOptionGroup(ctx, request.params.id, request.body),
});

export const deleteOptionGroupRoute = apiRoute({
  method: 'DELETE',
  url: '/menu/option-groups/:id',
  auth: write,
  destructive: 'data',
  schema: {
    operationId: 'deleteOptionGroup',
    summary: 'Delete an option group',
    description:
      'Its options are deleted with it (each emits `menu.option.deleted`); the products using it emit ' +
      '`menu.product.updated` (`option_group_ids`); then emits `menu.option_group.deleted`.',
    tags,
    params: IdParams,
    response: {
      200: { ...DeletedSchema('option_group'), description: 'The option group and its options are gone.' },
      ...errorResponses(400, 401, 403, 404, 409, 429, 500),
    },
  },
  handler: (ctx, request) => deleteOptionGroup(ctx, request.params.id),
});
