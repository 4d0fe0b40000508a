import type { Selectable } from 'kysely';
import type { AppWebhooksTable } from '../../db/schema.ts';
import type { Ctx } from '../context.ts';
import { ApiError } from '../errors.ts';
import { newId } from '../ids.ts';
import { checkEventSelection } from './event-selection.ts';
import { appSigningSecrets, newSigningSecret, replacedSigningSecretValidMs } from './signing-secrets.ts';
import type { AppWebhook, RotatedSecret, SigningSecretList, WebhookInput } from './webhook.schema.ts';
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

async function requireWebhook(ctx: Ctx, appId: string): Promise<void> {
  const webhook = await ctx.db
    .selectFrom('app_webhooks')
    .select('app_id')
    .where('app_id', '=', appId)
    .executeTakeFirst();
  if (!webhook) throw noWebhook();
}

function webhookOf(row: Selectable<AppWebhooksTable>): AppWebhook {
  return {
    object: 'webhook',
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    disabled_at: row.disabled_at,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function getAppWebhook(ctx: Ctx, ref: AppRef): Promise<AppWebhook> {
  const app = await findApp(ctx, ref, false);
  const row = await ctx.db
    .selectFrom('app_webhooks')
    .selectAll()
    .where('app_id', '=', app.id)
    .executeTakeFirst();
  if (!row) throw noWebhook();
  return webhookOf(row);
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
  const events = checkEventSelection(input.events, 'app');
  const url = (await checkWebhookUrl(input.url, input.rules)).href;
  const app = await findApp(ctx, input, true);
  const now = ctx.clock.now();
  const existing = await ctx.db
    .updateTable('app_webhooks')
    .set({ url, events, updated_at: now })
    .where('app_id', '=', app.id)
    .returningAll()
    .executeTakeFirst();
  if (existing) return { webhook: webhookOf(existing), created: false, secret: null };
  const row = await ctx.db
    .insertInto('app_webhooks')
    .values({ app_id: app.id, url, events, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  const secret = newSigningSecret();
  await ctx.db
    .insertInto('app_webhook_secrets')
    .values({ app_id: app.id, id: newId(), secret, created_at: now, expires_at: null })
    .execute();
  return { webhook: webhookOf(row), created: true, secret };
}

/** Deletes the webhook with its secrets (and, once there is one, its delivery log). */
export async function deleteAppWebhook(ctx: Ctx, ref: AppRef): Promise<void> {
  const app = await findApp(ctx, ref, true);
  const deleted = await ctx.db.deleteFrom('app_webhooks').where('app_id', '=', app.id).executeTakeFirst();
  if (deleted.numDeletedRows === 0n) throw noWebhook();
}

/** Switches a webhook that was switched off (after failing) on again. */
export async function enableAppWebhook(ctx: Ctx, ref: AppRef): Promise<AppWebhook> {
  const app = await findApp(ctx, ref, true);
  const row = await ctx.db
    .updateTable('app_webhooks')
    .set({ enabled: true, disabled_at: null, disabled_reason: null, updated_at: ctx.clock.now() })
    .where('app_id', '=', app.id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw noWebhook();
  return webhookOf(row);
}

/** The secrets signing now, newest first (two for 24 hours after a rotation). */
export async function listAppWebhookSecrets(ctx: Ctx, ref: AppRef): Promise<SigningSecretList> {
  const app = await findApp(ctx, ref, false);
  await requireWebhook(ctx, app.id);
  return { object: 'list', data: await appSigningSecrets(ctx.db, app.id, ctx.clock.now()) };
}

/**
 * A new signing secret; the current one keeps signing for 24 more hours (a secret already
 * replaced keeps its earlier expiry). The app's row is locked, so it never has two current ones.
 */
export async function rotateAppWebhookSecret(ctx: Ctx, ref: AppRef): Promise<RotatedSecret> {
  const app = await findApp(ctx, ref, true);
  await requireWebhook(ctx, app.id);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + replacedSigningSecretValidMs);
  const replaced = await ctx.db
    .updateTable('app_webhook_secrets')
    .set({ expires_at: expiresAt })
    .where('app_id', '=', app.id)
    .where('expires_at', 'is', null)
    .executeTakeFirst();
  const secret = newSigningSecret();
  await ctx.db
    .insertInto('app_webhook_secrets')
    .values({ app_id: app.id, id: newId(), secret, created_at: now, expires_at: null })
    .execute();
  return { secret, previous_secret_expires_at: replaced.numUpdatedRows > 0n ? expiresAt : null };
}
