import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  disconnectApp,
  listRestaurantConnections,
  type RestaurantConnection,
  restaurantConnection,
} from '../../../domain/connections/restaurant-connections.ts';
import { currentRestaurant, restaurantCtxOrNull } from '../../../domain/restaurants/restaurant-gate.ts';
import type { Ctx, Role } from '../../../domain/shared/context.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { translator } from '../../../i18n/i18n.ts';
import { formatDateTime } from '../../../i18n/local-time.ts';
import { messagePage, type PageView, renderPage, sendPage } from '../../web/page.ts';
import type { SignedInPageHandler } from '../../web/signed-in-pages.ts';
import { restaurantNavigation, restaurantNotFound } from './restaurant-page.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Who sees and disconnects the connected apps: owners, as in the JSON API (connections.route.ts). */
const owners: readonly Role[] = ['owner'];

interface AppsPage {
  ctx: Ctx;
  view: PageView;
  restaurant: { id: string; name: string; timezone: string };
  /** The apps page's path; each app's disconnect page is below it. */
  home: string;
}

type AppsPageHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  page: AppsPage,
) => Promise<FastifyReply>;

/*
 * The restaurant's connected apps at `/dashboard/restaurants/{id}/apps`, for its owners (anyone
 * else: the restaurant is 404): each active connection with its app (name, logo, website), what
 * it may do (the scopes as the consent page words them, in the owner's language) and since when
 * (the restaurant's time). Disconnecting asks first on a page of its own (no script), then ends
 * the connection as the API's DELETE does (disconnectApp: its tokens stop working at once,
 * `app.disconnected` with reason `restaurant`, the owners e-mailed); another restaurant's
 * connection, or one already ended, is the app-not-found page.
 */
export function appsPages(app: FastifyInstance, signedInPage: Wrap): void {
  const base = '/dashboard/restaurants/:restaurantId/apps';

  const appsPage = (handler: AppsPageHandler) =>
    signedInPage(async (request, reply, signedIn) => {
      const { restaurantId } = request.params as { restaurantId: string };
      const ctx = await restaurantCtxOrNull(signedIn.ctx, restaurantId, owners);
      if (!ctx) return restaurantNotFound(reply, signedIn.view());
      const view = signedIn.view('dashboard-apps');
      const restaurant = await currentRestaurant(ctx);
      return handler(request, reply, {
        ctx,
        view: { ...view, nav: restaurantNavigation(view, restaurant.id, 'apps', 'owner') },
        restaurant,
        home: `/dashboard/restaurants/${restaurant.id}/apps`,
      });
    });

  /** A connection as the pages show it: its abilities in the page's language, its start local. */
  const shown = (connection: RestaurantConnection, page: AppsPage) => {
    const consent = translator(page.view.locale, 'consent');
    return {
      ...connection,
      // The consent catalog's keys are the scopes themselves, colon and all.
      abilities: connection.scopes.map((scope) => consent(`scopes.${scope}`, { nsSeparator: false })),
      since: formatDateTime(connection.created_at, page.restaurant.timezone, page.view.locale),
    };
  };

  const notConnected = (reply: FastifyReply, page: AppsPage) =>
    sendPage(
      reply,
      404,
      messagePage(page.view, {
        title: page.view.t('apps.notFoundTitle'),
        message: page.view.t('apps.notFound'),
        link: { href: page.home, text: page.view.t('apps.back') },
      }),
    );

  /** The connection of the path in the page's restaurant, or null (another's, ended, unknown). */
  const connectionOf = async (request: FastifyRequest, page: AppsPage) => {
    const { connectionId } = request.params as { connectionId: string };
    try {
      return await restaurantConnection(page.ctx, connectionId);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return null;
      throw error;
    }
  };

  app.get(
    base,
    appsPage(async (request, reply, page) => {
      const { done } = request.query as { done?: string };
      const { data } = await listRestaurantConnections(page.ctx);
      return sendPage(
        reply,
        200,
        renderPage('dashboard/pages/apps', page.view, {
          restaurant: page.restaurant,
          home: page.home,
          connections: data.map((connection) => shown(connection, page)),
          done: done === 'disconnected' ? done : null,
        }),
      );
    }),
  );

  app.get(
    `${base}/:connectionId/disconnect`,
    appsPage(async (request, reply, page) => {
      const connection = await connectionOf(request, page);
      if (!connection) return notConnected(reply, page);
      return sendPage(
        reply,
        200,
        renderPage('dashboard/pages/apps-disconnect', page.view, {
          restaurant: page.restaurant,
          home: page.home,
          connection: shown(connection, page),
        }),
      );
    }),
  );

  app.post(
    `${base}/:connectionId/disconnect`,
    { preHandler: app.csrfProtection },
    appsPage(async (request, reply, page) => {
      const { connectionId } = request.params as { connectionId: string };
      try {
        await writeTransaction(page.ctx.db, (trx) => disconnectApp({ ...page.ctx, db: trx }, connectionId));
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return notConnected(reply, page);
        throw error;
      }
      return reply.redirect(`${page.home}?done=disconnected`, 303);
    }),
  );
}
