import { ConnectionRevokedSchema } from '../../domain/connections/connection.schema.ts';
import { endConnection } from '../../domain/connections/connections.service.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';

export const deleteConnection = apiRoute({
  method: 'DELETE',
  url: '/connection',
  auth: { scopes: [], whenInactive: true },
  schema: {
    operationId: 'deleteConnection',
    summary: 'End the connection: every token of it is revoked, this one too',
    tags: ['Connection'],
    response: { 200: ConnectionRevokedSchema, ...errorResponses(400, 401, 429, 500) },
  },
  handler: async (ctx) => endConnection(ctx),
});
