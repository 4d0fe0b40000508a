import Type from 'typebox';
import { EventListSchema, EventSchema } from '../../domain/events/event.schema.ts';
import {
  type EventFeedQuery,
  eventPageJson,
  getEvent,
  listEvents,
} from '../../domain/events/feed.service.ts';
import { beforeAnyEvent, eventIdPattern } from '../../domain/events/positions.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';

const json = 'application/json; charset=utf-8';
const eventIdDescription = 'The event id, `evt_` and 32 lowercase hex digits.';

export const listEventsRoute = apiRoute({
  method: 'GET',
  url: '/events',
  auth: { scopes: [] },
  links: {
    200: {
      getEvent: {
        operationId: 'getEvent',
        parameters: { id: '$response.body#/data/0/id' },
        description: 'Fetch the first event of the page on its own.',
      },
    },
  },
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
            examples: [beforeAnyEvent],
          }),
        ),
        types: Type.Optional(
          Type.String({
            minLength: 1,
            description: 'Comma list of event types and groups, e.g. `order.created,menu.*`.',
            examples: ['order.created,menu.*'],
          }),
        ),
        limit: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: 100,
            default: 50,
            description: 'Page size, 1 to 100.',
            examples: [50],
          }),
        ),
      },
      { additionalProperties: false },
    ),
    response: {
      200: { ...EventListSchema, description: 'A page of events, oldest first, and where to continue.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: async (ctx, request, _auth, reply) =>
    // Validation has filled in `limit`'s default (Ajv's useDefaults).
    reply.type(json).send(eventPageJson(await listEvents(ctx, request.query as EventFeedQuery))),
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
    // getEvent checks the id's pattern, after the query (docs/api-decisions.md, Events feed).
    params: Type.Object(
      { id: Type.String({ description: eventIdDescription }) },
      { additionalProperties: false },
    ),
    documentedParams: Type.Object(
      {
        id: Type.String({
          pattern: eventIdPattern.source,
          description: eventIdDescription,
          examples: ['evt_00000000000000017f3a9c2e5b8d4e61'],
        }),
      },
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
