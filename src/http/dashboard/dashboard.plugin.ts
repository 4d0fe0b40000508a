import type { FastifyInstance } from 'fastify';
import { accountRoutes } from '../shared/account-routes.ts';
import { dashboardSessions } from '../shared/sessions.ts';
import { type SignedInApiOptions, signedInApi } from '../shared/signed-in-api.ts';
import type { SignedInRoute } from '../shared/signed-in-route.ts';
import { connectionRoutes } from './connections.route.ts';
import { menuRoutes } from './menu.route.ts';
import { endOrderStreams, orderBoardRoutes } from './orders.route.ts';
import { reservationSettingsRoutes } from './reservation-settings.route.ts';
import { storeRoutes } from './store.route.ts';
import { tableRoutes } from './tables.route.ts';
import { restaurantWebhookRoutes } from './webhooks.route.ts';

/** Every operation of the dashboard's JSON API; the shared surface test walks this list. */
export const dashboardRoutes: readonly SignedInRoute[] = [
  ...accountRoutes('/dashboard/api'),
  ...restaurantWebhookRoutes,
  ...tableRoutes,
  ...storeRoutes,
  ...menuRoutes,
  ...orderBoardRoutes,
  ...connectionRoutes,
  ...reservationSettingsRoutes,
];

/*
 * The restaurant dashboard's JSON API under `/dashboard/api`: sign-in (any account; what it may
 * see is decided per restaurant by the restaurant gate), the restaurant's store settings, hours,
 * special days and pause, its own webhooks, its tables and areas, its menu, its order board.
 */
export async function dashboardPlugin(app: FastifyInstance, options: SignedInApiOptions): Promise<void> {
  await signedInApi(app, options, dashboardSessions, dashboardRoutes);
  // The order board's open streams end with the server, which would otherwise wait for them.
  app.addHook('preClose', async () => endOrderStreams(app.server));
}
