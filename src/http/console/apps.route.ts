import Type from 'typebox';
import {
  AppConnectionListSchema,
  AppDetailsSchema,
  AppListSchema,
  AppPatchSchema,
  AppSchema,
  appConnectionView,
  appView,
  CreatedAppSchema,
  clientSecretDatesView,
  NewAppSchema,
  RotatedClientSecretSchema,
} from '../../domain/apps/app.schema.ts';
import { type AppType, createApp, rotateClientSecret, updateApp } from '../../domain/apps/apps.service.ts';
import { appsOfDeveloper, connectionsOfApp, developerApp } from '../../domain/apps/apps-of-developer.ts';
import { actingAccount, type Ctx } from '../../domain/shared/context.ts';
import { ApiError, InputError } from '../../domain/shared/errors.ts';
import { type SignedInRoute, signedInAccount, signedInRoute } from '../shared/signed-in-route.ts';

const base = '/console/api/apps';
const params = Type.Object({ client_id: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
const noQuery = Type.Object({}, { additionalProperties: false });
const noBody = Type.Object({}, { additionalProperties: false });
const auth = signedInAccount;

/** The app of the path, as its developer: the signed-in account (another developer's app is 404). */
const appOf = (ctx: Ctx, path: { client_id: string }) => ({
  clientId: path.client_id,
  developerId: actingAccount(ctx),
});

/** The app's rules refuse with an InputError naming the field: 400 invalid_request with that param. */
async function refusedAsInvalidRequest<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof InputError)
      throw new ApiError('invalid_request', error.message, { param: error.param });
    throw error;
  }
}

/** The developer's apps in the console: register, read, change, rotate the secret, connections. */
export const appRoutes: readonly SignedInRoute[] = [
  signedInRoute({
    method: 'GET',
    url: base,
    auth,
    schema: { querystring: noQuery, response: { 200: AppListSchema } },
    handler: async (ctx) => ({
      object: 'list',
      data: (await appsOfDeveloper(ctx, actingAccount(ctx))).map(appView),
    }),
  }),
  signedInRoute({
    method: 'POST',
    url: base,
    auth,
    schema: { querystring: noQuery, body: NewAppSchema, response: { 201: CreatedAppSchema } },
    handler: async (ctx, request, reply) => {
      const { body } = request;
      const { app, clientSecret } = await refusedAsInvalidRequest(() =>
        createApp(ctx, {
          developerId: actingAccount(ctx),
          name: body.name,
          type: body.type as AppType,
          redirectUris: body.redirect_uris,
          scopes: body.scopes,
          logoUrl: body.logo_url,
          website: body.website,
        }),
      );
      reply.code(201);
      return { ...appView(app), client_secret: clientSecret };
    },
  }),
  signedInRoute({
    method: 'GET',
    url: `${base}/:client_id`,
    auth,
    schema: { params, querystring: noQuery, response: { 200: AppDetailsSchema } },
    handler: async (ctx, request) => {
      const app = await developerApp(ctx, appOf(ctx, request.params));
      return { ...appView(app), client_secrets: app.clientSecrets.map(clientSecretDatesView) };
    },
  }),
  signedInRoute({
    method: 'PATCH',
    url: `${base}/:client_id`,
    auth,
    schema: { params, querystring: noQuery, body: AppPatchSchema, response: { 200: AppSchema } },
    handler: async (ctx, request) => {
      const { body } = request;
      const app = await refusedAsInvalidRequest(() =>
        updateApp(ctx, appOf(ctx, request.params), {
          name: body.name,
          redirectUris: body.redirect_uris,
          scopes: body.scopes,
          logoUrl: body.logo_url,
          website: body.website,
        }),
      );
      return appView(app);
    },
  }),
  signedInRoute({
    method: 'POST',
    url: `${base}/:client_id/secrets`,
    auth,
    schema: { params, querystring: noQuery, body: noBody, response: { 201: RotatedClientSecretSchema } },
    handler: async (ctx, request, reply) => {
      const { clientSecret, previousExpiresAt } = await refusedAsInvalidRequest(() =>
        rotateClientSecret(ctx, appOf(ctx, request.params)),
      );
      reply.code(201);
      return { client_secret: clientSecret, previous_secret_expires_at: previousExpiresAt };
    },
  }),
  signedInRoute({
    method: 'GET',
    url: `${base}/:client_id/connections`,
    auth,
    schema: { params, querystring: noQuery, response: { 200: AppConnectionListSchema } },
    handler: async (ctx, request) => {
      const connections = await connectionsOfApp(ctx, appOf(ctx, request.params));
      return { object: 'list', data: connections.map(appConnectionView) };
    },
  }),
];
