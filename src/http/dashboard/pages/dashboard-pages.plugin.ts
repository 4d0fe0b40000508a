import type { FastifyInstance } from 'fastify';
import { currentRestaurant, restaurantCtxOrNull } from '../../../domain/restaurants/restaurant-gate.ts';
import { restaurantsOfAccount } from '../../../domain/restaurants/restaurants-of-account.ts';
import type { ImageFetcher } from '../../../domain/shared/image-fetcher.ts';
import { dashboardSessions } from '../../shared/sessions.ts';
import { accountPages } from '../../web/account-pages.ts';
import { formUploads } from '../../web/form-uploads.ts';
import { renderPage, sendPage } from '../../web/page.ts';
import { type SignedInPagesOptions, signedInPages } from '../../web/signed-in-pages.ts';
import { appsPages } from './apps-pages.ts';
import { menuPages } from './menu-pages.ts';
import { ordersPages } from './orders-page.ts';
import { reportsPages } from './reports-pages.ts';
import { reservationsPages } from './reservations-pages.ts';
import { dashboardNavigation, restaurantNavigation, restaurantNotFound } from './restaurant-page.ts';
import { storePages } from './store-pages.ts';
import { type TablesPagesConfig, tablesPages } from './tables-pages.ts';
import { webhooksPages } from './webhooks-pages.ts';

/*
 * The restaurant dashboard's pages at `/dashboard` (its JSON API is at `/dashboard/api`): sign-in
 * for any account, the restaurants it is an owner or staff member of, and each restaurant's page
 * with the navigation to its sections, its menu editor (menu-pages.ts) and its order board
 * (orders-page.ts). Another restaurant is a 404, as if it did not exist.
 * Pages are in the person's language (footer links, else the browser's), not the restaurant's:
 * that is the language of its guests.
 */
export async function dashboardPagesPlugin(
  app: FastifyInstance,
  options: SignedInPagesOptions & {
    config: TablesPagesConfig;
    /** Keeps the pictures owners upload: dishes' photos, the storefront's logo and cover (absent: no upload). */
    images?: ImageFetcher;
  },
): Promise<void> {
  await formUploads(app);
  const signedInPage = await signedInPages(app, options, {
    sessions: dashboardSessions,
    namespace: 'dashboard',
  });

  app.get(
    '/dashboard',
    signedInPage(async (_request, reply, { ctx, accountId, view }) => {
      const restaurants = await restaurantsOfAccount(ctx, accountId);
      const page = view();
      const nav = dashboardNavigation(page, 'restaurants');
      return sendPage(reply, 200, renderPage('dashboard/pages/home', { ...page, nav }, { restaurants }));
    }),
  );

  app.get(
    '/dashboard/restaurants/:restaurantId',
    signedInPage(async (request, reply, { ctx, view }) => {
      const { restaurantId } = request.params as { restaurantId: string };
      const inRestaurant = await restaurantCtxOrNull(ctx, restaurantId, ['owner', 'staff']);
      if (!inRestaurant) return restaurantNotFound(reply, view());
      const restaurant = {
        ...(await currentRestaurant(inRestaurant)),
        role: inRestaurant.actor.kind === 'account' ? inRestaurant.actor.role : null,
      };
      const page = view();
      const nav = restaurantNavigation(page, restaurant.id, 'overview', restaurant.role);
      return sendPage(reply, 200, renderPage('dashboard/pages/restaurant', { ...page, nav }, { restaurant }));
    }),
  );

  menuPages(app, signedInPage, options.images && { keeper: options.images, baseUrl: options.config.baseUrl });
  ordersPages(app, signedInPage);
  storePages(app, signedInPage, options.images);
  tablesPages(app, signedInPage, options.config);
  reservationsPages(app, signedInPage, options.config);
  appsPages(app, signedInPage);
  reportsPages(app, signedInPage);
  webhooksPages(app, signedInPage, options);
  accountPages(app, signedInPage, {
    path: '/dashboard/account',
    navigation: (view) => dashboardNavigation(view, 'account'),
  });
}
