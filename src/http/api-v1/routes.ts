import type { ApiRoute } from './api-route.ts';
import { deleteConnection } from './connection.route.ts';
import { getEventRoute, listEventsRoute } from './events.route.ts';
import { getMe } from './me.route.ts';
import { menuRoutes } from './menu.route.ts';
import { orderRoutes } from './orders.route.ts';
import { reportRoutes } from './reports.route.ts';
import { reservationRoutes } from './reservations.route.ts';
import { storeRoutes } from './store.route.ts';
import { listAreasRoute, listTablesRoute } from './tables.route.ts';

/** Every operation of the public API; the shared authentication test walks this list. */
export const apiV1Routes: readonly ApiRoute[] = [
  getMe,
  deleteConnection,
  listEventsRoute,
  getEventRoute,
  ...orderRoutes,
  ...storeRoutes,
  listTablesRoute,
  listAreasRoute,
  ...menuRoutes,
  ...reportRoutes,
  ...reservationRoutes,
];
