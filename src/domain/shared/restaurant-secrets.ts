import { randomBytes } from 'node:crypto';

/*
 * Tokens and codes that name their restaurant (docs/scale-out.md): the prefix (`svc_at_`,
 * `svc_rt_`, `svc_ac_`), the restaurant's id (its 16 bytes, base64url: 22 characters) and 32
 * random bytes (43 characters). A lookup then names the restaurant beside the hash, so on Citus it
 * runs on the restaurant's node alone. The id is under the hash: a value with another
 * restaurant's id put in finds nothing. Those issued before (the prefix and 43 characters) name
 * none and are looked up by their hash alone until they expire or are used.
 */

const idLength = 22;
const randomLength = 43;

/** A new secret naming its restaurant. */
export function newRestaurantSecret(prefix: string, tenantId: string): string {
  const id = Buffer.from(tenantId.replaceAll('-', ''), 'hex').toString('base64url');
  return `${prefix}${id}${randomBytes(32).toString('base64url')}`;
}

/** The form of a secret with this prefix: naming its restaurant, or of the older form. */
export function restaurantSecretPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix}(?:[A-Za-z0-9_-]{${idLength}})?[A-Za-z0-9_-]{${randomLength}}$`);
}

/** The restaurant a secret of the pattern's form names; null for the older form. */
export function restaurantOfSecret(prefix: string, secret: string): string | null {
  if (secret.length !== prefix.length + idLength + randomLength) return null;
  const hex = Buffer.from(secret.slice(prefix.length, prefix.length + idLength), 'base64url').toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
