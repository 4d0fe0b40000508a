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
  StoreSchema,
  StoreSettingsPatchSchema,
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
import { ownersOnly, type SignedInRoute, signedInRoute } from '../shared/signed-in-route.ts';

const base = '/dashboard/api/restaurants/:restaurant_id/store';
const params = Type.Object(
  { restaurant_id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
const withDate = Type.Object(
  { restaurant_id: Type.String({ format: 'uuid' }), date: LocalDate },
  { additionalProperties: false },
);
const noQuery = Type.Object({}, { additionalProperties: false });
const noBody = Type.Object({}, { additionalProperties: false });
const auth = ownersOnly;

/*
 * The restaurant's store in the dashboard, for its owners: the same domain service and rules as
 * the public API's /store operations (events included), plus the settings only owners change
 * (minimum order, order statuses in use, contact, address, location, default table size).
 */
export const storeRoutes: readonly SignedInRoute[] = [
  signedInRoute({
    method: 'GET',
    url: base,
    auth,
    schema: { params, querystring: noQuery, response: { 200: StoreSchema } },
    handler: (ctx) => getStore(ctx),
  }),
  signedInRoute({
    method: 'PATCH',
    url: base,
    auth,
    schema: { params, querystring: noQuery, body: StoreSettingsPatchSchema, response: { 200: StoreSchema } },
    handler: (ctx, request) => updateStore(ctx, request.body),
  }),
  signedInRoute({
    method: 'GET',
    url: `${base}/hours`,
    auth,
    schema: { params, querystring: noQuery, response: { 200: StoreHoursSchema } },
    handler: (ctx) => getStoreHours(ctx),
  }),
  signedInRoute({
    method: 'PUT',
    url: `${base}/hours`,
    auth,
    schema: {
      params,
      querystring: noQuery,
      body: StoreHoursInputSchema,
      response: { 200: StoreHoursSchema },
    },
    handler: (ctx, request) => putStoreHours(ctx, request.body),
  }),
  signedInRoute({
    method: 'GET',
    url: `${base}/closures`,
    auth,
    schema: { params, querystring: noQuery, response: { 200: ClosureListSchema } },
    handler: async (ctx) => ({
      object: 'list',
      data: await listClosures(ctx),
      has_more: false,
      next_cursor: null,
    }),
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/closures`,
    auth,
    schema: {
      params,
      querystring: noQuery,
      body: ClosureInputSchema,
      response: { 200: ClosureSchema, 201: ClosureSchema },
    },
    handler: async (ctx, request, reply) => {
      const { closure, created } = await upsertClosure(ctx, request.body);
      reply.code(created ? 201 : 200);
      return closure;
    },
  }),
  signedInRoute({
    method: 'DELETE',
    url: `${base}/closures/:date`,
    auth,
    schema: { params: withDate, querystring: noQuery, body: noBody, response: { 200: DeletedClosureSchema } },
    handler: (ctx, request) => deleteClosure(ctx, request.params.date),
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/pause`,
    auth,
    schema: { params, querystring: noQuery, body: PauseInputSchema, response: { 200: StoreSchema } },
    handler: (ctx, request) => pauseStore(ctx, request.body),
  }),
  signedInRoute({
    method: 'DELETE',
    url: `${base}/pause`,
    auth,
    schema: { params, querystring: noQuery, body: noBody, response: { 200: StoreSchema } },
    handler: (ctx) => resumeStore(ctx),
  }),
];
