import { createHash, randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** A time-ordered resource id (UUIDv7). */
export function newId(): string {
  return uuidv7();
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a text is a UUID: anything else names no row (and must not reach a uuid column). */
export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}

/** A random secret with its prefix, e.g. `svc_at_…`: 32 bytes of entropy, base64url. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** How high-entropy tokens and secrets are stored: SHA-256, hex. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
