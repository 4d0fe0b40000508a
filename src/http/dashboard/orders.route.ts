import type { Server } from 'node:http';
import { PassThrough } from 'node:stream';
import Type, { type Static, type TSchema } from 'typebox';
import { OrderBoardSchema } from '../../domain/orders/kitchen.schema.ts';
import { boardVersion, orderBoard } from '../../domain/orders/kitchen.service.ts';
import {
  AcceptInputSchema,
  AdvanceInputSchema,
  type Order,
  OrderSchema,
  ReasonInputSchema,
} from '../../domain/orders/order.schema.ts';
import {
  acceptOrder,
  advanceOrder,
  cancelOrder,
  rejectOrder,
} from '../../domain/orders/order-moves.service.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import type { SignedInAuth, SignedInRoute } from '../shared/signed-in-route.ts';
import { signedInRoute } from '../shared/signed-in-route.ts';

const base = '/dashboard/api/restaurants/:restaurant_id/orders';
const params = Type.Object(
  { restaurant_id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
const orderParams = Type.Object(
  { restaurant_id: Type.String({ format: 'uuid' }), order_id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
const noQuery = Type.Object({}, { additionalProperties: false });

/** The kitchen is the owners' and the staff's: both see the board and move its orders. */
/** A move of an order from the board: the same operation, body and state machine as the API's. */
function kitchenMove<B extends TSchema>(
  action: string,
  body: B,
  run: (ctx: Ctx, id: string, input: Static<B>) => Promise<Order>,
): SignedInRoute {
  return signedInRoute({
    method: 'POST',
    url: `${base}/:order_id/${action}`,
    auth: kitchenRoles,
    schema: { params: orderParams, querystring: noQuery, body, response: { 200: OrderSchema } },
    handler: (ctx, request) => run(ctx, request.params.order_id, request.body as Static<B>),
  });
}

export const kitchenRoles: SignedInAuth = { session: 'account', restaurantRoles: ['owner', 'staff'] };

/** How often an open stream reads the board's version. */
export const streamPollMs = 2000;
/** A comment line this often keeps proxies from closing a quiet stream. */
const heartbeatMs = 15_000;
/** A stream ends after this long; the browser opens a new one, and the session is checked again. */
const streamMaxMs = 10 * 60_000;

/** The open streams of each server, ended when it closes (a stream would otherwise hold it open). */
const openStreams = new WeakMap<Server, Set<() => void>>();

/** Ends the server's open order streams (its preClose hook: dashboard.plugin.ts). */
export function endOrderStreams(server: Server): void {
  for (const end of openStreams.get(server) ?? []) end();
}

/*
 * The board's live updates (text/event-stream): an `orders` event with the board's version when
 * the stream opens and whenever it changes (read every streamPollMs); the page reloads the board
 * when the version differs from the one it shows. The stream carries no order data: the board
 * itself is read with the session's rights, as any page.
 */
function orderStream(ctx: Ctx, server: Server): PassThrough {
  const stream = new PassThrough();
  const streams = openStreams.get(server) ?? new Set();
  openStreams.set(server, streams);
  let ended = false;
  let shown: string | null = null;
  let quietMs = 0;
  let timer: NodeJS.Timeout | undefined;
  const end = () => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    clearTimeout(deadline);
    streams.delete(end);
    stream.end();
  };
  const check = async () => {
    try {
      const version = await boardVersion(ctx);
      if (ended) return;
      if (version !== shown) {
        shown = version;
        quietMs = 0;
        stream.write(`event: orders\ndata: ${version}\n\n`);
      } else {
        quietMs += streamPollMs;
        if (quietMs >= heartbeatMs) {
          quietMs = 0;
          stream.write(': waiting\n\n');
        }
      }
      timer = setTimeout(check, streamPollMs);
    } catch {
      // The database is away: the browser reconnects after `retry`.
      end();
    }
  };
  const deadline = setTimeout(end, streamMaxMs);
  streams.add(end);
  stream.on('close', end);
  stream.write(`retry: ${streamPollMs * 2}\n\n`);
  void check();
  return stream;
}

/*
 * The order board in the dashboard's JSON API, for the restaurant's owners and staff: the board
 * (kitchen.service.ts), the moves with the same domain functions as the public API's (state
 * machine, events; a cancellation's `by` is `restaurant`), and the board's live updates.
 */
export const orderBoardRoutes: readonly SignedInRoute[] = [
  signedInRoute({
    method: 'GET',
    url: base,
    auth: kitchenRoles,
    schema: { params, querystring: noQuery, response: { 200: OrderBoardSchema } },
    handler: (ctx) => orderBoard(ctx),
  }),
  signedInRoute({
    method: 'GET',
    url: `${base}/stream`,
    auth: kitchenRoles,
    schema: {
      params,
      querystring: noQuery,
      response: {
        200: Type.String({
          description: 'text/event-stream: `orders` events, each with the board’s version as data.',
        }),
      },
    },
    handler: async (ctx, request, reply) => {
      reply.header('content-type', 'text/event-stream; charset=utf-8').header('x-accel-buffering', 'no');
      return orderStream(ctx, request.server.server);
    },
  }),
  kitchenMove('accept', AcceptInputSchema, acceptOrder),
  kitchenMove('advance', AdvanceInputSchema, advanceOrder),
  kitchenMove('cancel', ReasonInputSchema, cancelOrder),
  kitchenMove('reject', ReasonInputSchema, rejectOrder),
];
