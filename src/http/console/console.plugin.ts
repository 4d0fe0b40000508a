import type { FastifyInstance } from 'fastify';
import { webhookRouteOptions } from '../shared/delivery-log.route.ts';
import { consoleSessions } from '../shared/sessions.ts';
import { type SignedInApiOptions, signedInApi } from '../shared/signed-in-api.ts';
import { appWebhookRoutes } from './webhook.route.ts';

/** The developer console's JSON API under `/console/api`: sign-in and the app's webhook. */
export async function consolePlugin(app: FastifyInstance, options: SignedInApiOptions): Promise<void> {
  const signedIn = await signedInApi(app, options, consoleSessions);
  appWebhookRoutes(app, signedIn, webhookRouteOptions(options));
}
