import Type, { type Static } from 'typebox';
import { Timestamp } from '../common.schema.ts';

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

/** The app's webhook as the console shows it (its secrets only through their own operations). */
export const AppWebhookSchema = Type.Object(webhookFields, { additionalProperties: false });
export type AppWebhook = Static<typeof AppWebhookSchema>;

/** A restaurant's own webhook as the dashboard shows it. */
export const RestaurantWebhookSchema = Type.Object(
  { id: Type.String(), restaurant_id: Type.String(), ...webhookFields },
  { additionalProperties: false },
);
export type RestaurantWebhook = Static<typeof RestaurantWebhookSchema>;

/** A signing secret still signing: the current one (no expiry) or a replaced one until it expires. */
export const SigningSecretSchema = Type.Object(
  { secret: Type.String(), created_at: Timestamp, expires_at: Type.Union([Timestamp, Type.Null()]) },
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
  { secret: Type.String(), previous_secret_expires_at: Type.Union([Timestamp, Type.Null()]) },
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
