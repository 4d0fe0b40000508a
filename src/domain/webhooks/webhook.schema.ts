import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { WebhooksTable } from '../../db/schema.ts';
import { Timestamp } from '../shared/common.schema.ts';

const webhookFields = {
  object: Type.Literal('webhook'),
  url: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabled_at: Type.Union([Timestamp, Type.Null()]),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
};

/** A webhook row as the console shows it; a restaurant's own adds its id and restaurant. */
export function webhookView(row: Selectable<WebhooksTable>): AppWebhook {
  return {
    object: 'webhook',
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    disabled_at: row.disabled_at,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The app's webhook as the console shows it (its secrets only through their own operations). */
export const AppWebhookSchema = Type.Object(webhookFields, { additionalProperties: false });
export type AppWebhook = Static<typeof AppWebhookSchema>;

/** A restaurant's own webhook as the dashboard shows it. */
export const RestaurantWebhookSchema = Type.Object(
  { id: Type.String(), restaurant_id: Type.String(), ...webhookFields },
  { additionalProperties: false },
);
export type RestaurantWebhook = Static<typeof RestaurantWebhookSchema>;

/** The same secret in the form the Standard Webhooks libraries take (webhook-signature). */
export const StandardWebhooksSecret = Type.String({
  description:
    'The same signing secret as the `standardwebhooks` libraries take it (`whsec_` + standard base64 of its 32 bytes), to verify the `webhook-signature` header.',
});

/** A signing secret still signing: the current one (no expiry) or a replaced one until it expires. */
export const SigningSecretSchema = Type.Object(
  {
    secret: Type.String(),
    standard_webhooks_secret: StandardWebhooksSecret,
    created_at: Timestamp,
    expires_at: Type.Union([Timestamp, Type.Null()]),
  },
  { additionalProperties: false },
);
export type SigningSecret = Static<typeof SigningSecretSchema>;

/** The secrets that sign now, newest first (the order of the `v1` values in Service-Signature). */
export const SigningSecretListSchema = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(SigningSecretSchema) },
  { additionalProperties: false },
);
export type SigningSecretList = Static<typeof SigningSecretListSchema>;

/** The answer of a rotation: the new secret, and until when the replaced one still signs. */
export const RotatedSecretSchema = Type.Object(
  {
    secret: Type.String(),
    standard_webhooks_secret: StandardWebhooksSecret,
    previous_secret_expires_at: Type.Union([Timestamp, Type.Null()]),
  },
  { additionalProperties: false },
);
export type RotatedSecret = Static<typeof RotatedSecretSchema>;

/** What a console or dashboard write sends: the address and the event selection. */
export const WebhookInputSchema = Type.Object(
  {
    url: Type.String({ minLength: 1 }),
    events: Type.Array(Type.String(), { minItems: 1, maxItems: 100 }),
  },
  { additionalProperties: false },
);
export type WebhookInput = Static<typeof WebhookInputSchema>;

/** One attempt in the delivery log. */
const DeliveryAttemptSchema = Type.Object(
  {
    attempt: Type.Integer({ description: 'The send number (Service-Delivery-Attempt), resends included.' }),
    started_at: Timestamp,
    status_code: Type.Union([Type.Integer(), Type.Null()]),
    duration_ms: Type.Integer(),
    error: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

/** A delivery of one event to one webhook, with its attempts and the envelope it sends. */
export const DeliverySchema = Type.Object(
  {
    object: Type.Literal('webhook_delivery'),
    id: Type.String(),
    event_id: Type.String(),
    event_type: Type.String(),
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('delivered'),
      Type.Literal('given_up'),
      Type.Literal('skipped'),
      Type.Literal('failed'),
    ]),
    scheduled_attempts: Type.Integer({ description: 'Scheduled attempts made, at most 8.' }),
    next_attempt_at: Type.Union([Timestamp, Type.Null()]),
    delivered_at: Type.Union([Timestamp, Type.Null()]),
    created_at: Timestamp,
    event: Type.Record(Type.String(), Type.Unknown()),
    attempts: Type.Array(DeliveryAttemptSchema),
  },
  { additionalProperties: false },
);
export type DeliveryView = Static<typeof DeliverySchema>;

export const DeliveryListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(DeliverySchema),
    has_more: Type.Boolean(),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);
export type DeliveryList = Static<typeof DeliveryListSchema>;
