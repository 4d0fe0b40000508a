import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/** How hard a new password hash is to compute (PASSWORD_HASH_COST, src/config.ts). */
export type PasswordHashCost = 'standard' | 'minimum';

/*
 * scrypt (Node's built-in, memory-hard). The standard cost is the one OWASP recommends, N=2^17,
 * r=8, p=1: about 0.7 s of CPU (2 CPUs, idle) and 128 MiB per hash. The minimum cost, N=2^10, is
 * for tests only (the configuration refuses it in production mode): they create and sign in to
 * accounts by the thousand. A stored hash names its own parameters, so verifying follows the
 * cost it was made with.
 */
const costs: Readonly<Record<PasswordHashCost, { N: number; r: number; p: number }>> = {
  standard: { N: 2 ** 17, r: 8, p: 1 },
  minimum: { N: 2 ** 10, r: 8, p: 1 },
};
const maxmem = 256 * 1024 * 1024;
const keyLength = 32;

let cost = costs.standard;

/** Sets the cost of the hashes this process makes from now on (each process sets it at start). */
export function setPasswordHashCost(kind: PasswordHashCost): void {
  cost = costs[kind];
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password.normalize('NFKC'), salt, keyLength, { ...cost, maxmem });
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scryptAsync(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem,
  });
  return timingSafeEqual(actual, expected);
}
