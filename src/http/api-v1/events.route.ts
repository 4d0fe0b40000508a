import Type from 'typebox';
import { EventListSchema, EventSchema } from '../../domain/events/event.schema.ts';
import { eventPageJson, getEvent, listEvents } from '../../domain/events/feed.service.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';

const json = 'application/json; charset=utf-8';

export const listEventsRoute = apiRoute({
  method: 'GET',
  url: '/events',
  auth: { scopes: [] },
  schema: {
    operationId: 'listEvents',
    summary: 'The events this connection may see, oldest first',
    description:
      'The restaurant’s events of the last 30 days that the token’s read scopes allow (`orders:read` → ' +
      '`order.*`, `menu:read` → `menu.*`, `store:read` → `store.*`, `reservations:read` → `reservation.*`), ' +
      'also those from before the app was connected, plus `app.*` events of this connection ' +
      '(never `app.disconnected`, never test events). Continue with `after` = the `next_after` of the ' +
      'previous page, stored once the whole page is processed; with `has_more` fetch again at once. ' +
      'An `after` no longer kept continues with the oldest kept event and `gap: true`.',
    tags: ['Events'],
    querystring: Type.Object(
      {
        after: Type.Optional(
          Type.String({
            pattern: '^(evt_[0-9a-f]{32}|latest)$',
            description:
              'The event to continue after (a `next_after`), or `latest`: no events, and a `next_after` at the newest one.',
          }),
        ),
        types: Type.Optional(
          Type.String({
            minLength: 1,
            description: 'Comma list of event types and groups, e.g. `order.created,menu.*`.',
          }),
        ),
        limit: Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Page size, 1 to 100.' }),
      },
      { additionalProperties: false },
    ),
    response: {
      200: { ...EventListSchema, description: 'A page of events, oldest first, and where to continue.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: async (ctx, request, _auth, reply) =>
    reply.type(json).send(eventPageJson(await listEvents(ctx, request.query))),
});

export const getEventRoute = apiRoute({
  method: 'GET',
  url: '/events/:id',
  auth: { scopes: [] },
  schema: {
    operationId: 'getEvent',
    summary: 'One event of this connection',
    description:
      'One event, exactly as the feed and webhooks send it. The id (`evt_` and 32 lowercase hex digits) ' +
      'is this connection’s: another connection’s id, an event outside the token’s read scopes, a test ' +
      'event or one older than 30 days is not found.',
    tags: ['Events'],
    params: Type.Object(
      { id: Type.String({ description: 'The event id, `evt_` and 32 lowercase hex digits.' }) },
      { additionalProperties: false },
    ),
    response: {
      200: { ...EventSchema, description: 'The event.' },
      ...errorResponses(400, 401, 403, 404, 429, 500),
    },
  },
  handler: async (ctx, request, _auth, reply) =>
    reply.type(json).send(await getEvent(ctx, request.params.id)),
});
