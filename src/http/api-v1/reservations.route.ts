import Type from 'typebox';
import { availability } from '../../domain/reservations/availability.ts';
import {
  AvailabilityQuerySchema,
  AvailabilitySchema,
  ReservationInputSchema,
  ReservationPatchSchema,
  ReservationSchema,
} from '../../domain/reservations/reservation.schema.ts';
import { reservationStatuses } from '../../domain/reservations/reservation-status.ts';
import {
  createReservation,
  getReservation,
  listReservations,
  type ReservationFilters,
  reservationListOrder,
  updateReservation,
} from '../../domain/reservations/reservations.service.ts';
import { parseTimestamp } from '../../domain/shared/timestamps.ts';
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
import { commaListParam, instantParam } from './list-params.ts';
import { IdParams } from './menu-params.ts';

const tags = ['Reservations'];
const read = { scopes: ['reservations:read'], feature: 'reservations' } as const;
const write = { scopes: ['reservations:write'], feature: 'reservations' } as const;
const list = 'reservations';
const reservation200 = { ...ReservationSchema, description: 'The reservation.' };

/** The filters' examples together: the cursor's example is bound to them (a request of all the examples works). */
const filterExamples = {
  status: 'pending,confirmed',
  updated_since: '2026-10-08T09:30:00.000Z',
  starts_from: '2026-10-09T00:00:00.000Z',
  starts_until: '2026-10-10T00:00:00.000Z',
};
const cursorExample = cursorAfter(
  filterExamples,
  keysetPosition(list, reservationListOrder({ starts_from: new Date() }), {
    id: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c05',
    updated_at: new Date('2026-10-08T10:00:00.000Z'),
    starts_at: new Date('2026-10-09T17:30:00.000Z'),
  }),
);

const ReservationListQuery = Type.Object(
  {
    status: Type.Optional(commaListParam(reservationStatuses, filterExamples.status)),
    updated_since: Type.Optional(
      instantParam('Changed after this instant (exclusive); switches to ascending `updated_at` order.'),
    ),
    starts_from: Type.Optional({
      ...instantParam('Starting at or after this instant; switches to ascending `starts_at`.'),
      examples: [filterExamples.starts_from],
    }),
    starts_until: Type.Optional({
      ...instantParam('Starting before this instant; switches to ascending `starts_at`.'),
      examples: [filterExamples.starts_until],
    }),
    limit: LimitParam,
    cursor: Type.Optional({ ...CursorParam, examples: [cursorExample] }),
  },
  { additionalProperties: false },
);

export const listReservationsRoute = apiRoute({
  method: 'GET',
  url: '/reservations',
  auth: read,
  schema: {
    operationId: 'listReservations',
    summary: 'Reservations, most recently changed first',
    description:
      'Most recently changed first; ascending `updated_at` (then id) with `updated_since`; ascending `starts_at` ' +
      '(then id) with `starts_from` or `starts_until` (these win over `updated_since`). Deleted reservations are ' +
      'never listed. Send a cursor with the same filters.',
    tags,
    querystring: ReservationListQuery,
    response: {
      200: { ...ListOf(ReservationSchema), description: 'A page of reservations.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: async (ctx, request) => {
    const { status, updated_since, starts_from, starts_until } = request.query;
    const at = (text: string | undefined) =>
      text === undefined ? undefined : (parseTimestamp(text) as Date);
    const filters: ReservationFilters = {
      ...(status !== undefined && { status: status.split(',') }),
      ...(updated_since !== undefined && { updated_since: at(updated_since) }),
      ...(starts_from !== undefined && { starts_from: at(starts_from) }),
      ...(starts_until !== undefined && { starts_until: at(starts_until) }),
    };
    return keysetPage(list, reservationListOrder(filters), request.query, (range) =>
      listReservations(ctx, filters, range),
    );
  },
});

export const availabilityRoute = apiRoute({
  method: 'GET',
  url: '/reservations/availability',
  auth: read,
  schema: {
    operationId: 'getReservationAvailability',
    summary: 'Bookable times of a day for a party',
    description:
      'The times of one restaurant-local date (yesterday to one year ahead), from each opening in the ' +
      'configured interval up to the last seating; without a weekly schedule none (a special day with its own ' +
      'hours still has times). `available`: the time is not past and a table or allowed combination of tables ' +
      'is free for the party for the whole default duration. Books like staff: every table, no lead time.',
    tags,
    querystring: AvailabilityQuerySchema,
    response: {
      200: { ...AvailabilitySchema, description: 'The day’s times.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: (ctx, request) =>
    availability(ctx, { date: request.query.date, party_size: request.query.party_size, guest: false }),
});

export const getReservationRoute = apiRoute({
  method: 'GET',
  url: '/reservations/:id',
  auth: read,
  schema: {
    operationId: 'getReservation',
    summary: 'One reservation',
    description: 'A deleted reservation, or another restaurant’s, is never found.',
    tags,
    params: IdParams,
    response: { 200: reservation200, ...errorResponses(400, 401, 403, 404, 429, 500) },
  },
  handler: (ctx, request) => getReservation(ctx, request.params.id),
});

/** The new reservation's read and change take its id (OpenAPI links; deleting is the dashboard's). */
const newReservationLinks = Object.fromEntries(
  [
    ['getReservation', 'Read'],
    ['updateReservation', 'Change'],
  ].map(([operationId, verb]) => [
    operationId,
    { operationId, parameters: { id: '$response.body#/id' }, description: `${verb} the new reservation.` },
  ]),
);

export const createReservationRoute = apiRoute({
  method: 'POST',
  url: '/reservations',
  auth: write,
  links: { 201: newReservationLinks },
  schema: {
    operationId: 'createReservation',
    summary: 'Book a table',
    description:
      'Books like staff (every table, no lead time, no horizon) but never overbooks: a time not offered for its ' +
      'day, a past time, or no free table is 409 `slot_unavailable`. Without `table_ids` the reservation has no ' +
      'tables yet (`table_ids` empty) but still needs a free table for the party, and holds that room (assign ' +
      'tables later with PATCH). Emits `reservation.created`; with ' +
      '`guest_email` the guest is e-mailed unless `notify_guest` is false (never from a test restaurant).',
    tags,
    body: ReservationInputSchema,
    response: {
      201: { ...ReservationSchema, description: 'The new reservation, `source` = `api`.' },
      ...errorResponses(400, 401, 403, 409, 413, 422, 429, 500),
    },
  },
  handler: async (ctx, request, _auth, reply) => {
    reply.code(201);
    return createReservation(ctx, request.body, 'api');
  },
});

export const updateReservationRoute = apiRoute({
  method: 'PATCH',
  url: '/reservations/:id',
  auth: write,
  idempotencyKey: true,
  schema: {
    operationId: 'updateReservation',
    summary: 'Change a reservation or its status',
    description:
      'Any of the fields, at least one. `status` follows the transitions (pending → confirmed, declined, ' +
      'cancelled; confirmed → seated, cancelled, no_show; seated → done); anything else is 409 ' +
      '`invalid_transition` naming the statuses possible now. Time, party, duration and tables change only ' +
      'while pending or confirmed (else 409 `invalid_transition`) and must still be bookable (409 ' +
      '`slot_unavailable`); the tables are kept while they still fit, else Servery assigns others; a reservation ' +
      'without tables stays without unless `table_ids` is sent (`[]`: Servery assigns). A 409 ' +
      'changes nothing. Emits `reservation.updated` with `changed` and `previous` (and `previous_status`); a ' +
      'PATCH that changes nothing emits nothing. Takes `Idempotency-Key`.',
    tags,
    params: IdParams,
    body: ReservationPatchSchema,
    response: { 200: reservation200, ...errorResponses(400, 401, 403, 404, 409, 413, 422, 429, 500) },
  },
  handler: (ctx, request) => updateReservation(ctx, request.params.id, request.body),
});

export const reservationRoutes = [
  listReservationsRoute,
  availabilityRoute,
  getReservationRoute,
  createReservationRoute,
  updateReservationRoute,
];
