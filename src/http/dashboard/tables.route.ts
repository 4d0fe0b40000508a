import Type from 'typebox';
import { creationOrder } from '../../domain/shared/paging.ts';
import { createArea, deleteArea, listAreas, updateArea } from '../../domain/store/areas.service.ts';
import {
  AreaInputSchema,
  AreaPatchSchema,
  DashboardAreaSchema,
  DashboardTableSchema,
  DeletedSchema,
  TableInputSchema,
  TablePatchSchema,
} from '../../domain/store/table.schema.ts';
import {
  createTable,
  deleteTable,
  listTables,
  regenerateQrKey,
  updateTable,
} from '../../domain/store/tables.service.ts';
import { CursorParam, keysetPage, LimitParam, ListOf } from '../shared/pagination.ts';
import { ownersOnly, type SignedInRoute, signedInRoute } from '../shared/signed-in-route.ts';

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
const auth = ownersOnly;

/*
 * A restaurant's tables and areas in the dashboard, for its owners only (for anyone else the
 * restaurant is 404). Lists are paged like the API's; each write runs in one transaction. The
 * dashboard, unlike the API, shows a table's QR key (to print the code) and regenerates it.
 */
export const tableRoutes: readonly SignedInRoute[] = [
  signedInRoute({
    method: 'GET',
    url: `${base}/areas`,
    auth,
    schema: {
      params: restaurantParams,
      querystring: pageQuery,
      response: { 200: ListOf(DashboardAreaSchema) },
    },
    handler: (ctx, request) =>
      keysetPage('areas', creationOrder, request.query, (page) => listAreas(ctx, page)),
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/areas`,
    auth,
    schema: {
      params: restaurantParams,
      querystring: noQuery,
      body: AreaInputSchema,
      response: { 201: DashboardAreaSchema },
    },
    handler: async (ctx, request, reply) => {
      reply.code(201);
      return createArea(ctx, request.body);
    },
  }),
  signedInRoute({
    method: 'PATCH',
    url: `${base}/areas/:area_id`,
    auth,
    schema: {
      params: areaParams,
      querystring: noQuery,
      body: AreaPatchSchema,
      response: { 200: DashboardAreaSchema },
    },
    handler: (ctx, request) => updateArea(ctx, request.params.area_id, request.body),
  }),
  signedInRoute({
    method: 'DELETE',
    url: `${base}/areas/:area_id`,
    auth,
    schema: {
      params: areaParams,
      querystring: noQuery,
      body: noBody,
      response: { 200: DeletedSchema('area') },
    },
    handler: async (ctx, request) => {
      const { area_id } = request.params;
      await deleteArea(ctx, area_id);
      return { object: 'area', id: area_id, deleted: true };
    },
  }),
  signedInRoute({
    method: 'GET',
    url: `${base}/tables`,
    auth,
    schema: {
      params: restaurantParams,
      querystring: pageQuery,
      response: { 200: ListOf(DashboardTableSchema) },
    },
    handler: (ctx, request) =>
      keysetPage('tables', creationOrder, request.query, (page) => listTables(ctx, page)),
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/tables`,
    auth,
    schema: {
      params: restaurantParams,
      querystring: noQuery,
      body: TableInputSchema,
      response: { 201: DashboardTableSchema },
    },
    handler: async (ctx, request, reply) => {
      reply.code(201);
      return createTable(ctx, request.body);
    },
  }),
  signedInRoute({
    method: 'PATCH',
    url: `${base}/tables/:table_id`,
    auth,
    schema: {
      params: tableParams,
      querystring: noQuery,
      body: TablePatchSchema,
      response: { 200: DashboardTableSchema },
    },
    handler: (ctx, request) => updateTable(ctx, request.params.table_id, request.body),
  }),
  signedInRoute({
    method: 'DELETE',
    url: `${base}/tables/:table_id`,
    auth,
    schema: {
      params: tableParams,
      querystring: noQuery,
      body: noBody,
      response: { 200: DeletedSchema('table') },
    },
    handler: async (ctx, request) => {
      const { table_id } = request.params;
      await deleteTable(ctx, table_id);
      return { object: 'table', id: table_id, deleted: true };
    },
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/tables/:table_id/qr-key`,
    auth,
    schema: {
      params: tableParams,
      querystring: noQuery,
      body: noBody,
      response: { 200: DashboardTableSchema },
    },
    handler: (ctx, request) => regenerateQrKey(ctx, request.params.table_id),
  }),
];
