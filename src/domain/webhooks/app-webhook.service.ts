import type { Ctx } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import type { LoggedWebhook } from './delivery-log.service.ts';
import { checkEventSelection } from './event-selection.ts';
import { addSigningSecret, rotateSigningSecret, signingSecrets } from './signing-secrets.ts';
import { switchedOn } from './switching-off.ts';
import {
  type AppWebhook,
  type RotatedSecret,
  type SigningSecretList,
  type WebhookInput,
  webhookView,
} from './webhook.schema.ts';
import { type AddressRules, checkWebhookUrl } from './webhook-address.ts';

/** Which app: by client id, as its developer (console) or as the operator (CLI: developerId null). */
export interface AppRef {
  clientId: string;
  developerId: string | null;
}

const noWebhook = () => new ApiError('not_found', 'This app has no webhook yet.');

/**
 * The app, its row locked when `lock` (writes of one app run one after the other). Another
 * developer's app is not found, as an unknown one.
 */
async function findApp(ctx: Ctx, ref: AppRef, lock: boolean): Promise<{ id: string }> {
  let query = ctx.db.selectFrom('apps').select('id').where('client_id', '=', ref.clientId);
  if (ref.developerId !== null) query = query.where('developer_id', '=', ref.developerId);
  const app = await (lock ? query.forUpdate() : query).executeTakeFirst();
  if (!app) throw new ApiError('not_found', `No app with the client_id ${ref.clientId}.`);
  return app;
}

/** The app's webhook (404 without one). */
export async function findAppWebhook(ctx: Ctx, ref: AppRef, lock = false): Promise<LoggedWebhook> {
  const app = await findApp(ctx, ref, lock);
  const webhook = await ctx.db
    .selectFrom('webhooks')
    .select('id')
    .where('app_id', '=', app.id)
    .executeTakeFirst();
  if (!webhook) throw noWebhook();
  return { id: webhook.id, appId: app.id, tenantId: null };
}

export async function getAppWebhook(ctx: Ctx, ref: AppRef): Promise<AppWebhook> {
  const app = await findApp(ctx, ref, false);
  const row = await ctx.db.selectFrom('webhooks').selectAll().where('app_id', '=', app.id).executeTakeFirst();
  if (!row) throw noWebhook();
  return webhookView(row);
}

/*
 * Sets the app's one webhook (creates it or replaces its address and selection):
 * - the address passes checkWebhookUrl (its host is resolved here, inside the transaction);
 * - the selection passes checkEventSelection (app.* allowed);
 * - a new webhook gets its first signing secret, returned here (and shown again later);
 * - a replaced address keeps the webhook's state, secrets and enabled flag.
 */
export async function setAppWebhook(
  ctx: Ctx,
  input: AppRef & WebhookInput & { rules: AddressRules },
): Promise<{ webhook: AppWebhook; created: boolean; secret: string | null }> {
  // Another developer's app is not found, whatever the input.
  const app = await findApp(ctx, input, true);
  const events = checkEventSelection(input.events, 'app');
  const url = (await checkWebhookUrl(input.url, input.rules)).href;
  const now = ctx.clock.now();
  const existing = await ctx.db
    .updateTable('webhooks')
    .set({ url, events, updated_at: now })
    .where('app_id', '=', app.id)
    .returningAll()
    .executeTakeFirst();
  if (existing) return { webhook: webhookView(existing), created: false, secret: null };
  const row = await ctx.db
    .insertInto('webhooks')
    .values({ id: newId(), app_id: app.id, url, events, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  const secret = await addSigningSecret(ctx, row.id);
  return { webhook: webhookView(row), created: true, secret };
}

/** Deletes the webhook with its secrets and its delivery log (events stay in the feed). */
export async function deleteAppWebhook(ctx: Ctx, ref: AppRef): Promise<void> {
  const app = await findApp(ctx, ref, true);
  const deleted = await ctx.db.deleteFrom('webhooks').where('app_id', '=', app.id).executeTakeFirst();
  if (deleted.numDeletedRows === 0n) throw noWebhook();
}

/** Switches a webhook that was switched off (after failing) on again. */
export async function enableAppWebhook(ctx: Ctx, ref: AppRef): Promise<AppWebhook> {
  const app = await findApp(ctx, ref, true);
  const row = await ctx.db
    .updateTable('webhooks')
    .set({ ...switchedOn, updated_at: ctx.clock.now() })
    .where('app_id', '=', app.id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw noWebhook();
  return webhookView(row);
}

/** The secrets signing now, newest first (two for 24 hours after a rotation). */
export async function listAppWebhookSecrets(ctx: Ctx, ref: AppRef): Promise<SigningSecretList> {
  const webhook = await findAppWebhook(ctx, ref);
  return { object: 'list', data: await signingSecrets(ctx.db, webhook.id, ctx.clock.now()) };
}

/** A new signing secret; the current one keeps signing for 24 more hours. */
export async function rotateAppWebhookSecret(ctx: Ctx, ref: AppRef): Promise<RotatedSecret> {
  return rotateSigningSecret(ctx, (await findAppWebhook(ctx, ref, true)).id);
}
