import type { Db } from '../../db/client.ts';
import type { Ctx } from '../shared/context.ts';
import { newId, newSecret } from '../shared/ids.ts';
import { standardWebhooksSecret } from './signature.ts';
import type { RotatedSecret, SigningSecret } from './webhook.schema.ts';

/** How long a replaced signing secret keeps signing (spec: Limits, old signing secret 24 h). */
const replacedSigningSecretValidMs = 24 * 60 * 60 * 1000;

/**
 * Gives a new webhook its first signing secret: `whsec_` and 32 random bytes (base64url); the
 * Service-Signature key is the whole string, the Standard Webhooks key the 32 bytes. Returns it.
 */
export async function addSigningSecret(ctx: Ctx, webhookId: string): Promise<string> {
  const secret = newSecret('whsec_');
  await ctx.db
    .insertInto('webhook_secrets')
    .values({ webhook_id: webhookId, id: newId(), secret, created_at: ctx.clock.now(), expires_at: null })
    .execute();
  return secret;
}

/**
 * The secrets signing a webhook now, newest first: the current one, then a replaced one for its
 * last 24 hours (the console and dashboard show them, each also in the Standard Webhooks form;
 * every delivery signs with each).
 */
export async function signingSecrets(db: Db, webhookId: string, now: Date): Promise<SigningSecret[]> {
  const rows = await db
    .selectFrom('webhook_secrets')
    .select(['secret', 'created_at', 'expires_at'])
    .where('webhook_id', '=', webhookId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => ({
    secret: row.secret,
    standard_webhooks_secret: standardWebhooksSecret(row.secret),
    created_at: row.created_at,
    expires_at: row.expires_at,
  }));
}

/**
 * A new signing secret; the current one keeps signing for 24 more hours (a secret already
 * replaced keeps its earlier expiry). The caller holds the lock of the webhook's owner, so a
 * webhook never has two current secrets.
 */
export async function rotateSigningSecret(ctx: Ctx, webhookId: string): Promise<RotatedSecret> {
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + replacedSigningSecretValidMs);
  const replaced = await ctx.db
    .updateTable('webhook_secrets')
    .set({ expires_at: expiresAt })
    .where('webhook_id', '=', webhookId)
    .where('expires_at', 'is', null)
    .executeTakeFirst();
  const secret = await addSigningSecret(ctx, webhookId);
  return {
    secret,
    standard_webhooks_secret: standardWebhooksSecret(secret),
    previous_secret_expires_at: replaced.numUpdatedRows > 0n ? expiresAt : null,
  };
}
