import Type from 'typebox';
import { listAreas, publicArea } from '../../domain/store/areas.service.ts';
import { AreaSchema, TableSchema } from '../../domain/store/table.schema.ts';
import { listTables, publicTable } from '../../domain/store/tables.service.ts';
import { creationPage } from '../creation-page.ts';
import { CursorParam, LimitParam, ListOf } from '../pagination.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';

const tags = ['Tables'];
/** Tables and areas are read for the floor (store:read) as well as for booking (reservations:read). */
const auth = { scopes: ['store:read', 'reservations:read'] } as const;
const pageQuery = Type.Object(
  { limit: LimitParam, cursor: Type.Optional(CursorParam) },
  { additionalProperties: false },
);

export const listTablesRoute = apiRoute({
  method: 'GET',
  url: '/tables',
  auth,
  schema: {
    operationId: 'listTables',
    summary: 'The restaurant’s tables, in creation order',
    description:
      'Every table of the restaurant, oldest first. `seats` is the restaurant’s default table size ' +
      'for a table without a size of its own. The key of a table’s QR code is never included.',
    tags,
    querystring: pageQuery,
    response: {
      200: { ...ListOf(TableSchema), description: 'A page of tables.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: async (ctx, request) => {
    const page = await creationPage('tables', request.query, (page) => listTables(ctx, page));
    return { ...page, data: page.data.map(publicTable) };
  },
});

export const listAreasRoute = apiRoute({
  method: 'GET',
  url: '/areas',
  auth,
  schema: {
    operationId: 'listAreas',
    summary: 'The restaurant’s areas, in creation order',
    description: 'Every area of the restaurant (dining room, terrace, …), oldest first.',
    tags,
    querystring: pageQuery,
    response: {
      200: { ...ListOf(AreaSchema), description: 'A page of areas.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: async (ctx, request) => {
    const page = await creationPage('areas', request.query, (page) => listAreas(ctx, page));
    return { ...page, data: page.data.map(publicArea) };
  },
});
