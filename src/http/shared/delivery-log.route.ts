import Type, { type TObject } from 'typebox';
import { type WebhookDeliverySettings, webhookDeliverySettings } from '../../adapters/webhook-post.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import type { Limiter } from '../../domain/shared/limits.ts';
import {
  checkTestEventType,
  getDelivery,
  type LoggedWebhook,
  listDeliveries,
  manualSendLimit,
  newestFirst,
  resendDelivery,
  sendTestEvent,
} from '../../domain/webhooks/delivery-log.service.ts';
import { DeliveryListSchema, DeliverySchema } from '../../domain/webhooks/webhook.schema.ts';
import type { AddressRules } from '../../domain/webhooks/webhook-address.ts';
import { CursorParam, keysetPage, LimitParam } from './pagination.ts';
import type { SignedInApiOptions } from './signed-in-api.ts';
import { type SignedInAuth, type SignedInRoute, signedInRoute } from './signed-in-route.ts';

/** What the webhook routes of the console and the dashboard need from the service's settings. */
export interface WebhookRouteOptions {
  rules: AddressRules;
  delivery: WebhookDeliverySettings;
}

export function webhookRouteOptions(options: SignedInApiOptions): WebhookRouteOptions {
  const allowInsecure = options.config.webhooksAllowInsecure ?? false;
  return {
    rules: { allowInsecure },
    delivery: webhookDeliverySettings({
      baseUrl: options.config.baseUrl,
      webhooksAllowInsecure: allowInsecure,
    }),
  };
}

export interface DeliveryLogOptions {
  /** The webhook's address in the surface's API, with its path parameters. */
  base: string;
  params: TObject;
  auth: SignedInAuth;
  /** The webhook the ctx's actor may see at this address (404 otherwise), from the path's parameters. */
  webhookOf(ctx: Ctx, params: Record<string, string>): Promise<LoggedWebhook>;
}

const noBody = Type.Object({}, { additionalProperties: false });

/**
 * Counts a resend or test event (the JSON API's and the pages' alike): at most 10 a minute per
 * app (per webhook for a restaurant's own), else 429 rate_limited with Retry-After.
 */
export async function countManualSend(webhook: LoggedWebhook, limiter: Limiter): Promise<void> {
  const state = await limiter.consume(webhook.appId ?? webhook.id);
  if (!state.allowed)
    throw new ApiError(
      'rate_limited',
      `Resends and test events: at most ${manualSendLimit.points} a minute.`,
      {
        headers: { 'retry-after': String(state.resetSeconds) },
      },
    );
}

/*
 * A webhook's delivery log, resend and test events (spec: Webhooks, Console), for the console
 * (the app's webhook) and the dashboard (a restaurant's own):
 * - `GET <base>/deliveries?limit&cursor`, newest first (paged as every list); `GET <base>/deliveries/{id}`;
 * - `POST <base>/deliveries/{id}/resend` and `POST <base>/test {type}` send at once and answer
 *   the delivery with the attempt; together at most 10 a minute per app (per webhook for a
 *   restaurant's own), else 429 rate_limited.
 * The sends run outside a transaction: each step commits, so the log keeps what was sent.
 */
export function deliveryLogRoutes(options: DeliveryLogOptions): SignedInRoute[] {
  const { base, params, auth, webhookOf } = options;
  const withDelivery = Type.Object(
    { ...params.properties, delivery_id: Type.String({ maxLength: 100 }) },
    { additionalProperties: false },
  );
  const pathOf = (request: { params: unknown }) => request.params as Record<string, string>;

  return [
    signedInRoute({
      method: 'GET',
      url: `${base}/deliveries`,
      auth,
      schema: {
        params,
        querystring: Type.Object(
          { limit: LimitParam, cursor: Type.Optional(CursorParam) },
          { additionalProperties: false },
        ),
        response: { 200: DeliveryListSchema },
      },
      handler: async (ctx, request) => {
        const webhook = await webhookOf(ctx, pathOf(request));
        return keysetPage('deliveries', newestFirst, request.query, (page) =>
          listDeliveries(ctx, webhook.id, page),
        );
      },
    }),
    signedInRoute({
      method: 'GET',
      url: `${base}/deliveries/:delivery_id`,
      auth,
      schema: { params: withDelivery, response: { 200: DeliverySchema } },
      handler: async (ctx, request) => {
        const webhook = await webhookOf(ctx, pathOf(request));
        return getDelivery(ctx, webhook.id, request.params.delivery_id);
      },
    }),
    signedInRoute({
      method: 'POST',
      url: `${base}/deliveries/:delivery_id/resend`,
      auth,
      transaction: false,
      schema: { params: withDelivery, body: noBody, response: { 200: DeliverySchema } },
      handler: async (ctx, request, _reply, { manualSends, webhooks }) => {
        const webhook = await webhookOf(ctx, pathOf(request));
        await getDelivery(ctx, webhook.id, request.params.delivery_id);
        await countManualSend(webhook, manualSends);
        return resendDelivery(ctx, webhook.id, request.params.delivery_id, webhooks.delivery);
      },
    }),
    signedInRoute({
      method: 'POST',
      url: `${base}/test`,
      auth,
      transaction: false,
      schema: {
        params,
        body: Type.Object({ type: Type.String({ maxLength: 100 }) }, { additionalProperties: false }),
        response: { 200: DeliverySchema },
      },
      handler: async (ctx, request, _reply, { manualSends, webhooks }) => {
        const webhook = await webhookOf(ctx, pathOf(request));
        const type = checkTestEventType(webhook, request.body.type);
        await countManualSend(webhook, manualSends);
        return sendTestEvent(ctx, webhook, type, webhooks.delivery);
      },
    }),
  ];
}
