import type { Db } from '../../db/client.ts';
import { newSecret } from '../ids.ts';

/** How long a replaced signing secret keeps signing (spec: Limits, old signing secret 24 h). */
export const replacedSigningSecretValidMs = 24 * 60 * 60 * 1000;

/** A new signing secret: `whsec_` and 32 random bytes (base64url). The HMAC key is the whole string. */
export function newSigningSecret(): string {
  return newSecret('whsec_');
}

/**
 * The secrets signing an app's webhook now, newest first: the current one, then a replaced one
 * for its last 24 hours (the console shows them; every delivery signs with each).
 */
export function appSigningSecrets(db: Db, appId: string, now: Date) {
  return db
    .selectFrom('app_webhook_secrets')
    .select(['secret', 'created_at', 'expires_at'])
    .where('app_id', '=', appId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}
