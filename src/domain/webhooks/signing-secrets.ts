import { newSecret } from '../ids.ts';

/** How long a replaced signing secret keeps signing (spec: Limits, old signing secret 24 h). */
export const replacedSigningSecretValidMs = 24 * 60 * 60 * 1000;

/** A new signing secret: `whsec_` and 32 random bytes (base64url). The HMAC key is the whole string. */
export function newSigningSecret(): string {
  return newSecret('whsec_');
}
