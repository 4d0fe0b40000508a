import type { FastifyInstance } from 'fastify';
import { restaurantsOfAccount } from '../../../domain/restaurants/restaurants-of-account.ts';
import type { ImageFetcher } from '../../../domain/shared/image-fetcher.ts';
import { dashboardSessions } from '../../shared/sessions.ts';
import { mailedLink } from '../../web/account-link-pages.ts';
import { accountPages } from '../../web/account-pages.ts';
import { formUploads } from '../../web/form-uploads.ts';
import { renderPage, sendPage } from '../../web/page.ts';
import { type SignedInPagesOptions, signedInPages } from '../../web/signed-in-pages.ts';
import { appsPages } from './apps-pages.ts';
import { invitationPage } from './invitation-page.ts';
import { menuPages } from './menu-pages.ts';
import { ordersPages } from './orders-page.ts';
import { overviewPages } from './overview-page.ts';
import { printingPage } from './printing-page.ts';
import { reportsPages } from './reports-pages.ts';
import { reservationsPages } from './reservations-pages.ts';
import { dashboardNavigation } from './restaurant-page.ts';
import { storePages } from './store-pages.ts';
import { type TablesPagesConfig, tablesPages } from './tables-pages.ts';
import { teamPages } from './team-pages.ts';
import { webhooksPages } from './webhooks-pages.ts';

/*
 * The restaurant dashboard's pages at `/dashboard` (its JSON API is at `/dashboard/api`): sign-in
 * for any account, the restaurants it is an owner or staff member of, and each restaurant's
 * overview with the navigation to its sections (overview-page.ts), its menu editor (menu-pages.ts)
 * and its order board (orders-page.ts). Another restaurant is a 404, as if it did not exist.
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

  overviewPages(app, signedInPage);
  menuPages(app, signedInPage, options.images && { keeper: options.images, baseUrl: options.config.baseUrl });
  ordersPages(app, signedInPage);
  printingPage(app, signedInPage);
  storePages(app, signedInPage, options.images);
  tablesPages(app, signedInPage, options.config);
  reservationsPages(app, signedInPage, options.config);
  appsPages(app, signedInPage);
  reportsPages(app, signedInPage);
  webhooksPages(app, signedInPage, options);
  teamPages(app, signedInPage, {
    limiters: options.limiters,
    appUrl: options.config.appUrl ?? options.config.baseUrl,
  });
  invitationPage(app, signedInPage, options);
  accountPages(app, signedInPage, {
    path: '/dashboard/account',
    navigation: (view) => dashboardNavigation(view, 'account'),
    confirmEmailLink: (token) => mailedLink(options.config, '/dashboard/confirm-email', token),
  });
}
