import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OrderBoard } from '../../../domain/orders/kitchen.schema.ts';
import { orderBoard } from '../../../domain/orders/kitchen.service.ts';
import {
  printingSettings,
  printTicketAgain,
  setAutoPrint,
  ticketStates,
} from '../../../domain/orders/kitchen-printing.ts';
import { kitchenTicket } from '../../../domain/orders/kitchen-ticket.ts';
import {
  AcceptInputSchema,
  AdvanceInputSchema,
  type Order,
  orderStatuses,
  ReasonInputSchema,
} from '../../../domain/orders/order.schema.ts';
import {
  acceptOrder,
  advanceOrder,
  cancelOrder,
  nextInUse,
  rejectOrder,
} from '../../../domain/orders/order-moves.service.ts';
import { finalOrderStatuses, type OrderStatus } from '../../../domain/orders/order-status.ts';
import { currentRestaurant, restaurantCtxOrNull } from '../../../domain/restaurants/restaurant-gate.ts';
import type { Ctx, Role } from '../../../domain/shared/context.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { updateStore } from '../../../domain/store/store.service.ts';
import { translator } from '../../../i18n/i18n.ts';
import { formatDateTime } from '../../../i18n/local-time.ts';
import { formatMoney } from '../../../i18n/money.ts';
import { checkedInput } from '../../shared/validation.ts';
import { assetUrl } from '../../web/assets.ts';
import {
  type FormError,
  messagePage,
  type PageView,
  pageHeaders,
  renderPage,
  sendPage,
} from '../../web/page.ts';
import type { SignedInPageHandler } from '../../web/signed-in-pages.ts';
import { FormReader, type FormValues, sentValues } from './menu-forms.ts';
import { restaurantNavigation, restaurantNotFound } from './restaurant-page.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Who works the board: owners and staff, as in the JSON API (orders.route.ts). */
const kitchen: readonly Role[] = ['owner', 'staff'];

/** The prep times offered when accepting, in minutes (the API takes 1 to 240). */
const prepChoices = [10, 15, 20, 30, 45, 60, 90];
const defaultPrep = 20;
/** Busy mode from the board: these extra minutes, for an hour. */
const busyChoices = [15, 30, 45];
const busyMs = 60 * 60 * 1000;

/** The messages after a write, shown above the board (`?done=`, `?problem=`). */
const doneMessages = new Set([
  'accepted',
  'advanced',
  'cancelled',
  'rejected',
  'busy',
  'busyEnded',
  'printQueued',
  'autoPrintOn',
  'autoPrintOff',
]);
const problemMessages = new Set(['changed', 'noPrinter']);

/*
 * The order page may run its one script (kitchen.js: live updates, the chime and automatic
 * printing), from our own origin, read the board's fragment and stream, and load tickets in a
 * frame to print them; everything else as on every page.
 */
const boardPolicy = pageHeaders({ formActionSelf: true, referrer: 'same-origin' })[
  'content-security-policy'
].replace(
  "default-src 'none';",
  "default-src 'none'; script-src 'self'; connect-src 'self'; frame-src 'self';",
);
/** A ticket's print view runs its Print button's script, and may be framed by the board (ours alone). */
const ticketPolicy = pageHeaders({ formActionSelf: true, referrer: 'same-origin' })
  ['content-security-policy'].replace("default-src 'none';", "default-src 'none'; script-src 'self';")
  .replace("frame-ancestors 'none'", "frame-ancestors 'self'");

interface BoardPage {
  ctx: Ctx;
  view: PageView;
  restaurant: { id: string; name: string; timezone: string };
  role: Role;
  /** The board page's path; the forms' paths are below it. */
  home: string;
}

/** A move of an order from its card: the form read into the API's input, and the service. */
interface Move {
  read(form: FormReader): object;
  schema: object;
  run(ctx: Ctx, id: string, input: never): Promise<Order>;
  done: string;
}

const reasonOf = (form: FormReader) => {
  const reason = form.optionalText('reason');
  return reason === null ? {} : { reason: reason.trim() };
};

const moves: Record<'accept' | 'advance' | 'cancel' | 'reject', Move> = {
  accept: {
    read: (form) => {
      const prep = form.integer('prep_minutes');
      return prep === undefined ? {} : { prep_minutes: prep };
    },
    schema: AcceptInputSchema,
    run: acceptOrder,
    done: 'accepted',
  },
  advance: {
    read: (form) => ({ status: form.text('status') }),
    schema: AdvanceInputSchema,
    run: advanceOrder,
    done: 'advanced',
  },
  cancel: { read: reasonOf, schema: ReasonInputSchema, run: cancelOrder, done: 'cancelled' },
  reject: { read: reasonOf, schema: ReasonInputSchema, run: rejectOrder, done: 'rejected' },
};

/** The answer for an order the restaurant does not have: 404. */
function orderNotFound(reply: FastifyReply, view: PageView): FastifyReply {
  return sendPage(
    reply,
    404,
    messagePage(view, { title: view.t('errors.notFoundTitle'), message: view.t('errors.notFound') }),
  );
}

/**
 * The board's columns: the statuses the restaurant uses, then completed and cancelled, and a
 * status no longer in use while orders still have it (they stay visible and can move on).
 */
function columnsOf(board: OrderBoard): Array<{ status: OrderStatus; orders: Order[] }> {
  return orderStatuses
    .filter(
      (status) =>
        board.order_statuses.includes(status) || board.orders.some((order) => order.status === status),
    )
    .map((status) => ({ status, orders: board.orders.filter((order) => order.status === status) }));
}

/*
 * The order board at `/dashboard/restaurants/{id}/orders`, for the restaurant's owners and staff
 * (anyone else: the restaurant is 404): a column per status with a card per order, and busy mode.
 * Each card's buttons are plain forms (post, CSRF-checked, then 303 back to the board with what
 * was done) through the order moves' domain functions in one transaction, so the state machine
 * and the events are the API's, with the account as actor. An order that changed meanwhile sends
 * the browser back with a note; a reason over the limit shows the board again (400) with the error
 * beside that card's field. With JavaScript the page also follows the JSON API's stream and reloads
 * the board (`…/orders/board`, the board alone) when it changes, and chimes for a new order.
 * Kitchen tickets: each order's print view for 80 mm paper (`…/orders/{id}/ticket`), the owners'
 * switch for automatic printing (`…/orders/auto-print`) and "Print again" on the network printer
 * (`…/orders/{id}/print`, owners and staff: kitchen-printing.ts).
 */
export function ordersPages(app: FastifyInstance, signedInPage: Wrap): void {
  const withCsrf = { preHandler: app.csrfProtection };
  const base = '/dashboard/restaurants/:restaurantId/orders';

  const boardPage = (
    roles: readonly Role[],
    handler: (request: FastifyRequest, reply: FastifyReply, page: BoardPage) => Promise<FastifyReply>,
  ) =>
    signedInPage(async (request, reply, signedIn) => {
      const { restaurantId } = request.params as { restaurantId: string };
      const ctx = await restaurantCtxOrNull(signedIn.ctx, restaurantId, roles);
      const role = ctx?.actor.kind === 'account' ? ctx.actor.role : null;
      if (!ctx || !role) return restaurantNotFound(reply, signedIn.view());
      const view = signedIn.view();
      const restaurant = await currentRestaurant(ctx);
      return handler(request, reply, {
        ctx,
        view: {
          ...view,
          t: translator(view.locale, ['kitchen', 'dashboard', 'pages']),
          nav: restaurantNavigation(view, restaurant.id, 'orders', role),
        },
        restaurant,
        role,
        home: `/dashboard/restaurants/${restaurant.id}/orders`,
      });
    });

  /** What the board's templates use: the board, its columns and the formatting of its values. */
  const boardData = async (page: BoardPage, values: FormValues, errors: FormError[]) => {
    const board = await orderBoard(page.ctx);
    const tickets = await ticketStates(
      page.ctx,
      board.orders.map((order) => order.id),
    );
    const printing = await printingSettings(page.ctx);
    const inUse = board.order_statuses.filter(
      (status) => !(finalOrderStatuses as readonly string[]).includes(status),
    ) as OrderStatus[];
    const { locale } = page.view;
    return {
      restaurant: page.restaurant,
      role: page.role,
      home: page.home,
      board,
      columns: columnsOf(board),
      tickets,
      printing,
      next: (order: Order) => nextInUse(inUse, order.status),
      stream: `/dashboard/api/restaurants/${page.restaurant.id}/orders/stream`,
      prepChoices,
      defaultPrep,
      busyChoices,
      values,
      errors,
      money: (minor: number) => formatMoney(minor, board.currency, locale),
      time: (at: Date | string) => formatDateTime(at, board.timezone, locale),
    };
  };

  const showBoard = async (
    reply: FastifyReply,
    page: BoardPage,
    messages: { done?: string | null; problem?: string | null } = {},
    form: { values: FormValues; errors: FormError[] } = { values: {}, errors: [] },
  ) => {
    const data = await boardData(page, form.values, form.errors);
    return sendPage(
      reply,
      form.errors.length > 0 ? 400 : 200,
      renderPage('dashboard/pages/orders', page.view, {
        ...data,
        done: messages.done ?? null,
        problem: messages.problem ?? null,
        script: assetUrl('kitchen.js'),
        styles: assetUrl('kitchen.css'),
      }),
    );
  };

  // After the surface's own headers (a route's hooks run after its plugin's): the script's policy.
  const boardHeaders = {
    onSend: async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      reply.header('content-security-policy', boardPolicy);
      return payload;
    },
  };

  app.get(
    base,
    boardHeaders,
    boardPage(kitchen, async (request, reply, page) => {
      const { done, problem } = request.query as { done?: string; problem?: string };
      return showBoard(reply, page, {
        done: done !== undefined && doneMessages.has(done) ? done : null,
        problem: problem !== undefined && problemMessages.has(problem) ? problem : null,
      });
    }),
  );

  // The board alone, for the page's script to swap in when the stream reports a change.
  app.get(
    `${base}/board`,
    boardPage(kitchen, async (_request, reply, page) =>
      sendPage(
        reply,
        200,
        renderPage('dashboard/pages/orders-board', page.view, await boardData(page, {}, [])),
      ),
    ),
  );

  // An order's kitchen ticket made for 80 mm paper, in the restaurant's language; the board's
  // script loads it in a frame to print it, the card links to it.
  app.get(
    `${base}/:orderId/ticket`,
    {
      onSend: async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        reply.header('content-security-policy', ticketPolicy).header('x-frame-options', 'SAMEORIGIN');
        return payload;
      },
    },
    boardPage(kitchen, async (request, reply, page) => {
      const { orderId } = request.params as { orderId: string };
      try {
        const ticket = await kitchenTicket(page.ctx, orderId);
        return sendPage(
          reply,
          200,
          renderPage('dashboard/pages/orders-ticket', page.view, {
            ticket,
            restaurant: page.restaurant,
            home: page.home,
            script: assetUrl('print-button.js'),
            styles: assetUrl('kitchen.css'),
          }),
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return orderNotFound(reply, page.view);
        throw error;
      }
    }),
  );

  /** Runs a write in one transaction, as the signed-in account in the restaurant. */
  const write = (page: BoardPage, work: (ctx: Ctx) => Promise<unknown>) =>
    writeTransaction(page.ctx.db, (trx) => work({ ...page.ctx, db: trx }));

  app.post(
    `${base}/busy`,
    { ...withCsrf, ...boardHeaders },
    boardPage(['owner'], async (request, reply, page) => {
      const form = new FormReader(sentValues(request.body));
      const choice = form.text('minutes');
      const minutes = Number(choice);
      if (choice !== 'end' && !busyChoices.includes(minutes))
        return showBoard(
          reply,
          page,
          {},
          { values: {}, errors: [{ message: page.view.t('errors.invalid') }] },
        );
      const until = new Date(page.ctx.clock.now().getTime() + busyMs).toISOString();
      await write(page, (ctx) =>
        updateStore(ctx, { busy: choice === 'end' ? null : { extra_minutes: minutes, until } }),
      );
      return reply.redirect(`${page.home}?done=${choice === 'end' ? 'busyEnded' : 'busy'}`, 303);
    }),
  );

  // The board's switch for automatic printing (owners): `auto_print` on or off.
  app.post(
    `${base}/auto-print`,
    { ...withCsrf, ...boardHeaders },
    boardPage(['owner'], async (request, reply, page) => {
      const choice = new FormReader(sentValues(request.body)).text('auto_print');
      if (choice !== 'on' && choice !== 'off')
        return showBoard(
          reply,
          page,
          {},
          { values: {}, errors: [{ message: page.view.t('errors.invalid') }] },
        );
      await write(page, (ctx) => setAutoPrint(ctx, choice === 'on'));
      return reply.redirect(`${page.home}?done=${choice === 'on' ? 'autoPrintOn' : 'autoPrintOff'}`, 303);
    }),
  );

  // "Print again": the ticket queued for the network printer once more (never twice at once).
  app.post(
    `${base}/:orderId/print`,
    { ...withCsrf, ...boardHeaders },
    boardPage(kitchen, async (request, reply, page) => {
      const { orderId } = request.params as { orderId: string };
      try {
        await write(page, (ctx) => printTicketAgain(ctx, orderId));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.code === 'not_found') return orderNotFound(reply, page.view);
        if (error.code !== 'invalid_request') throw error;
        return reply.redirect(`${page.home}?problem=noPrinter#order-${orderId}`, 303);
      }
      return reply.redirect(`${page.home}?done=printQueued#order-${orderId}`, 303);
    }),
  );

  for (const [name, move] of Object.entries(moves))
    app.post(
      `${base}/:orderId/${name}`,
      { ...withCsrf, ...boardHeaders },
      boardPage(kitchen, async (request, reply, page) => {
        const { orderId } = request.params as { orderId: string };
        const values = sentValues(request.body);
        const form = new FormReader(values);
        const input = move.read(form);
        const refused = (errors: FormError[]) =>
          showBoard(reply, page, {}, { values: { ...values, orderId }, errors });
        if (form.invalid.length > 0) return refused([{ message: page.view.t('errors.invalid') }]);
        try {
          await write(page, (ctx) => move.run(ctx, orderId, checkedInput(move.schema, input) as never));
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          // No such order here (another restaurant's included): the 404 page, as everywhere else.
          if (error.code === 'not_found') return orderNotFound(reply, page.view);
          if (['invalid_transition', 'stage_not_used'].includes(error.code))
            return reply.redirect(`${page.home}?problem=changed#order-${orderId}`, 303);
          if (error.code !== 'invalid_request') throw error;
          return refused(
            error.param === 'reason'
              ? [{ message: page.view.t('errors.reason'), field: `reason-${orderId}` }]
              : [{ message: page.view.t('errors.invalid') }],
          );
        }
        return reply.redirect(`${page.home}?done=${move.done}#order-${orderId}`, 303);
      }),
    );
}
