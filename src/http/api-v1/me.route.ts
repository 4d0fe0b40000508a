import { ConnectionSchema } from '../../domain/connections/connection.schema.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';

export const getMe = apiRoute({
  method: 'GET',
  url: '/me',
  auth: { scopes: [], whenInactive: true },
  schema: {
    operationId: 'getMe',
    summary: 'The connection this access token belongs to',
    tags: ['Connection'],
    response: { 200: ConnectionSchema, ...errorResponses(400, 401, 429, 500) },
  },
  handler: async (_ctx, _request, auth) => auth.connection,
});
