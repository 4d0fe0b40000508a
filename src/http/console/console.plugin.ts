import type { FastifyInstance } from 'fastify';
import { accountRoutes } from '../shared/account-routes.ts';
import { consoleSessions } from '../shared/sessions.ts';
import { type SignedInApiOptions, signedInApi } from '../shared/signed-in-api.ts';
import type { SignedInRoute } from '../shared/signed-in-route.ts';
import { appRoutes } from './apps.route.ts';
import { testOrderRoutes } from './test-order.route.ts';
import { appWebhookRoutes } from './webhook.route.ts';

/** Every operation of the developer console's JSON API; the shared surface test walks this list. */
export const consoleRoutes: readonly SignedInRoute[] = [
  ...accountRoutes('/console/api'),
  ...appRoutes,
  ...appWebhookRoutes,
  ...testOrderRoutes,
];

/** The developer console's JSON API under `/console/api`: sign-in, the app's webhook, test orders in
 * the developer's test restaurant. */
export async function consolePlugin(app: FastifyInstance, options: SignedInApiOptions): Promise<void> {
  await signedInApi(app, options, consoleSessions, consoleRoutes);
}
