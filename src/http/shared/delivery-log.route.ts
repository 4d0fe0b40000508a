import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type TObject } from 'typebox';
import type { Ctx } from '../../domain/shared/context.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import type { Limiters } from '../../domain/shared/limits.ts';
import { type WebhookDeliverySettings, webhookDeliverySettings } from '../../domain/webhooks/delivery.ts';
import {
  checkTestEventType,
  getDelivery,
  type LoggedWebhook,
  listDeliveries,
  manualSendLimit,
  resendDelivery,
  sendTestEvent,
} from '../../domain/webhooks/delivery-log.service.ts';
import { DeliveryListSchema, DeliverySchema } from '../../domain/webhooks/webhook.schema.ts';
import type { AddressRules } from '../../domain/webhooks/webhook-address.ts';
import type { SignedIn, SignedInApiOptions } from './signed-in-api.ts';

/** What the webhook routes of the console and the dashboard need from the service's settings. */
export interface WebhookRouteOptions {
  rules: AddressRules;
  delivery: WebhookDeliverySettings;
  limiters: Limiters;
}

export function webhookRouteOptions(options: SignedInApiOptions): WebhookRouteOptions {
  const allowInsecure = options.config.webhooksAllowInsecure ?? false;
  return {
    rules: { allowInsecure },
    delivery: webhookDeliverySettings({
      baseUrl: options.config.baseUrl,
      webhooksAllowInsecure: allowInsecure,
    }),
    limiters: options.limiters,
  };
}

export interface DeliveryLogOptions {
  /** The webhook's address in the surface's API, with its path parameters. */
  base: string;
  params: TObject;
  /** The webhook the signed-in account may see at this address (404 otherwise). */
  webhookOf(ctx: Ctx, accountId: string, request: FastifyRequest): Promise<LoggedWebhook>;
  delivery: WebhookDeliverySettings;
  limiters: Limiters;
}

const noBody = Type.Object({}, { additionalProperties: false });

/*
 * A webhook's delivery log, resend and test events (spec: Webhooks, Console), for the console
 * (the app's webhook) and the dashboard (a restaurant's own):
 * - `GET <base>/deliveries?limit&before`, newest first; `GET <base>/deliveries/{id}`;
 * - `POST <base>/deliveries/{id}/resend` and `POST <base>/test {type}` send at once and answer
 *   the delivery with the attempt; together at most 10 a minute per app (per webhook for a
 *   restaurant's own), else 429 rate_limited.
 * The sends run outside a transaction: each step commits, so the log keeps what was sent.
 */
export function deliveryLogRoutes(
  app: FastifyInstance,
  signedIn: SignedIn,
  options: DeliveryLogOptions,
): void {
  const { base, params, webhookOf, delivery, limiters } = options;
  const limiter = limiters.createLimiter(manualSendLimit);
  const withDelivery = Type.Object(
    { ...params.properties, delivery_id: Type.String({ maxLength: 100 }) },
    { additionalProperties: false },
  );
  const deliveryIdOf = (request: FastifyRequest) => (request.params as { delivery_id: string }).delivery_id;
  const countSend = async (webhook: LoggedWebhook) => {
    const state = await limiter.consume(webhook.appId ?? webhook.id);
    if (!state.allowed)
      throw new ApiError(
        'rate_limited',
        `Resends and test events: at most ${manualSendLimit.points} a minute.`,
        { headers: { 'retry-after': String(state.resetSeconds) } },
      );
  };

  app.get(
    `${base}/deliveries`,
    {
      schema: {
        params,
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            before: Type.Optional(Type.String({ maxLength: 100 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: DeliveryListSchema },
      },
    },
    signedIn(false, async (ctx, accountId, request) => {
      const webhook = await webhookOf(ctx, accountId, request);
      return listDeliveries(ctx, webhook.id, request.query as { limit: number; before?: string });
    }),
  );

  app.get(
    `${base}/deliveries/:delivery_id`,
    { schema: { params: withDelivery, response: { 200: DeliverySchema } } },
    signedIn(false, async (ctx, accountId, request) => {
      const webhook = await webhookOf(ctx, accountId, request);
      return getDelivery(ctx, webhook.id, deliveryIdOf(request));
    }),
  );

  app.post(
    `${base}/deliveries/:delivery_id/resend`,
    { schema: { params: withDelivery, body: noBody, response: { 200: DeliverySchema } } },
    signedIn(false, async (ctx, accountId, request) => {
      const webhook = await webhookOf(ctx, accountId, request);
      await getDelivery(ctx, webhook.id, deliveryIdOf(request));
      await countSend(webhook);
      return resendDelivery(ctx, webhook.id, deliveryIdOf(request), delivery);
    }),
  );

  app.post(
    `${base}/test`,
    {
      schema: {
        params,
        body: Type.Object({ type: Type.String({ maxLength: 100 }) }, { additionalProperties: false }),
        response: { 200: DeliverySchema },
      },
    },
    signedIn(false, async (ctx, accountId, request) => {
      const webhook = await webhookOf(ctx, accountId, request);
      const type = checkTestEventType(webhook, (request.body as { type: string }).type);
      await countSend(webhook);
      return sendTestEvent(ctx, webhook, type, delivery);
    }),
  );
}
