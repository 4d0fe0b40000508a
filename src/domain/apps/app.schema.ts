import Type, { type Static } from 'typebox';
import { nullable, Timestamp } from '../shared/common.schema.ts';
import { scopes } from '../shared/scopes.ts';
import { type App, appStatuses, appTypes } from './apps.service.ts';
import type { AppConnection, LiveClientSecret } from './apps-of-developer.ts';

/*
 * The developer console's apps, in the public API's snake_case. The inputs' limits are loose
 * bounds on the request; the app's rules (apps.service.ts check) answer with the field at fault.
 */

const Scope = Type.Enum(scopes);
const RedirectUris = Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100 });
const ScopeList = Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 });
const OptionalUrl = nullable(Type.String({ maxLength: 2000 }));

const appFields = {
  object: Type.Literal('app'),
  client_id: Type.String(),
  name: Type.String(),
  type: Type.Enum(appTypes),
  status: Type.Enum(appStatuses, {
    description: 'pending until an operator approves the app; only its developer can connect it before.',
  }),
  redirect_uris: Type.Array(Type.String()),
  scopes: Type.Array(Scope),
  logo_url: nullable(Type.String()),
  website: nullable(Type.String()),
  created_at: Timestamp,
};

export const AppSchema = Type.Object(appFields, { additionalProperties: false });
export type AppView = Static<typeof AppSchema>;

export const AppListSchema = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(AppSchema) },
  { additionalProperties: false },
);

/** A client secret that still works: only its dates (the secret itself is shown once, when made). */
const ClientSecretDatesSchema = Type.Object(
  { created_at: Timestamp, expires_at: nullable(Timestamp) },
  { additionalProperties: false },
);

/** One app with the dates of its working client secrets (none for a public app). */
export const AppDetailsSchema = Type.Object(
  { ...appFields, client_secrets: Type.Array(ClientSecretDatesSchema) },
  { additionalProperties: false },
);

/** A registered app and, for a confidential one, its first client secret: shown this once. */
export const CreatedAppSchema = Type.Object(
  { ...appFields, client_secret: nullable(Type.String()) },
  { additionalProperties: false },
);

export const NewAppSchema = Type.Object(
  {
    name: Type.String({ maxLength: 2000 }),
    type: Type.String({ maxLength: 100 }),
    redirect_uris: RedirectUris,
    scopes: ScopeList,
    logo_url: Type.Optional(OptionalUrl),
    website: Type.Optional(OptionalUrl),
  },
  { additionalProperties: false },
);
export type NewAppInput = Static<typeof NewAppSchema>;

/** What a developer may change: every field but the type (its secrets depend on it). */
export const AppPatchSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 2000 })),
    redirect_uris: Type.Optional(RedirectUris),
    scopes: Type.Optional(ScopeList),
    logo_url: Type.Optional(OptionalUrl),
    website: Type.Optional(OptionalUrl),
  },
  { additionalProperties: false },
);
export type AppPatchInput = Static<typeof AppPatchSchema>;

/** A rotation: the new secret, shown this once, and until when the replaced one still works. */
export const RotatedClientSecretSchema = Type.Object(
  { client_secret: Type.String(), previous_secret_expires_at: nullable(Timestamp) },
  { additionalProperties: false },
);

const AppConnectionSchema = Type.Object(
  {
    connection_id: Type.String(),
    restaurant: Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false }),
    scopes: Type.Array(Scope, { description: 'What the owner granted (fewer than the app’s, or older).' }),
    livemode: Type.Boolean({ description: 'false for a test restaurant.' }),
    connected_at: Timestamp,
  },
  { additionalProperties: false },
);

export const AppConnectionListSchema = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(AppConnectionSchema) },
  { additionalProperties: false },
);

export function appView(app: App): AppView {
  return {
    object: 'app',
    client_id: app.clientId,
    name: app.name,
    type: app.type,
    status: app.status,
    redirect_uris: app.redirectUris,
    scopes: app.scopes,
    logo_url: app.logoUrl,
    website: app.website,
    created_at: app.createdAt,
  };
}

export function clientSecretDatesView(secret: LiveClientSecret) {
  return { created_at: secret.createdAt, expires_at: secret.expiresAt };
}

export function appConnectionView(connection: AppConnection) {
  return {
    connection_id: connection.connectionId,
    restaurant: { id: connection.restaurantId, name: connection.restaurantName },
    scopes: connection.scopes,
    livemode: connection.livemode,
    connected_at: connection.connectedAt,
  };
}
