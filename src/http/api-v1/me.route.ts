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
    description:
      'The connection of the access token: the app, the restaurant it acts for, the scopes of this token, ' +
      'the restaurant’s plan and the rate limit. It answers even while the restaurant’s subscription is ' +
      'inactive, so an app can find out why other requests are refused.',
    tags: ['Connection'],
    response: {
      200: {
        ...ConnectionSchema,
        description: 'The connection: its app, restaurant, the scopes of this token, plan and rate limit.',
      },
      ...errorResponses(400, 401, 429, 500),
    },
  },
  handler: async (_ctx, _request, auth) => auth.connection,
});
