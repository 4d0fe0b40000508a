import type { Transaction } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { DB } from '../../db/schema.ts';
import { ApiError } from './errors.ts';

/** A write found the row it changes locked by another one under way (PostgreSQL 55P03). */
export class WriteCollision extends Error {
  constructor() {
    super('another change of the same object is under way');
    this.name = 'WriteCollision';
  }
}

/** Runs a row lock taken with NOWAIT; a lock held by another write is a WriteCollision. */
export async function lockOrCollide<T>(lock: Promise<T>): Promise<T> {
  try {
    return await lock;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') throw new WriteCollision();
    throw error;
  }
}

/**
 * The database ended the transaction to let another one go on: a deadlock it broke (40P01; on
 * Citus also one across nodes, such as two restaurants made at once meeting on the reference
 * tables) or a serialization failure (40001). Nothing of it was kept; run again, it succeeds.
 */
function brokenByDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/** Collisions in a row before giving up (spec: PATCH /store). */
const maxCollisions = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/*
 * One write in one transaction. When it collides with another change of the same object (a
 * WriteCollision), or the database broke a deadlock with it, the transaction is rolled back and
 * run again after a short, growing, jittered wait; after three collisions in a row the answer is
 * 409 `conflict` with `Retry-After`.
 */
export async function writeTransaction<T>(db: Db, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  for (let collisions = 0; ; ) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (!(error instanceof WriteCollision) && !brokenByDatabase(error)) throw error;
      collisions += 1;
      if (collisions >= maxCollisions)
        throw new ApiError(
          'conflict',
          'Another change of the same object kept colliding with this one. Try again.',
          {
            headers: { 'retry-after': '1' },
          },
        );
      await sleep(20 * 2 ** collisions * (0.5 + Math.random()));
    }
  }
}
