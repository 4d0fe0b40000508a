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
import { standardWebhooksSecret } from '../../domain/webhooks/signature.ts';
import {
  RestaurantWebhookSchema,
  RotatedSecretSchema,
  SigningSecretListSchema,
  StandardWebhooksSecret,
  WebhookInputSchema,
} from '../../domain/webhooks/webhook.schema.ts';
import { deliveryLogRoutes } from '../shared/delivery-log.route.ts';
import { ownersOnly, type SignedInRoute, signedInRoute } from '../shared/signed-in-route.ts';

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
  {
    ...RestaurantWebhookSchema.properties,
    secret: Type.String(),
    standard_webhooks_secret: StandardWebhooksSecret,
  },
  { additionalProperties: false },
);
const WebhookListSchema = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(RestaurantWebhookSchema) },
  { additionalProperties: false },
);

const auth = ownersOnly;

/** A restaurant's own webhooks in the dashboard: only its owners (for anyone else it is 404). */
export const restaurantWebhookRoutes: readonly SignedInRoute[] = [
  signedInRoute({
    method: 'GET',
    url: base,
    auth,
    schema: { params: restaurantParams, querystring: noQuery, response: { 200: WebhookListSchema } },
    handler: (ctx) => listRestaurantWebhooks(ctx),
  }),
  signedInRoute({
    method: 'POST',
    url: base,
    auth,
    schema: {
      params: restaurantParams,
      querystring: noQuery,
      body: WebhookInputSchema,
      response: { 201: CreatedWebhookSchema },
    },
    handler: async (ctx, request, reply, { webhooks }) => {
      const { webhook, secret } = await createRestaurantWebhook(ctx, {
        ...request.body,
        rules: webhooks.rules,
      });
      reply.code(201);
      return { ...webhook, secret, standard_webhooks_secret: standardWebhooksSecret(secret) };
    },
  }),
  signedInRoute({
    method: 'PATCH',
    url: `${base}/:webhook_id`,
    auth,
    schema: {
      params: webhookParams,
      querystring: noQuery,
      body: WebhookPatchSchema,
      response: { 200: RestaurantWebhookSchema },
    },
    handler: (ctx, request, _reply, { webhooks }) =>
      updateRestaurantWebhook(ctx, {
        ...request.body,
        webhookId: request.params.webhook_id,
        rules: webhooks.rules,
      }),
  }),
  signedInRoute({
    method: 'DELETE',
    url: `${base}/:webhook_id`,
    auth,
    schema: { params: webhookParams, querystring: noQuery, body: noBody },
    handler: async (ctx, request) => {
      await deleteRestaurantWebhook(ctx, { webhookId: request.params.webhook_id });
      return undefined;
    },
  }),
  signedInRoute({
    method: 'GET',
    url: `${base}/:webhook_id/secret`,
    auth,
    schema: { params: webhookParams, querystring: noQuery, response: { 200: SigningSecretListSchema } },
    handler: (ctx, request) => listRestaurantWebhookSecrets(ctx, { webhookId: request.params.webhook_id }),
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/:webhook_id/secret/rotate`,
    auth,
    schema: {
      params: webhookParams,
      querystring: noQuery,
      body: noBody,
      response: { 200: RotatedSecretSchema },
    },
    handler: (ctx, request) => rotateRestaurantWebhookSecret(ctx, { webhookId: request.params.webhook_id }),
  }),
  ...deliveryLogRoutes({
    base: `${base}/:webhook_id`,
    params: webhookParams,
    auth,
    webhookOf: (ctx, path) => restaurantWebhookOf(ctx, { webhookId: path.webhook_id ?? '' }, false),
  }),
];
