import Type from 'typebox';
import {
  AcceptInputSchema,
  AcknowledgeInputSchema,
  AdvanceInputSchema,
  OrderSchema,
  ReasonInputSchema,
} from '../../domain/orders/order.schema.ts';
import {
  acceptOrder,
  acknowledgeOrder,
  advanceOrder,
  cancelOrder,
  rejectOrder,
} from '../../domain/orders/order-moves.service.ts';
import {
  getOrder,
  listOrders,
  type OrderFilters,
  orderListOrder,
} from '../../domain/orders/orders.service.ts';
import { parseTimestamp } from '../../domain/shared/timestamps.ts';
import {
  CursorParam,
  cursorAfter,
  keysetPage,
  keysetPosition,
  LimitParam,
  ListOf,
  listJson,
} from '../shared/pagination.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';
import { commaListParam, instantParam } from './list-params.ts';
import { IdParams, menuListFilters } from './menu-params.ts';

const tags = ['Orders'];
const read = { scopes: ['orders:read'] } as const;
const write = { scopes: ['orders:write'] } as const;
const list = 'orders';
const order200 = { 200: { ...OrderSchema, description: 'The order as your app sees it.' } };
const writeErrors = errorResponses(400, 401, 403, 404, 409, 413, 422, 429, 500);

/** The filters' examples together: the cursor's example is bound to them (a request of all the examples works). */
const filterExamples = {
  status: 'pending,confirmed',
  type: 'pickup,delivery',
  updated_since: '2026-10-08T09:30:00.000Z',
  created_since: '2026-10-08T09:30:00.000Z',
  created_until: '2026-10-08T09:30:00.000Z',
  paid: true,
  acknowledged: false,
  external_id: 'POS-10492',
};
const cursorExample = cursorAfter(
  filterExamples,
  keysetPosition(list, orderListOrder({ updated_since: new Date() }), {
    id: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c02',
    updated_at: new Date('2026-10-08T10:00:00.000Z'),
  }),
);

const OrderListQuery = Type.Object(
  {
    status: Type.Optional(
      commaListParam(
        ['pending', 'confirmed', 'preparing', 'ready', 'completed', 'cancelled'],
        'pending,confirmed',
      ),
    ),
    type: Type.Optional(commaListParam(['pickup', 'delivery', 'dine_in'], 'pickup,delivery')),
    updated_since: Type.Optional(
      instantParam('Changed after this instant (exclusive); switches to ascending `updated_at` order.'),
    ),
    created_since: Type.Optional(instantParam('Placed at or after this instant.')),
    created_until: Type.Optional(instantParam('Placed before this instant.')),
    paid: Type.Optional(
      Type.Boolean({ description: 'true: paid online; false: paid on site.', examples: [true] }),
    ),
    acknowledged: Type.Optional(
      Type.Boolean({
        description:
          'Relative to your app only. `false` has no time limit (completed, cancelled and pre-connection orders ' +
          'too), so combine it with `created_since`.',
        examples: [false],
      }),
    ),
    external_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'The order your app acknowledged with this value.',
        examples: ['POS-10492'],
      }),
    ),
    limit: LimitParam,
    cursor: Type.Optional({ ...CursorParam, examples: [cursorExample] }),
  },
  { additionalProperties: false },
);

/** The page's first orders, one for each operation on an order (each needs one still pending). */
const orderLinks = Object.fromEntries(
  ['getOrder', 'acknowledgeOrder', 'acceptOrder', 'rejectOrder', 'cancelOrder', 'advanceOrder'].map(
    (operationId, index) => [
      operationId,
      {
        operationId,
        parameters: { id: `$response.body#/data/${Math.max(0, index - 1)}/id` },
        description: `Work on the page's order number ${Math.max(0, index - 1) + 1}.`,
      },
    ],
  ),
);

export const listOrdersRoute = apiRoute({
  method: 'GET',
  url: '/orders',
  auth: read,
  links: { 200: orderLinks },
  schema: {
    operationId: 'listOrders',
    summary: 'Orders, most recently changed first',
    description:
      'Most recently changed first; ascending `updated_at` (then id) with `updated_since`. Polling: pass the ' +
      'last processed `updated_at` minus one minute as `updated_since` and deduplicate by `id` + `updated_at`. ' +
      'Unpaid online orders are not listed until their payment is confirmed. Send a cursor with the same filters.',
    tags,
    querystring: OrderListQuery,
    response: {
      200: { ...ListOf(OrderSchema), description: 'A page of orders.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: async (ctx, request, _auth, reply) => {
    const { status, type, created_since, created_until, paid, acknowledged } = request.query;
    const filters: OrderFilters = {
      ...(status !== undefined && { status: status.split(',') }),
      ...(type !== undefined && { type: type.split(',') }),
      ...(created_since !== undefined && { created_since: parseTimestamp(created_since) as Date }),
      ...(created_until !== undefined && { created_until: parseTimestamp(created_until) as Date }),
      ...(paid !== undefined && { paid }),
      ...(acknowledged !== undefined && { acknowledged }),
      ...menuListFilters(request),
    };
    const page = await keysetPage(list, orderListOrder(filters), request.query, (range) =>
      listOrders(ctx, filters, range),
    );
    return reply.type('application/json; charset=utf-8').send(listJson(page, (order) => order.json));
  },
});

export const getOrderRoute = apiRoute({
  method: 'GET',
  url: '/orders/:id',
  auth: read,
  schema: {
    operationId: 'getOrder',
    summary: 'One order',
    description:
      'With your app’s own `external_id` and `acknowledged_at`. Another restaurant’s order is never found.',
    tags,
    params: IdParams,
    response: { ...order200, ...errorResponses(400, 401, 403, 404, 429, 500) },
  },
  handler: (ctx, request) => getOrder(ctx, request.params.id),
});

/** An order write: POST /orders/{id}/<action>, scope orders:write, Idempotency-Key taken. */
function orderWrite<
  B extends
    | typeof AcknowledgeInputSchema
    | typeof AcceptInputSchema
    | typeof ReasonInputSchema
    | typeof AdvanceInputSchema,
>(
  action: string,
  operationId: string,
  summary: string,
  description: string,
  body: B,
  run: Parameters<
    typeof apiRoute<{
      params: typeof IdParams;
      body: B;
      response: object;
      operationId: string;
      summary: string;
      description: string;
      tags: string[];
    }>
  >[0]['handler'],
) {
  return apiRoute({
    method: 'POST',
    url: `/orders/:id/${action}`,
    auth: write,
    bodyMayBeAbsent: true,
    schema: {
      operationId,
      summary,
      description: `${description} The body may be left out. Takes \`Idempotency-Key\`.`,
      tags,
      params: IdParams,
      body,
      response: { ...order200, ...writeErrors },
    },
    handler: run,
  });
}

export const acknowledgeOrderRoute = orderWrite(
  'acknowledge',
  'acknowledgeOrder',
  'Take an order over, with your own reference',
  'Marks the order as taken over by your app: it drops out of `acknowledged=false`. Acknowledging again ' +
    'keeps the first `acknowledged_at` and may change `external_id` (null clears it; absent keeps it). A value ' +
    'your app already uses for another order is 409 `external_id_taken`. Changes nothing other apps see and ' +
    'emits no event.',
  AcknowledgeInputSchema,
  (ctx, request) => acknowledgeOrder(ctx, request.params.id, request.body),
);

export const acceptOrderRoute = orderWrite(
  'accept',
  'acceptOrder',
  'Accept an order',
  'A pending order moves to the next status the restaurant uses (emits `order.status_changed`); one already ' +
    'past pending stays as it is (200); a completed or cancelled one is 409 `invalid_transition`. ' +
    '`prep_minutes` (an addition) sets `estimated_ready_at` when the order moves.',
  AcceptInputSchema,
  (ctx, request) => acceptOrder(ctx, request.params.id, request.body),
);

export const rejectOrderRoute = orderWrite(
  'reject',
  'rejectOrder',
  'Reject a pending order',
  'Only a pending order, to `cancelled` (emits `order.cancelled` with `previous_status` and `reason`); ' +
    'otherwise 409 `invalid_transition`. `reason` up to 200 characters.',
  ReasonInputSchema,
  (ctx, request) => rejectOrder(ctx, request.params.id, request.body),
);

export const cancelOrderRoute = orderWrite(
  'cancel',
  'cancelOrder',
  'Cancel an order',
  'From any status that is not final, to `cancelled` (emits `order.cancelled` with `previous_status` and ' +
    '`reason`); from completed or cancelled 409 `invalid_transition`. `reason` up to 200 characters.',
  ReasonInputSchema,
  (ctx, request) => cancelOrder(ctx, request.params.id, request.body),
);

export const advanceOrderRoute = orderWrite(
  'advance',
  'advanceOrder',
  'Move an order forward',
  'Without `status`, to the next status the restaurant uses (after the last one: `completed`); with it, ' +
    'forward to that status. A status the restaurant does not use is 409 `stage_not_used`; backward or out of ' +
    'a final status 409 `invalid_transition`; `cancelled` is reached only by reject or cancel (400). Emits ' +
    '`order.status_changed` with `previous_status`.',
  AdvanceInputSchema,
  (ctx, request) => advanceOrder(ctx, request.params.id, request.body),
);

export const orderRoutes = [
  listOrdersRoute,
  getOrderRoute,
  acknowledgeOrderRoute,
  acceptOrderRoute,
  rejectOrderRoute,
  cancelOrderRoute,
  advanceOrderRoute,
];
