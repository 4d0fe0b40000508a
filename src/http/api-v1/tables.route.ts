import Type from 'typebox';
import { creationOrder } from '../../domain/shared/paging.ts';
import { listAreas, publicArea } from '../../domain/store/areas.service.ts';
import { AreaSchema, TableSchema } from '../../domain/store/table.schema.ts';
import { listTables, publicTable } from '../../domain/store/tables.service.ts';
import {
  CursorParam,
  cursorAfter,
  keysetPage,
  keysetPosition,
  LimitParam,
  ListOf,
} from '../shared/pagination.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';

const tags = ['Tables'];
/** Tables and areas are read for the floor (store:read) as well as for booking (reservations:read). */
const auth = { scopes: ['store:read', 'reservations:read'] } as const;
/** The query of a list, with a cursor the list could have issued as its example. */
const pageQuery = (list: 'tables' | 'areas') =>
  Type.Object(
    {
      limit: LimitParam,
      cursor: Type.Optional({
        ...CursorParam,
        examples: [
          cursorAfter(
            {},
            keysetPosition(list, creationOrder, {
              id: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1d01',
              created_at: new Date('2026-10-08T09:30:00.000Z'),
            }),
          ),
        ],
      }),
    },
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
    querystring: pageQuery('tables'),
    response: {
      200: { ...ListOf(TableSchema), description: 'A page of tables.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: async (ctx, request) => {
    const page = await keysetPage('tables', creationOrder, request.query, (page) => listTables(ctx, page));
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
    querystring: pageQuery('areas'),
    response: {
      200: { ...ListOf(AreaSchema), description: 'A page of areas.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: async (ctx, request) => {
    const page = await keysetPage('areas', creationOrder, request.query, (page) => listAreas(ctx, page));
    return { ...page, data: page.data.map(publicArea) };
  },
});
