import type { FastifyInstance } from 'fastify';
import { webhookRouteOptions } from '../shared/delivery-log.route.ts';
import { dashboardSessions } from '../shared/sessions.ts';
import { type SignedInApiOptions, signedInApi } from '../shared/signed-in-api.ts';
import { storeRoutes } from './store.route.ts';
import { tableRoutes } from './tables.route.ts';
import { restaurantWebhookRoutes } from './webhooks.route.ts';

/*
 * The restaurant dashboard's JSON API under `/dashboard/api`: sign-in (any account; what it may
 * see is decided per restaurant: its owners), the restaurant's store settings, hours, special days
 * and pause, its own webhooks, its tables and areas.
 */
export async function dashboardPlugin(app: FastifyInstance, options: SignedInApiOptions): Promise<void> {
  const signedIn = await signedInApi(app, options, dashboardSessions);
  restaurantWebhookRoutes(app, signedIn, webhookRouteOptions(options));
  tableRoutes(app, signedIn);
  storeRoutes(app, signedIn);
}
