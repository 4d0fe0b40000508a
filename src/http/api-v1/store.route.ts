import Type from 'typebox';
import {
  ClosureInputSchema,
  ClosureListSchema,
  ClosureSchema,
  DeletedClosureSchema,
  LocalDate,
  PauseInputSchema,
  StoreHoursInputSchema,
  StoreHoursSchema,
  StorePatchSchema,
  StoreSchema,
} from '../../domain/store/store.schema.ts';
import {
  deleteClosure,
  getStore,
  getStoreHours,
  listClosures,
  pauseStore,
  putStoreHours,
  resumeStore,
  updateStore,
  upsertClosure,
} from '../../domain/store/store.service.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';

const read = { scopes: ['store:read'] } as const;
const write = { scopes: ['store:write'] } as const;
const store200 = { 200: { ...StoreSchema, description: 'The store as it is now.' } };
const writeErrors = errorResponses(400, 401, 403, 409, 413, 422, 429, 500);
const collisionNote =
  ' A write that keeps colliding with another change of the store (three times in a row) answers 409 ' +
  '`conflict` with `Retry-After`.';

export const getStoreRoute = apiRoute({
  method: 'GET',
  url: '/store',
  auth: read,
  schema: {
    operationId: 'getStore',
    summary: 'The store: whether it takes orders now, its hours, order types and settings',
    description:
      '`status` (`open`, `closed`, `paused`) and `next_opening_at` are computed at the moment of the request ' +
      'from the opening hours, upcoming special days and a pause, in the restaurant’s time zone; ' +
      '`next_opening_at` is set while closed or paused (looking two weeks ahead) and null while open.',
    tags: ['Store'],
    response: { ...store200, ...errorResponses(400, 401, 403, 429, 500) },
  },
  handler: (ctx) => getStore(ctx),
});

export const patchStoreRoute = apiRoute({
  method: 'PATCH',
  url: '/store',
  auth: write,
  schema: {
    operationId: 'updateStore',
    summary: 'Change lead times, order types, preorders or busy mode',
    description:
      'Only the sent fields change. Switching an order type on needs a plan that includes it (`dine_in`: ' +
      'Pro and up), else 403 `plan_required` with `param`. `busy` starts or replaces busy mode: ' +
      '`extra_minutes` (5 to 120) on the lead times until `until` (in the future, at most 24 hours ahead, ' +
      'else 400 on `busy.until`); it then ends by itself with `store.updated`; null ends it now. Emits ' +
      `\`store.updated\` with \`changed\` and \`previous\` when something changed.${collisionNote}`,
    tags: ['Store'],
    body: StorePatchSchema,
    response: { ...store200, ...writeErrors },
  },
  handler: (ctx, request) => updateStore(ctx, request.body),
});

export const getStoreHoursRoute = apiRoute({
  method: 'GET',
  url: '/store/hours',
  auth: read,
  schema: {
    operationId: 'getStoreHours',
    summary: 'The weekly opening and delivery hours',
    description:
      'Week windows (`weekday` 0 = Monday to 6 = Sunday, `open` and `close` as `HH:MM`, restaurant-local). ' +
      '`close` earlier than `open` runs past midnight; equal runs until midnight. Empty `delivery_hours`: ' +
      'delivery follows the opening hours.',
    tags: ['Store'],
    response: {
      200: { ...StoreHoursSchema, description: 'The hours.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: (ctx) => getStoreHours(ctx),
});

export const putStoreHoursRoute = apiRoute({
  method: 'PUT',
  url: '/store/hours',
  auth: write,
  destructive: 'data',
  schema: {
    operationId: 'putStoreHours',
    summary: 'Replace the weekly hours',
    description:
      'The sent parts are replaced. `always_open: true` means no weekly schedule (orders around the clock; ' +
      'special days and pauses still apply): it clears `opening_hours`, and sending both is a 400. ' +
      `Emits \`store.updated\` when something changed.${collisionNote}`,
    tags: ['Store'],
    body: StoreHoursInputSchema,
    response: { 200: { ...StoreHoursSchema, description: 'The hours after the change.' }, ...writeErrors },
  },
  handler: (ctx, request) => putStoreHours(ctx, request.body),
});

export const listClosuresRoute = apiRoute({
  method: 'GET',
  url: '/store/closures',
  auth: read,
  schema: {
    operationId: 'listClosures',
    summary: 'The upcoming special days',
    description: 'Special days from today on (restaurant-local), by date; at most 60.',
    tags: ['Store'],
    response: {
      200: { ...ClosureListSchema, description: 'The special days.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: async (ctx) => ({
    object: 'list',
    data: await listClosures(ctx),
    has_more: false,
    next_cursor: null,
  }),
});

const removeTheDay = {
  deleteClosure: {
    operationId: 'deleteClosure',
    parameters: { date: '$response.body#/date' },
    description: 'Remove this special day again.',
  },
};

export const postClosureRoute = apiRoute({
  method: 'POST',
  url: '/store/closures',
  auth: write,
  links: { 200: removeTheDay, 201: removeTheDay },
  schema: {
    operationId: 'putClosure',
    summary: 'Set a special day (closed, or its own hours)',
    description:
      'A date today or later, closed all day (`closed: true`, no hours) or open in one or two windows of ' +
      'its own, replacing the weekly hours that start that day. 201 for a new day, 200 when replacing one; ' +
      `at most 60 special days (422 \`limit_exceeded\`). Emits \`store.updated\`.${collisionNote}`,
    tags: ['Store'],
    body: ClosureInputSchema,
    response: {
      200: { ...ClosureSchema, description: 'The special day, replaced.' },
      201: { ...ClosureSchema, description: 'The special day, new.' },
      ...writeErrors,
    },
  },
  handler: async (ctx, request, _auth, reply) => {
    const { closure, created } = await upsertClosure(ctx, request.body);
    reply.code(created ? 201 : 200);
    return closure;
  },
});

export const deleteClosureRoute = apiRoute({
  method: 'DELETE',
  url: '/store/closures/:date',
  auth: write,
  destructive: 'data',
  schema: {
    operationId: 'deleteClosure',
    summary: 'Remove a special day',
    description: `The day’s weekly hours apply again. Emits \`store.updated\`.${collisionNote}`,
    tags: ['Store'],
    params: Type.Object(
      { date: { ...LocalDate, examples: ['2030-12-24'] } },
      { additionalProperties: false },
    ),
    response: {
      200: { ...DeletedClosureSchema, description: 'The special day is gone.' },
      ...errorResponses(400, 401, 403, 404, 409, 429, 500),
    },
  },
  handler: (ctx, request) => deleteClosure(ctx, request.params.date),
});

export const postPauseRoute = apiRoute({
  method: 'POST',
  url: '/store/pause',
  auth: write,
  destructive: 'data',
  schema: {
    operationId: 'pauseStore',
    summary: 'Pause taking orders',
    description:
      'Until `until` (a future timestamp with a zone; it then ends by itself and emits `store.resumed`) or, ' +
      'without it, until lifted. `note` at most 140 characters (longer is a 400, never cut). Emits ' +
      '`store.paused`, or `store.updated` when changing the pause of a paused store.' +
      collisionNote,
    tags: ['Store'],
    body: PauseInputSchema,
    response: { ...store200, ...writeErrors },
  },
  handler: (ctx, request) => pauseStore(ctx, request.body),
});

export const deletePauseRoute = apiRoute({
  method: 'DELETE',
  url: '/store/pause',
  auth: write,
  destructive: 'data',
  schema: {
    operationId: 'resumeStore',
    summary: 'Lift the pause',
    description: `Emits \`store.resumed\` if the store was paused; otherwise nothing changes.${collisionNote}`,
    tags: ['Store'],
    response: { ...store200, ...errorResponses(400, 401, 403, 409, 429, 500) },
  },
  handler: (ctx) => resumeStore(ctx),
});

export const storeRoutes = [
  getStoreRoute,
  patchStoreRoute,
  getStoreHoursRoute,
  putStoreHoursRoute,
  listClosuresRoute,
  postClosureRoute,
  deleteClosureRoute,
  postPauseRoute,
  deletePauseRoute,
];
