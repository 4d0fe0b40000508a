import {
  DeletedSchema,
  OptionInputSchema,
  OptionPatchSchema,
  OptionSchema,
} from '../../domain/menu/menu.schema.ts';
import { updateOrder } from '../../domain/menu/menu-writes.ts';
import {
  createOption,
  deleteOption,
  getOption,
  listOptions,
  updateOption,
} from '../../domain/menu/options.service.ts';
import { keysetPage, ListOf } from '../shared/pagination.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';
import { IdParams, linksToTheNew, menuListFilters, menuListQuery, read, tags, write } from './menu-params.ts';

const list = 'menu/options';

const OptionListQuery = menuListQuery(list, 'opt-cheese');

const option200 = { 200: { ...OptionSchema, description: 'The option.' } };
const changeNote =
  ' `price_delta` is added per unit and may be negative (−100,000,000 to 100,000,000). Options change ' +
  'neither their group’s `updated_at` nor the products’. `external_id` is yours alone: other apps and ' +
  'events see null; one your app already uses for another option is 409 `external_id_taken` (another app ' +
  'may use the same value for its own).';
const theNewOption = linksToTheNew('option', ['getOption', 'updateOption', 'deleteOption']);

export const postOptionRoute = apiRoute({
  method: 'POST',
  url: '/menu/option-groups/:id/options',
  auth: write,
  links: { 201: theNewOption },
  schema: {
    operationId: 'createOption',
    summary: 'Add an option to an option group',
    description:
      '`name` 1 to 120 characters (trimmed); without `position` it goes after the last option of the ' +
      'group. Another restaurant’s group is never found (404). Emits `menu.option.created`.' +
      changeNote,
    tags,
    params: IdParams,
    body: OptionInputSchema,
    response: {
      201: { ...OptionSchema, description: 'The new option.' },
      ...errorResponses(400, 401, 403, 404, 409, 413, 422, 429, 500),
    },
  },
  handler: async (ctx, request, _auth, reply) => {
    const option = await createOption(ctx, request.params.id, request.body);
    reply.code(201);
    return option;
  },
});

export const listOptionsRoute = apiRoute({
  method: 'GET',
  url: '/menu/options',
  auth: read,
  schema: {
    operationId: 'listOptions',
    summary: 'The menu’s options, least recently changed first',
    description:
      'Ascending `updated_at` (then id). Filters: `external_id` (your app’s own value), `updated_since` ' +
      '(exclusive). Send a cursor with the same filters.',
    tags,
    querystring: OptionListQuery,
    response: {
      200: { ...ListOf(OptionSchema), description: 'A page of options.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: (ctx, request) =>
    keysetPage(list, updateOrder, request.query, (page) => listOptions(ctx, menuListFilters(request), page)),
});

export const getOptionRoute = apiRoute({
  method: 'GET',
  url: '/menu/options/:id',
  auth: read,
  schema: {
    operationId: 'getOption',
    summary: 'One option',
    description: 'Another restaurant’s option is never found (404).',
    tags,
    params: IdParams,
    response: { ...option200, ...errorResponses(400, 401, 403, 404, 429, 500) },
  },
  handler: (ctx, request) => getOption(ctx, request.params.id),
});

export const patchOptionRoute = apiRoute({
  method: 'PATCH',
  url: '/menu/options/:id',
  auth: write,
  schema: {
    operationId: 'updateOption',
    summary: 'Change an option',
    description:
      'Only the sent fields change; `null` clears `external_id`; `group_id` moves it to another of the ' +
      'restaurant’s option groups (else 400 on it). Emits `menu.option.updated` with `changed` and ' +
      '`previous` when a field changed; a request that changes nothing keeps `updated_at` and emits ' +
      `nothing.${changeNote}`,
    tags,
    params: IdParams,
    body: OptionPatchSchema,
    response: { ...option200, ...errorResponses(400, 401, 403, 404, 409, 413, 422, 429, 500) },
  },
  handler: (ctx, request) => updateOption(ctx, request.params.id, request.body),
});

export const deleteOptionRoute = apiRoute({
  method: 'DELETE',
  url: '/menu/options/:id',
  auth: write,
  destructive: 'data',
  schema: {
    operationId: 'deleteOption',
    summary: 'Delete an option',
    description: 'Emits `menu.option.deleted`.',
    tags,
    params: IdParams,
    response: {
      200: { ...DeletedSchema('option'), description: 'The option is gone.' },
      ...errorResponses(400, 401, 403, 404, 409, 429, 500),
    },
  },
  handler: (ctx, request) => deleteOption(ctx, request.params.id),
});
