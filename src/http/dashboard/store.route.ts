import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { restaurantCtx } from '../../domain/restaurants/owned-restaurant.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import {
  type ClosureInput,
  ClosureInputSchema,
  ClosureListSchema,
  ClosureSchema,
  DeletedClosureSchema,
  LocalDate,
  type PauseInput,
  PauseInputSchema,
  type StoreHoursInput,
  StoreHoursInputSchema,
  StoreHoursSchema,
  StoreSchema,
  type StoreSettingsPatch,
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
import type { SignedIn } from '../shared/signed-in-api.ts';

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

/** The ctx in the restaurant of the path, for one of its owners (anyone else: 404). */
const inRestaurant = (ctx: Ctx, accountId: string, request: FastifyRequest) =>
  restaurantCtx(ctx, {
    restaurantId: (request.params as { restaurant_id: string }).restaurant_id,
    accountId,
  });

/*
 * The restaurant's store in the dashboard, for its owners: the same domain service and rules as
 * the public API's /store operations (events included), plus the settings only owners change
 * (minimum order, order statuses in use, contact, address, location, default table size).
 */
export function storeRoutes(app: FastifyInstance, signedIn: SignedIn): void {
  app.get(
    base,
    { schema: { params, querystring: noQuery, response: { 200: StoreSchema } } },
    signedIn(false, async (ctx, accountId, request) => getStore(await inRestaurant(ctx, accountId, request))),
  );

  app.patch(
    base,
    {
      schema: {
        params,
        querystring: noQuery,
        body: StoreSettingsPatchSchema,
        response: { 200: StoreSchema },
      },
    },
    signedIn(true, async (ctx, accountId, request) =>
      updateStore(await inRestaurant(ctx, accountId, request), request.body as StoreSettingsPatch),
    ),
  );

  app.get(
    `${base}/hours`,
    { schema: { params, querystring: noQuery, response: { 200: StoreHoursSchema } } },
    signedIn(false, async (ctx, accountId, request) =>
      getStoreHours(await inRestaurant(ctx, accountId, request)),
    ),
  );

  app.put(
    `${base}/hours`,
    {
      schema: {
        params,
        querystring: noQuery,
        body: StoreHoursInputSchema,
        response: { 200: StoreHoursSchema },
      },
    },
    signedIn(true, async (ctx, accountId, request) =>
      putStoreHours(await inRestaurant(ctx, accountId, request), request.body as StoreHoursInput),
    ),
  );

  app.get(
    `${base}/closures`,
    { schema: { params, querystring: noQuery, response: { 200: ClosureListSchema } } },
    signedIn(false, async (ctx, accountId, request) => ({
      object: 'list' as const,
      data: await listClosures(await inRestaurant(ctx, accountId, request)),
      has_more: false,
      next_cursor: null,
    })),
  );

  app.post(
    `${base}/closures`,
    {
      schema: {
        params,
        querystring: noQuery,
        body: ClosureInputSchema,
        response: { 200: ClosureSchema, 201: ClosureSchema },
      },
    },
    async (request, reply) => {
      const { closure, created } = await signedIn(true, async (ctx, accountId) =>
        upsertClosure(await inRestaurant(ctx, accountId, request), request.body as ClosureInput),
      )(request);
      return reply.code(created ? 201 : 200).send(closure);
    },
  );

  app.delete(
    `${base}/closures/:date`,
    {
      schema: {
        params: withDate,
        querystring: noQuery,
        body: noBody,
        response: { 200: DeletedClosureSchema },
      },
    },
    signedIn(true, async (ctx, accountId, request) =>
      deleteClosure(await inRestaurant(ctx, accountId, request), (request.params as { date: string }).date),
    ),
  );

  app.post(
    `${base}/pause`,
    { schema: { params, querystring: noQuery, body: PauseInputSchema, response: { 200: StoreSchema } } },
    signedIn(true, async (ctx, accountId, request) =>
      pauseStore(await inRestaurant(ctx, accountId, request), request.body as PauseInput),
    ),
  );

  app.delete(
    `${base}/pause`,
    { schema: { params, querystring: noQuery, body: noBody, response: { 200: StoreSchema } } },
    signedIn(true, async (ctx, accountId, request) =>
      resumeStore(await inRestaurant(ctx, accountId, request)),
    ),
  );
}
