import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appsOfDeveloper } from '../../../domain/apps/apps-of-developer.ts';
import type { Ctx } from '../../../domain/shared/context.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import {
  type AppRef,
  deleteAppWebhook,
  enableAppWebhook,
  findAppWebhook,
  getAppWebhook,
  listAppWebhookSecrets,
  rotateAppWebhookSecret,
  setAppWebhook,
} from '../../../domain/webhooks/app-webhook.service.ts';
import { messagePage, sendPage } from '../../web/page.ts';
import type { SignedInPage, SignedInPageHandler, SignedInPagesOptions } from '../../web/signed-in-pages.ts';
import { webhookPages, webhookServices } from '../../web/webhook-pages.ts';
import { consoleNavigation } from './console-navigation.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** The app's webhook, or null while it has none. */
async function webhookOrNull(ctx: Ctx, ref: AppRef) {
  try {
    return await getAppWebhook(ctx, ref);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return null;
    throw error;
  }
}

/*
 * The app's one webhook in the console at `/console/apps/{client_id}/webhook` (webhook-pages.ts):
 * only the app's developer (another developer's app is a 404, as an unknown one); an app without
 * a webhook shows the form to set one up. Times are in UTC, named as such.
 */
export function appWebhookPages(
  app: FastifyInstance,
  signedInPage: Wrap,
  options: SignedInPagesOptions,
): void {
  const services = webhookServices(options);
  const namespace = 'webhook-pages';
  const viewOf = (signedIn: SignedInPage) => {
    const view = signedIn.view(namespace);
    return { ...view, nav: consoleNavigation(view, 'apps') };
  };

  webhookPages(app, signedInPage, {
    path: '/console/apps/:clientId/webhook',
    setUpHere: true,
    services,
    notFound: (reply, signedIn) => {
      const view = viewOf(signedIn);
      return sendPage(
        reply,
        404,
        messagePage(view, {
          title: view.t('webhook.notFoundTitle'),
          message: view.t('webhook.notFound'),
          link: { href: '/console/apps', text: view.t('webhook.backToApps') },
        }),
      );
    },
    open: async (request, signedIn) => {
      const { clientId } = request.params as { clientId: string };
      const { ctx, accountId } = signedIn;
      const own = (await appsOfDeveloper(ctx, accountId)).find((found) => found.clientId === clientId);
      if (!own) return null;
      const ref: AppRef = { clientId, developerId: accountId };
      const webhook = await webhookOrNull(ctx, ref);
      const view = viewOf(signedIn);
      const home = `/console/apps/${encodeURIComponent(clientId)}/webhook`;
      return {
        ctx,
        view,
        owner: 'app',
        home,
        title: view.t('webhook.appTitle', { app: own.name }),
        back: {
          href: `/console/apps/${encodeURIComponent(clientId)}`,
          text: view.t('webhook.backToApp', { app: own.name }),
        },
        zone: 'UTC',
        webhook,
        logged: webhook ? await findAppWebhook(ctx, ref) : null,
        secrets: async (inTx) => (await listAppWebhookSecrets(inTx, ref)).data,
        save: async (inTx, input) =>
          (await setAppWebhook(inTx, { ...ref, ...input, rules: services.rules })).created
            ? 'created'
            : 'saved',
        enable: (inTx) => enableAppWebhook(inTx, ref),
        rotate: (inTx) => rotateAppWebhookSecret(inTx, ref),
        remove: (inTx) => deleteAppWebhook(inTx, ref),
        afterDelete: home,
      };
    },
  });
}
