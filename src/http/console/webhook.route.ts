import Type from 'typebox';
import { actingAccount, type Ctx } from '../../domain/shared/context.ts';
import {
  deleteAppWebhook,
  enableAppWebhook,
  findAppWebhook,
  getAppWebhook,
  listAppWebhookSecrets,
  rotateAppWebhookSecret,
  setAppWebhook,
} from '../../domain/webhooks/app-webhook.service.ts';
import {
  AppWebhookSchema,
  RotatedSecretSchema,
  SigningSecretListSchema,
  WebhookInputSchema,
} from '../../domain/webhooks/webhook.schema.ts';
import { deliveryLogRoutes } from '../shared/delivery-log.route.ts';
import { type SignedInRoute, signedInAccount, signedInRoute } from '../shared/signed-in-route.ts';

const base = '/console/api/apps/:client_id/webhook';
const params = Type.Object({ client_id: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
const noQuery = Type.Object({}, { additionalProperties: false });
const noBody = Type.Object({}, { additionalProperties: false });
/** The app of the path, as its developer: the signed-in account (another developer's app is 404). */
const appOf = (ctx: Ctx, path: { client_id: string }) => ({
  clientId: path.client_id,
  developerId: actingAccount(ctx),
});
const auth = signedInAccount;

/** The app's webhook in the console: only the app's developer. */
export const appWebhookRoutes: readonly SignedInRoute[] = [
  signedInRoute({
    method: 'GET',
    url: base,
    auth,
    schema: { params, querystring: noQuery, response: { 200: AppWebhookSchema } },
    handler: (ctx, request) => getAppWebhook(ctx, appOf(ctx, request.params)),
  }),
  signedInRoute({
    method: 'PUT',
    url: base,
    auth,
    schema: {
      params,
      querystring: noQuery,
      body: WebhookInputSchema,
      response: { 200: AppWebhookSchema, 201: AppWebhookSchema },
    },
    handler: async (ctx, request, reply, { webhooks }) => {
      const { webhook, created } = await setAppWebhook(ctx, {
        ...appOf(ctx, request.params),
        ...request.body,
        rules: webhooks.rules,
      });
      reply.code(created ? 201 : 200);
      return webhook;
    },
  }),
  signedInRoute({
    method: 'DELETE',
    url: base,
    auth,
    schema: { params, querystring: noQuery, body: noBody },
    handler: async (ctx, request) => {
      await deleteAppWebhook(ctx, appOf(ctx, request.params));
      return undefined;
    },
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/enable`,
    auth,
    schema: { params, querystring: noQuery, body: noBody, response: { 200: AppWebhookSchema } },
    handler: (ctx, request) => enableAppWebhook(ctx, appOf(ctx, request.params)),
  }),
  signedInRoute({
    method: 'GET',
    url: `${base}/secret`,
    auth,
    schema: { params, querystring: noQuery, response: { 200: SigningSecretListSchema } },
    handler: (ctx, request) => listAppWebhookSecrets(ctx, appOf(ctx, request.params)),
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/secret/rotate`,
    auth,
    schema: { params, querystring: noQuery, body: noBody, response: { 200: RotatedSecretSchema } },
    handler: (ctx, request) => rotateAppWebhookSecret(ctx, appOf(ctx, request.params)),
  }),
  ...deliveryLogRoutes({
    base,
    params,
    auth,
    webhookOf: (ctx, path) => findAppWebhook(ctx, appOf(ctx, path as { client_id: string })),
  }),
];
