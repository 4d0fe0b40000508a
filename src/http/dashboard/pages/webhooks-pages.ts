import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentRestaurant, restaurantCtxOrNull } from '../../../domain/restaurants/restaurant-gate.ts';
import type { Ctx, Role } from '../../../domain/shared/context.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import {
  createRestaurantWebhook,
  deleteRestaurantWebhook,
  listRestaurantWebhookSecrets,
  listRestaurantWebhooks,
  maxRestaurantWebhooks,
  restaurantWebhookOf,
  rotateRestaurantWebhookSecret,
  updateRestaurantWebhook,
} from '../../../domain/webhooks/restaurant-webhooks.service.ts';
import type { WebhookInput } from '../../../domain/webhooks/webhook.schema.ts';
import { type FormError, formField, type PageView, sendPage } from '../../web/page.ts';
import type { SignedInPage, SignedInPageHandler, SignedInPagesOptions } from '../../web/signed-in-pages.ts';
import {
  eventChoices,
  renderWebhookView,
  webhookForm,
  webhookFormErrors,
  webhookPages,
  webhookServices,
} from '../../web/webhook-pages.ts';
import { restaurantNavigation, restaurantNotFound } from './restaurant-page.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Who manages a restaurant's own webhooks: its owners, as in the JSON API (webhooks.route.ts). */
const webhookManagers: readonly Role[] = ['owner'];

interface RestaurantPage {
  ctx: Ctx;
  view: PageView;
  restaurant: { id: string; name: string; timezone: string };
  /** The webhooks list's path. */
  list: string;
}

/*
 * A restaurant's own webhooks in the dashboard at `/dashboard/restaurants/{id}/webhooks`, for its
 * owners (anyone else, staff too: the restaurant's 404): the list, a page to add one (up to five),
 * and each webhook's pages (webhook-pages.ts). Times are in the restaurant's time zone.
 */
export function webhooksPages(app: FastifyInstance, signedInPage: Wrap, options: SignedInPagesOptions): void {
  const services = webhookServices(options);
  const base = '/dashboard/restaurants/:restaurantId/webhooks';

  const restaurantPage = async (
    request: FastifyRequest,
    signedIn: SignedInPage,
  ): Promise<RestaurantPage | null> => {
    const { restaurantId } = request.params as { restaurantId: string };
    const ctx = await restaurantCtxOrNull(signedIn.ctx, restaurantId, webhookManagers);
    if (!ctx) return null;
    const restaurant = await currentRestaurant(ctx);
    const view = signedIn.view('webhook-pages');
    return {
      ctx,
      view: { ...view, nav: restaurantNavigation(view, restaurant.id, 'webhooks', 'owner') },
      restaurant,
      list: `/dashboard/restaurants/${restaurant.id}/webhooks`,
    };
  };
  const withRestaurant = (
    handler: (request: FastifyRequest, reply: FastifyReply, page: RestaurantPage) => Promise<FastifyReply>,
  ) =>
    signedInPage(async (request, reply, signedIn) => {
      const page = await restaurantPage(request, signedIn);
      return page ? handler(request, reply, page) : restaurantNotFound(reply, signedIn.view());
    });

  const showNew = (
    reply: FastifyReply,
    page: RestaurantPage,
    values: WebhookInput,
    errors: FormError[] = [],
  ) =>
    sendPage(
      reply,
      errors.length > 0 ? 400 : 200,
      renderWebhookView('webhook-new', page.view, page.restaurant.timezone, {
        restaurant: page.restaurant,
        list: page.list,
        values,
        choices: eventChoices('restaurant'),
        errors,
      }),
    );

  app.get(
    base,
    withRestaurant(async (request, reply, page) => {
      const { data } = await listRestaurantWebhooks(page.ctx);
      const done = formField(request.query, 'done') === 'deleted' ? 'deleted' : null;
      return sendPage(
        reply,
        200,
        renderWebhookView('restaurant-webhooks', page.view, page.restaurant.timezone, {
          restaurant: page.restaurant,
          list: page.list,
          webhooks: data,
          max: maxRestaurantWebhooks,
          done,
        }),
      );
    }),
  );

  app.get(
    `${base}/new`,
    withRestaurant(async (_request, reply, page) => showNew(reply, page, { url: '', events: [] })),
  );

  app.post(
    base,
    { preHandler: app.csrfProtection },
    withRestaurant(async (request, reply, page) => {
      const form = webhookForm(request.body);
      const problems = form.problems(page.view.t);
      if (problems.length > 0) return showNew(reply, page, form.values, problems);
      try {
        const { webhook } = await writeTransaction(page.ctx.db, (trx) =>
          createRestaurantWebhook({ ...page.ctx, db: trx }, { ...form.checked(), rules: services.rules }),
        );
        return reply.redirect(`${page.list}/${webhook.id}?done=created`, 303);
      } catch (error) {
        const errors = webhookFormErrors(page.view.t, error);
        if (!errors) throw error;
        return showNew(reply, page, form.values, errors);
      }
    }),
  );

  webhookPages(app, signedInPage, {
    path: `${base}/:webhookId`,
    setUpHere: false,
    services,
    notFound: (reply, signedIn) => restaurantNotFound(reply, signedIn.view()),
    open: async (request, signedIn) => {
      const page = await restaurantPage(request, signedIn);
      if (!page) return null;
      const { ctx, view, restaurant, list } = page;
      const { webhookId } = request.params as { webhookId: string };
      const webhook =
        (await listRestaurantWebhooks(ctx)).data.find((found) => found.id === webhookId) ?? null;
      const ref = { webhookId };
      return {
        ctx,
        view,
        owner: 'restaurant',
        home: `${list}/${webhook?.id ?? ''}`,
        title: view.t('webhook.ownTitle'),
        back: { href: list, text: view.t('webhook.backToWebhooks') },
        zone: restaurant.timezone,
        webhook,
        logged: webhook ? await restaurantWebhookOf(ctx, ref, false) : null,
        secrets: async (inTx) => (await listRestaurantWebhookSecrets(inTx, ref)).data,
        save: async (inTx, input) => {
          await updateRestaurantWebhook(inTx, { ...input, ...ref, rules: services.rules });
          return 'saved';
        },
        enable: (inTx) => updateRestaurantWebhook(inTx, { ...ref, enabled: true, rules: services.rules }),
        disable: (inTx) => updateRestaurantWebhook(inTx, { ...ref, enabled: false, rules: services.rules }),
        rotate: (inTx) => rotateRestaurantWebhookSecret(inTx, ref),
        remove: (inTx) => deleteRestaurantWebhook(inTx, ref),
        afterDelete: list,
      };
    },
  });
}
