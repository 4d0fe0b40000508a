import type { FastifyInstance } from 'fastify';
import { appsOfDeveloper } from '../../../domain/apps/apps-of-developer.ts';
import { testRestaurantsOf } from '../../../domain/restaurants/restaurants-of-account.ts';
import { consoleSessions } from '../../shared/sessions.ts';
import type { NavItem, PageView } from '../../web/page.ts';
import { renderPage, sendPage } from '../../web/page.ts';
import { type SignedInPagesOptions, signedInPages } from '../../web/signed-in-pages.ts';

/** The console's navigation; an entry without `href` is a page still to come. */
function navigation(view: PageView, current: 'home'): NavItem[] {
  return [
    { label: view.t('nav.home'), href: '/console', current: current === 'home' },
    { label: view.t('nav.apps') },
    { label: view.t('nav.webhooks') },
  ];
}

/**
 * The developer console's pages at `/console` (its JSON API is at `/console/api`): sign-in for
 * developer accounts only, and the home with the developer's apps and test restaurant.
 */
export async function consolePagesPlugin(app: FastifyInstance, options: SignedInPagesOptions): Promise<void> {
  const signedInPage = await signedInPages(app, options, { sessions: consoleSessions, namespace: 'console' });

  app.get(
    '/console',
    signedInPage(async (_request, reply, { ctx, accountId, view }) => {
      const [apps, testRestaurants] = await Promise.all([
        appsOfDeveloper(ctx, accountId),
        testRestaurantsOf(ctx, accountId),
      ]);
      const page = view();
      return sendPage(
        reply,
        200,
        renderPage(
          'console/pages/home',
          { ...page, nav: navigation(page, 'home') },
          { apps, testRestaurants },
        ),
      );
    }),
  );
}
