import { downloadNewImages } from '../../domain/menu/menu-images.ts';
import {
  MenuSyncInputSchema,
  MenuSyncSchema,
  syncBodyLimit,
  syncRateLimit,
} from '../../domain/menu/menu-sync.schema.ts';
import { syncMenu } from '../../domain/menu/menu-sync.service.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';
import { tags } from './menu-params.ts';

export const putMenuRoute = apiRoute({
  method: 'PUT',
  url: '/menu',
  auth: {
    scopes: ['menu:write'],
    perConnection: {
      name: 'menu sync',
      limit: syncRateLimit.limit,
      windowSeconds: syncRateLimit.windowSeconds,
    },
  },
  bodyLimit: syncBodyLimit,
  destructive: 'data',
  schema: {
    operationId: 'syncMenu',
    summary: 'Sync the whole menu',
    description:
      'Creates and updates your categories, products and option groups (with their options), keyed by your ' +
      '`external_id` per kind (another app’s objects are never yours, whatever their external_id); ' +
      'references name your external_ids too (in `merge` mode also objects you synced before). Omitted ' +
      'fields stay unchanged, `null` clears; a new object needs its `name` (a product also its `price`, an ' +
      'option its `price_delta`: else 400 on the field); new objects without a `position` go last. ' +
      '`replace` also deletes your objects of each kind sent that the body leaves out: the ' +
      'restaurant’s products in a deleted category move to no category, a deleted option group takes all ' +
      'its options with it (warning `unmanaged_options_deleted` for those without your external_id), a ' +
      'deleted product its own option groups (`unmanaged_option_groups_deleted`). One transaction; ' +
      '`dry_run` reports and changes nothing. A sync that changes something emits one `menu.synced` naming ' +
      'your connection, no per-object events; one that changes nothing changes no `updated_at`. Body at ' +
      'most 2 MB (413); at most 200 categories, 5,000 products, 2,000 option groups and 20,000 options ' +
      '(422 `limit_exceeded`); 10 syncs a minute per connection (429 `rate_limited`; other requests go on). ' +
      'Images: at most 25 new `image_url`s are downloaded during the request, further ones in the background ' +
      '(warning `images_deferred`); a URL used before is not downloaded again; a test restaurant keeps at most ' +
      '50 images, further new ones are skipped (`images_capped`); a dry run downloads nothing.',
    tags,
    body: MenuSyncInputSchema,
    response: {
      200: { ...MenuSyncSchema, description: 'What the sync did (or would do, in a dry run).' },
      ...errorResponses(400, 401, 403, 409, 413, 422, 429, 500),
    },
  },
  beforeWrite: (ctx, { body }) =>
    body.dry_run
      ? Promise.resolve()
      : downloadNewImages(
          ctx,
          (body.products ?? []).map((p) => p.image_url),
        ),
  handler: (ctx, request) => syncMenu(ctx, request.body),
});
