import {
  AvailabilityInputSchema,
  AvailabilityUpdateSchema,
  maxAvailabilityEntries,
} from '../../domain/menu/availability.schema.ts';
import { updateAvailability } from '../../domain/menu/availability.service.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';
import { tags, write } from './menu-params.ts';

export const postAvailabilityRoute = apiRoute({
  method: 'POST',
  url: '/menu/availability',
  auth: write,
  schema: {
    operationId: 'updateAvailability',
    summary: 'Mark many products and options sold out or available',
    description:
      `Up to ${maxAvailabilityEntries} entries (more: 422 \`limit_exceeded\`), all or nothing. Each entry ` +
      'names a product or an option (`type`) by exactly one of `id` and `external_id` (your app’s own; ' +
      'else 400 on `entries[i].id`); an unknown one (another restaurant’s object, another app’s ' +
      'external_id, an id of the other type) is a 400 on the field used (`entries[3].external_id`), and ' +
      'an object named twice a 400 on the later entry. `available: false` with `until` (a future instant, ' +
      'else 400 on `entries[i].until`) sells it out until then: it comes back by itself, emitting ' +
      '`menu.*.updated`; without `until`, until put back. `available: true` ends it (`until` then is a 400). ' +
      'Each object that changes gets `updated_at` now and emits `menu.product.updated` or ' +
      '`menu.option.updated` with `changed` (["available"], plus "unavailable_until" when that changed) ' +
      'and `previous`; an entry that changes nothing counts as `unchanged` and emits nothing.',
    tags,
    body: AvailabilityInputSchema,
    response: {
      200: { ...AvailabilityUpdateSchema, description: 'How many entries changed their object.' },
      ...errorResponses(400, 401, 403, 409, 413, 422, 429, 500),
    },
  },
  handler: (ctx, request) => updateAvailability(ctx, request.body),
});
