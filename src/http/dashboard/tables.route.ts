import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { restaurantCtx } from '../../domain/restaurants/owned-restaurant.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import { creationOrder } from '../../domain/shared/paging.ts';
import { createArea, deleteArea, listAreas, updateArea } from '../../domain/store/areas.service.ts';
import {
  type AreaInput,
  AreaInputSchema,
  type AreaPatch,
  AreaPatchSchema,
  DashboardAreaSchema,
  DashboardTableSchema,
  DeletedSchema,
  type TableInput,
  TableInputSchema,
  type TablePatch,
  TablePatchSchema,
} from '../../domain/store/table.schema.ts';
import {
  createTable,
  deleteTable,
  listTables,
  regenerateQrKey,
  updateTable,
} from '../../domain/store/tables.service.ts';
import { CursorParam, keysetPage, LimitParam, ListOf, type PageQuery } from '../shared/pagination.ts';
import type { SignedIn } from '../shared/signed-in-api.ts';

const base = '/dashboard/api/restaurants/:restaurant_id';
const uuid = Type.String({ format: 'uuid' });
const restaurantParams = Type.Object({ restaurant_id: uuid }, { additionalProperties: false });
const areaParams = Type.Object({ restaurant_id: uuid, area_id: uuid }, { additionalProperties: false });
const tableParams = Type.Object({ restaurant_id: uuid, table_id: uuid }, { additionalProperties: false });
const noQuery = Type.Object({}, { additionalProperties: false });
const noBody = Type.Object({}, { additionalProperties: false });
const pageQuery = Type.Object(
  { limit: LimitParam, cursor: Type.Optional(CursorParam) },
  { additionalProperties: false },
);

interface Params {
  restaurant_id: string;
  area_id?: string;
  table_id?: string;
}

/** The ctx in the restaurant of the path, for one of its owners (anyone else: 404). */
const inRestaurant = (ctx: Ctx, accountId: string, request: FastifyRequest) =>
  restaurantCtx(ctx, { restaurantId: (request.params as Params).restaurant_id, accountId });
const paramsOf = (request: FastifyRequest) => request.params as Required<Params>;

/*
 * A restaurant's tables and areas in the dashboard, for its owners only (for anyone else the
 * restaurant is 404). Lists are paged like the API's; each write runs in one transaction. The
 * dashboard, unlike the API, shows a table's QR key (to print the code) and regenerates it.
 */
export function tableRoutes(app: FastifyInstance, signedIn: SignedIn): void {
  app.get(
    `${base}/areas`,
    {
      schema: {
        params: restaurantParams,
        querystring: pageQuery,
        response: { 200: ListOf(DashboardAreaSchema) },
      },
    },
    signedIn(false, async (ctx, accountId, request) => {
      const scoped = await inRestaurant(ctx, accountId, request);
      return keysetPage('areas', creationOrder, request.query as PageQuery, (page) =>
        listAreas(scoped, page),
      );
    }),
  );

  app.post(
    `${base}/areas`,
    {
      schema: {
        params: restaurantParams,
        querystring: noQuery,
        body: AreaInputSchema,
        response: { 201: DashboardAreaSchema },
      },
    },
    async (request, reply) => {
      const created = await signedIn(true, async (ctx, accountId) =>
        createArea(await inRestaurant(ctx, accountId, request), request.body as AreaInput),
      )(request);
      return reply.code(201).send(created);
    },
  );

  app.patch(
    `${base}/areas/:area_id`,
    {
      schema: {
        params: areaParams,
        querystring: noQuery,
        body: AreaPatchSchema,
        response: { 200: DashboardAreaSchema },
      },
    },
    signedIn(true, async (ctx, accountId, request) =>
      updateArea(
        await inRestaurant(ctx, accountId, request),
        paramsOf(request).area_id,
        request.body as AreaPatch,
      ),
    ),
  );

  app.delete(
    `${base}/areas/:area_id`,
    {
      schema: {
        params: areaParams,
        querystring: noQuery,
        body: noBody,
        response: { 200: DeletedSchema('area') },
      },
    },
    signedIn(true, async (ctx, accountId, request) => {
      const { area_id } = paramsOf(request);
      await deleteArea(await inRestaurant(ctx, accountId, request), area_id);
      return { object: 'area', id: area_id, deleted: true };
    }),
  );

  app.get(
    `${base}/tables`,
    {
      schema: {
        params: restaurantParams,
        querystring: pageQuery,
        response: { 200: ListOf(DashboardTableSchema) },
      },
    },
    signedIn(false, async (ctx, accountId, request) => {
      const scoped = await inRestaurant(ctx, accountId, request);
      return keysetPage('tables', creationOrder, request.query as PageQuery, (page) =>
        listTables(scoped, page),
      );
    }),
  );

  app.post(
    `${base}/tables`,
    {
      schema: {
        params: restaurantParams,
        querystring: noQuery,
        body: TableInputSchema,
        response: { 201: DashboardTableSchema },
      },
    },
    async (request, reply) => {
      const created = await signedIn(true, async (ctx, accountId) =>
        createTable(await inRestaurant(ctx, accountId, request), request.body as TableInput),
      )(request);
      return reply.code(201).send(created);
    },
  );

  app.patch(
    `${base}/tables/:table_id`,
    {
      schema: {
        params: tableParams,
        querystring: noQuery,
        body: TablePatchSchema,
        response: { 200: DashboardTableSchema },
      },
    },
    signedIn(true, async (ctx, accountId, request) =>
      updateTable(
        await inRestaurant(ctx, accountId, request),
        paramsOf(request).table_id,
        request.body as TablePatch,
      ),
    ),
  );

  app.delete(
    `${base}/tables/:table_id`,
    {
      schema: {
        params: tableParams,
        querystring: noQuery,
        body: noBody,
        response: { 200: DeletedSchema('table') },
      },
    },
    signedIn(true, async (ctx, accountId, request) => {
      const { table_id } = paramsOf(request);
      await deleteTable(await inRestaurant(ctx, accountId, request), table_id);
      return { object: 'table', id: table_id, deleted: true };
    }),
  );

  app.post(
    `${base}/tables/:table_id/qr-key`,
    {
      schema: {
        params: tableParams,
        querystring: noQuery,
        body: noBody,
        response: { 200: DashboardTableSchema },
      },
    },
    signedIn(true, async (ctx, accountId, request) =>
      regenerateQrKey(await inRestaurant(ctx, accountId, request), paramsOf(request).table_id),
    ),
  );
}
