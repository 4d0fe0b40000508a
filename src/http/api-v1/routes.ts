import type { ApiRoute } from './api-route.ts';
import { deleteConnection } from './connection.route.ts';
import { getEventRoute, listEventsRoute } from './events.route.ts';
import { getMe } from './me.route.ts';

/** Every operation of the public API; the shared authentication test walks this list. */
export const apiV1Routes: readonly ApiRoute[] = [getMe, deleteConnection, listEventsRoute, getEventRoute];
