import type { Selectable } from 'kysely';
import type { WebhooksTable } from '../../db/schema.ts';
import { currentRestaurant } from '../restaurants/restaurant-gate.ts';
import type { Ctx } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid, newId } from '../shared/ids.ts';
import type { LoggedWebhook } from './delivery-log.service.ts';
import { checkEventSelection } from './event-selection.ts';
import { addSigningSecret, rotateSigningSecret, signingSecrets } from './signing-secrets.ts';
import { skipOpenDeliveries, switchedOn } from './switching-off.ts';
import {
  type RestaurantWebhook,
  type RotatedSecret,
  type SigningSecretList,
  type WebhookInput,
  webhookView,
} from './webhook.schema.ts';
import { type AddressRules, checkWebhookUrl } from './webhook-address.ts';

/** Webhooks a restaurant may have of its own (spec: Limits). */
export const maxRestaurantWebhooks = 5;

const noWebhook = (id: string) => new ApiError('not_found', `This restaurant has no webhook ${id}.`);

/** WEBHOOKS_ALLOW_INSECURE never applies to a live restaurant's own webhooks. */
function rulesFor(restaurant: { livemode: boolean }, setting: AddressRules): AddressRules {
  return { allowInsecure: setting.allowInsecure && !restaurant.livemode };
}

function webhookOf(row: Selectable<WebhooksTable>): RestaurantWebhook {
  return { id: row.id, restaurant_id: row.tenant_id as string, ...webhookView(row) };
}

/** The restaurant's own webhooks (the ctx acts in it: restaurant-gate.ts). */
export async function listRestaurantWebhooks(
  ctx: Ctx,
): Promise<{ object: 'list'; data: RestaurantWebhook[] }> {
  const restaurant = await currentRestaurant(ctx);
  const rows = await ctx.db
    .selectFrom('webhooks')
    .selectAll()
    .where('tenant_id', '=', restaurant.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return { object: 'list', data: rows.map(webhookOf) };
}

/*
 * Adds a webhook of the restaurant's own:
 * - at most five per restaurant (422 limit_exceeded);
 * - the address passes checkWebhookUrl, insecure receivers only in a test restaurant;
 * - the selection passes checkEventSelection without app.*;
 * - it gets its first signing secret, returned here.
 */
export async function createRestaurantWebhook(
  ctx: Ctx,
  input: WebhookInput & { rules: AddressRules },
): Promise<{ webhook: RestaurantWebhook; secret: string }> {
  const events = checkEventSelection(input.events, 'restaurant');
  const restaurant = await currentRestaurant(ctx, true);
  const url = (await checkWebhookUrl(input.url, rulesFor(restaurant, input.rules))).href;
  const count = await ctx.db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tenant_id', '=', restaurant.id)
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= maxRestaurantWebhooks)
    throw new ApiError('limit_exceeded', `A restaurant can have at most ${maxRestaurantWebhooks} webhooks.`);
  const now = ctx.clock.now();
  const row = await ctx.db
    .insertInto('webhooks')
    .values({ id: newId(), tenant_id: restaurant.id, url, events, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  const secret = await addSigningSecret(ctx, row.id);
  return { webhook: webhookOf(row), secret };
}

/**
 * Changes the address, the selection (checked as on creation) or switches the webhook on or off
 * (switched off, its open deliveries are skipped).
 */
export async function updateRestaurantWebhook(
  ctx: Ctx,
  input: Partial<WebhookInput> & { webhookId: string; enabled?: boolean; rules: AddressRules },
): Promise<RestaurantWebhook> {
  const events = input.events === undefined ? undefined : checkEventSelection(input.events, 'restaurant');
  const restaurant = await currentRestaurant(ctx, true);
  const url =
    input.url === undefined
      ? undefined
      : (await checkWebhookUrl(input.url, rulesFor(restaurant, input.rules))).href;
  const now = ctx.clock.now();
  const switched =
    input.enabled === undefined
      ? {}
      : input.enabled
        ? switchedOn
        : { enabled: false, disabled_at: now, disabled_reason: 'Switched off by the restaurant.' };
  const row = await ctx.db
    .updateTable('webhooks')
    .set({
      ...(url === undefined ? {} : { url }),
      ...(events === undefined ? {} : { events }),
      ...switched,
      updated_at: now,
    })
    .where('tenant_id', '=', restaurant.id)
    .where('id', '=', knownId(input.webhookId))
    .returningAll()
    .executeTakeFirst();
  if (!row) throw noWebhook(input.webhookId);
  if (input.enabled === false) await skipOpenDeliveries(ctx.db, row.id, now);
  return webhookOf(row);
}

/** Deletes the webhook with its secrets and its delivery log. */
export async function deleteRestaurantWebhook(ctx: Ctx, input: { webhookId: string }): Promise<void> {
  const restaurant = await currentRestaurant(ctx, true);
  const deleted = await ctx.db
    .deleteFrom('webhooks')
    .where('tenant_id', '=', restaurant.id)
    .where('id', '=', knownId(input.webhookId))
    .executeTakeFirst();
  if (deleted.numDeletedRows === 0n) throw noWebhook(input.webhookId);
}

/** The webhook's secrets signing now, newest first. */
export async function listRestaurantWebhookSecrets(
  ctx: Ctx,
  input: { webhookId: string },
): Promise<SigningSecretList> {
  const webhook = await restaurantWebhookOf(ctx, input, false);
  return { object: 'list', data: await signingSecrets(ctx.db, webhook.id, ctx.clock.now()) };
}

/** A new signing secret; the current one keeps signing for 24 more hours. */
export async function rotateRestaurantWebhookSecret(
  ctx: Ctx,
  input: { webhookId: string },
): Promise<RotatedSecret> {
  return rotateSigningSecret(ctx, (await restaurantWebhookOf(ctx, input, true)).id);
}

/** One of the restaurant's webhooks (404 for another restaurant's, or a malformed id). */
export async function restaurantWebhookOf(
  ctx: Ctx,
  input: { webhookId: string },
  lock: boolean,
): Promise<LoggedWebhook> {
  const restaurant = await currentRestaurant(ctx, lock);
  const found = await ctx.db
    .selectFrom('webhooks')
    .select('id')
    .where('tenant_id', '=', restaurant.id)
    .where('id', '=', knownId(input.webhookId))
    .executeTakeFirst();
  if (!found) throw noWebhook(input.webhookId);
  return { id: found.id, appId: null, tenantId: restaurant.id };
}

/** A webhook id that is no UUID names no webhook (and must not reach the uuid column). */
function knownId(webhookId: string): string {
  if (!isUuid(webhookId)) throw noWebhook(webhookId);
  return webhookId;
}
