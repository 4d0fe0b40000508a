import { ConnectionRevokedSchema } from '../../domain/connections/connection.schema.ts';
import { endConnection } from '../../domain/connections/connections.service.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';

export const deleteConnection = apiRoute({
  method: 'DELETE',
  url: '/connection',
  auth: { scopes: [], whenInactive: true },
  destructive: 'access',
  schema: {
    operationId: 'deleteConnection',
    summary: 'End the connection: every token of it is revoked, this one too',
    description:
      'Ends the app’s connection to the restaurant: every access token of the connection is revoked at ' +
      'once, including the one of this request, and later requests with them answer 401. To act for the ' +
      'restaurant again the app needs the owner’s consent anew. It works even while the restaurant’s ' +
      'subscription is inactive.',
    tags: ['Connection'],
    response: {
      200: { ...ConnectionRevokedSchema, description: 'The connection has ended; its tokens are revoked.' },
      ...errorResponses(400, 401, 429, 500),
    },
  },
  handler: async (ctx) => endConnection(ctx),
});
