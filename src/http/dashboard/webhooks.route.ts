import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import {
  createRestaurantWebhook,
  deleteRestaurantWebhook,
  listRestaurantWebhookSecrets,
  listRestaurantWebhooks,
  restaurantWebhookOf,
  rotateRestaurantWebhookSecret,
  updateRestaurantWebhook,
} from '../../domain/webhooks/restaurant-webhooks.service.ts';
import {
  RestaurantWebhookSchema,
  RotatedSecretSchema,
  SigningSecretListSchema,
  type WebhookInput,
  WebhookInputSchema,
} from '../../domain/webhooks/webhook.schema.ts';
import { deliveryLogRoutes, type WebhookRouteOptions } from '../shared/delivery-log.route.ts';
import type { SignedIn } from '../shared/signed-in-api.ts';

const base = '/dashboard/api/restaurants/:restaurant_id/webhooks';
const restaurantParams = Type.Object(
  { restaurant_id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
const webhookParams = Type.Object(
  { restaurant_id: Type.String({ format: 'uuid' }), webhook_id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
const noQuery = Type.Object({}, { additionalProperties: false });
const noBody = Type.Object({}, { additionalProperties: false });
const WebhookPatchSchema = Type.Object(
  {
    url: Type.Optional(WebhookInputSchema.properties.url),
    events: Type.Optional(WebhookInputSchema.properties.events),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const CreatedWebhookSchema = Type.Object(
  { ...RestaurantWebhookSchema.properties, secret: Type.String() },
  { additionalProperties: false },
);
const WebhookListSchema = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(RestaurantWebhookSchema) },
  { additionalProperties: false },
);

const refOf = (request: FastifyRequest, accountId: string) => {
  const { restaurant_id, webhook_id } = request.params as { restaurant_id: string; webhook_id?: string };
  return { restaurantId: restaurant_id, webhookId: webhook_id ?? '', accountId };
};

/** A restaurant's own webhooks in the dashboard: only its owners (for anyone else it is 404). */
export function restaurantWebhookRoutes(
  app: FastifyInstance,
  signedIn: SignedIn,
  { rules, delivery, limiters }: WebhookRouteOptions,
): void {
  app.get(
    base,
    { schema: { params: restaurantParams, querystring: noQuery, response: { 200: WebhookListSchema } } },
    signedIn(false, (ctx, accountId, request) => listRestaurantWebhooks(ctx, refOf(request, accountId))),
  );

  app.post(
    base,
    {
      schema: {
        params: restaurantParams,
        querystring: noQuery,
        body: WebhookInputSchema,
        response: { 201: CreatedWebhookSchema },
      },
    },
    async (request, reply) => {
      const { webhook, secret } = await signedIn(true, (ctx, accountId) =>
        createRestaurantWebhook(ctx, {
          ...refOf(request, accountId),
          ...(request.body as WebhookInput),
          rules,
        }),
      )(request);
      return reply.code(201).send({ ...webhook, secret });
    },
  );

  app.patch(
    `${base}/:webhook_id`,
    {
      schema: {
        params: webhookParams,
        querystring: noQuery,
        body: WebhookPatchSchema,
        response: { 200: RestaurantWebhookSchema },
      },
    },
    signedIn(true, (ctx, accountId, request) =>
      updateRestaurantWebhook(ctx, {
        ...refOf(request, accountId),
        ...(request.body as Partial<WebhookInput> & { enabled?: boolean }),
        rules,
      }),
    ),
  );

  app.delete(
    `${base}/:webhook_id`,
    { schema: { params: webhookParams, querystring: noQuery, body: noBody } },
    async (request, reply) => {
      await signedIn(true, (ctx, accountId) => deleteRestaurantWebhook(ctx, refOf(request, accountId)))(
        request,
      );
      return reply.code(204).send();
    },
  );

  app.get(
    `${base}/:webhook_id/secret`,
    { schema: { params: webhookParams, querystring: noQuery, response: { 200: SigningSecretListSchema } } },
    signedIn(false, (ctx, accountId, request) =>
      listRestaurantWebhookSecrets(ctx, refOf(request, accountId)),
    ),
  );

  app.post(
    `${base}/:webhook_id/secret/rotate`,
    {
      schema: {
        params: webhookParams,
        querystring: noQuery,
        body: noBody,
        response: { 200: RotatedSecretSchema },
      },
    },
    signedIn(true, (ctx, accountId, request) =>
      rotateRestaurantWebhookSecret(ctx, refOf(request, accountId)),
    ),
  );

  deliveryLogRoutes(app, signedIn, {
    base: `${base}/:webhook_id`,
    params: webhookParams,
    delivery,
    limiters,
    webhookOf: (ctx, accountId, request) => restaurantWebhookOf(ctx, refOf(request, accountId), false),
  });
}
