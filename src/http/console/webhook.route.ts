import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
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
  type WebhookInput,
  WebhookInputSchema,
} from '../../domain/webhooks/webhook.schema.ts';
import { deliveryLogRoutes, type WebhookRouteOptions } from '../shared/delivery-log.route.ts';
import type { SignedIn } from '../shared/signed-in-api.ts';

const base = '/console/api/apps/:client_id/webhook';
const params = Type.Object({ client_id: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
const noQuery = Type.Object({}, { additionalProperties: false });
const noBody = Type.Object({}, { additionalProperties: false });
const appOf = (request: FastifyRequest, developerId: string) => ({
  clientId: (request.params as { client_id: string }).client_id,
  developerId,
});

/** The app's webhook in the console: only the app's developer (another developer's app is 404). */
export function appWebhookRoutes(
  app: FastifyInstance,
  signedIn: SignedIn,
  { rules, delivery, limiters }: WebhookRouteOptions,
): void {
  app.get(
    base,
    { schema: { params, querystring: noQuery, response: { 200: AppWebhookSchema } } },
    signedIn(false, (ctx, accountId, request) => getAppWebhook(ctx, appOf(request, accountId))),
  );

  app.put(
    base,
    {
      schema: {
        params,
        querystring: noQuery,
        body: WebhookInputSchema,
        response: { 200: AppWebhookSchema, 201: AppWebhookSchema },
      },
    },
    async (request, reply) => {
      const { webhook, created } = await signedIn(true, (ctx, accountId) =>
        setAppWebhook(ctx, { ...appOf(request, accountId), ...(request.body as WebhookInput), rules }),
      )(request);
      return reply.code(created ? 201 : 200).send(webhook);
    },
  );

  app.delete(base, { schema: { params, querystring: noQuery, body: noBody } }, async (request, reply) => {
    await signedIn(true, (ctx, accountId) => deleteAppWebhook(ctx, appOf(request, accountId)))(request);
    return reply.code(204).send();
  });

  app.post(
    `${base}/enable`,
    { schema: { params, querystring: noQuery, body: noBody, response: { 200: AppWebhookSchema } } },
    signedIn(true, (ctx, accountId, request) => enableAppWebhook(ctx, appOf(request, accountId))),
  );

  app.get(
    `${base}/secret`,
    { schema: { params, querystring: noQuery, response: { 200: SigningSecretListSchema } } },
    signedIn(false, (ctx, accountId, request) => listAppWebhookSecrets(ctx, appOf(request, accountId))),
  );

  app.post(
    `${base}/secret/rotate`,
    { schema: { params, querystring: noQuery, body: noBody, response: { 200: RotatedSecretSchema } } },
    signedIn(true, (ctx, accountId, request) => rotateAppWebhookSecret(ctx, appOf(request, accountId))),
  );

  deliveryLogRoutes(app, signedIn, {
    base,
    params,
    delivery,
    limiters,
    webhookOf: (ctx, accountId, request) => findAppWebhook(ctx, appOf(request, accountId)),
  });
}
