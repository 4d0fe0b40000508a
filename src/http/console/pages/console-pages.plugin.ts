import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appsOfDeveloper } from '../../../domain/apps/apps-of-developer.ts';
import { placeTestOrder } from '../../../domain/orders/test-order.service.ts';
import { testRestaurantsOf } from '../../../domain/restaurants/restaurants-of-account.ts';
import type { Ctx } from '../../../domain/shared/context.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { consoleSessions, storefrontPreviewSessions } from '../../shared/sessions.ts';
import { mailedLink } from '../../web/account-link-pages.ts';
import { accountPages } from '../../web/account-pages.ts';
import { messagePage, type PageView, renderPage, sendPage } from '../../web/page.ts';
import { type SignedInPagesOptions, signedInPages } from '../../web/signed-in-pages.ts';
import { appWebhookPages } from './app-webhook-pages.ts';
import { appsPages } from './apps-pages.ts';
import { consoleNavigation } from './console-navigation.ts';
import { consoleSignUp, signUpPages } from './sign-up-pages.ts';
import { tryItPages } from './try-it-pages.ts';

/**
 * The developer console's pages at `/console` (its JSON API is at `/console/api`): sign-in for
 * developer accounts only, and the home with the developer's apps and test restaurant, whose
 * storefront it opens and where it places a test order in one click.
 */
export async function consolePagesPlugin(app: FastifyInstance, options: SignedInPagesOptions): Promise<void> {
  const signedInPage = await signedInPages(app, options, {
    sessions: consoleSessions,
    namespace: 'console',
    signUp: consoleSignUp,
  });
  signUpPages(app, signedInPage, options);
  tryItPages(app, signedInPage, options);
  appsPages(app, signedInPage);
  appWebhookPages(app, signedInPage, options);
  accountPages(app, signedInPage, {
    path: '/console/account',
    navigation: (view) => consoleNavigation(view, 'account'),
    confirmEmailLink: (token) => mailedLink(options.config, '/console/confirm-email', token),
  });

  app.get(
    '/console',
    signedInPage(async (request, reply, { ctx, accountId, view }) => {
      const [apps, testRestaurants] = await Promise.all([
        appsOfDeveloper(ctx, accountId),
        testRestaurantsOf(ctx, accountId),
      ]);
      const page = view();
      const { done } = request.query as { done?: string };
      return sendPage(
        reply,
        200,
        renderPage(
          'console/pages/home',
          { ...page, nav: consoleNavigation(page, 'home') },
          { apps, testRestaurants, failed: done === 'no-product' },
        ),
      );
    }),
  );

  /*
   * The developer's test restaurant's storefront, opened from the console: the console session
   * goes with the browser to `/s/...` in a cookie of its own (storefrontPreviewSessions), so the
   * storefront lets its members in; then the storefront, or the order just placed.
   */
  const secure = new URL(options.config.appUrl ?? options.config.baseUrl).protocol === 'https:';
  const preview = (request: FastifyRequest, reply: FastifyReply, to: string) => {
    const { name, path, sameSite } = storefrontPreviewSessions.cookie;
    reply.setCookie(name, request.cookies[consoleSessions.cookie.name] ?? '', {
      path,
      sameSite,
      secure,
      httpOnly: true,
    });
    return reply.redirect(to, 303);
  };
  /** Another developer's test restaurant (or none at all): 404, as if it did not exist. */
  const testRestaurantNotFound = (reply: FastifyReply, view: PageView) =>
    sendPage(
      reply,
      404,
      messagePage(view, { title: view.t('errors.notFoundTitle'), message: view.t('errors.notFound') }),
    );
  const testRestaurantOf = async (ctx: Ctx, accountId: string, request: FastifyRequest) => {
    const { id } = request.params as { id: string };
    return (await testRestaurantsOf(ctx, accountId)).find((restaurant) => restaurant.id === id) ?? null;
  };

  app.get(
    '/console/test-restaurants/:id/storefront',
    signedInPage(async (request, reply, { ctx, accountId, view }) => {
      const restaurant = await testRestaurantOf(ctx, accountId, request);
      if (!restaurant) return testRestaurantNotFound(reply, view());
      return preview(request, reply, `/s/${restaurant.slug}`);
    }),
  );

  app.post(
    '/console/test-restaurants/:id/test-orders',
    { preHandler: app.csrfProtection },
    signedInPage(async (request, reply, { ctx, accountId, view }) => {
      const restaurant = await testRestaurantOf(ctx, accountId, request);
      if (!restaurant) return testRestaurantNotFound(reply, view());
      try {
        const placed = await writeTransaction(ctx.db, (trx) =>
          placeTestOrder({ ...ctx, db: trx, tenantId: restaurant.id }),
        );
        return preview(request, reply, `/s/${restaurant.slug}/o/${placed.guest_key}`);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_request')
          return reply.redirect('/console?done=no-product', 303);
        throw error;
      }
    }),
  );
}
