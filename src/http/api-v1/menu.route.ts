import { MenuSchema } from '../../domain/menu/menu.schema.ts';
import { getMenu } from '../../domain/menu/menu.service.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';
import { postAvailabilityRoute } from './menu-availability.route.ts';
import { categoryRoutes } from './menu-categories.route.ts';
import {
  deleteOptionGroupRoute,
  getOptionGroupRoute,
  listOptionGroupsRoute,
  patchOptionGroupRoute,
  postOptionGroupRoute,
} from './menu-option-groups.route.ts';
import {
  deleteOptionRoute,
  getOptionRoute,
  listOptionsRoute,
  patchOptionRoute,
  postOptionRoute,
} from './menu-options.route.ts';
import { productRoutes } from './menu-products.route.ts';
import { putMenuRoute } from './menu-sync.route.ts';

export const getMenuRoute = apiRoute({
  method: 'GET',
  url: '/menu',
  auth: { scopes: ['menu:read'] },
  schema: {
    operationId: 'getMenu',
    summary: 'The whole menu',
    description:
      'Categories, products and option groups (each with its options), each by `position` (ties by id), ' +
      'sold-out items included, with the restaurant’s currency.',
    tags: ['Menu'],
    response: {
      200: { ...MenuSchema, description: 'The whole menu.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: (ctx) => getMenu(ctx),
});

/*
 * The menu's operations (issue 12), in the document's order. A group's options come before the
 * group's own path, so that requests run in this order (the examples, the Postman collection's
 * destructive folder) create a group, then an option in it, and delete the option before the group.
 * POST /menu/availability follows the option's creation: its example sells that option out.
 */
export const menuRoutes = [
  getMenuRoute,
  putMenuRoute,
  ...categoryRoutes,
  ...productRoutes,
  listOptionGroupsRoute,
  postOptionGroupRoute,
  postOptionRoute,
  postAvailabilityRoute,
  listOptionsRoute,
  getOptionRoute,
  patchOptionRoute,
  deleteOptionRoute,
  getOptionGroupRoute,
  patchOptionGroupRoute,
  deleteOptionGroupRoute,
];
