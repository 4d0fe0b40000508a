import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { DB } from '../../db/schema.ts';
import { ApiError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';

/*
 * Idempotency keys (spec: Limits, Idempotency), state in the database so it holds across processes:
 * - a key is kept 24 hours per connection; after that it may be used afresh;
 * - a replay returns the first response;
 * - the same key with another method, path or body → 422 idempotency_key_reused;
 * - while the first request runs → 409 idempotency_in_progress;
 * - a first request that never finished frees the key after 2 minutes;
 * - answers that ask for a retry (5xx, 409 conflict) are not kept.
 */
export const keyLifetimeMs = 24 * 60 * 60 * 1000;
export const abandonedAfterMs = 2 * 60 * 1000;

export interface IdempotentRequest {
  tenantId: string;
  connectionId: string;
  key: string;
  method: string;
  path: string;
  bodyHash: string;
}

export type Claim =
  | { state: 'claimed'; lockId: string }
  | { state: 'replay'; statusCode: number; body: string };

/** Takes the key for this request (its lock `lockId`), or says what to answer instead. */
export async function claimKey(
  db: Db,
  request: IdempotentRequest,
  now: Date,
  lockId: string = newId(),
): Promise<Claim> {
  // The key's columns apart: an update never sets them (Citus refuses one that sets tenant_id).
  const keyColumns = { tenant_id: request.tenantId, connection_id: request.connectionId, key: request.key };
  const fresh = {
    method: request.method,
    path: request.path,
    body_hash: request.bodyHash,
    lock_id: lockId,
    locked_at: now,
    created_at: now,
  };
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({ ...keyColumns, ...fresh })
    .onConflict((oc) => oc.doNothing())
    .returning('key')
    .executeTakeFirst();
  if (inserted) return { state: 'claimed', lockId };

  const existing = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('tenant_id', '=', request.tenantId)
    .where('connection_id', '=', request.connectionId)
    .where('key', '=', request.key)
    .executeTakeFirst();
  // Gone in between (finished with a retry-requesting answer): claim it anew.
  if (!existing) return claimKey(db, request, now, lockId);

  const expired = existing.created_at.getTime() <= now.getTime() - keyLifetimeMs;
  const abandoned =
    existing.completed_at === null && existing.locked_at.getTime() <= now.getTime() - abandonedAfterMs;
  if (expired || abandoned) {
    // Compare-and-set on the lock so that of two takers only one wins.
    const taken = await db
      .updateTable('idempotency_keys')
      .set(
        expired
          ? { ...fresh, status_code: null, response_body: null, completed_at: null }
          : { lock_id: lockId, locked_at: now },
      )
      .where('tenant_id', '=', request.tenantId)
      .where('connection_id', '=', request.connectionId)
      .where('key', '=', request.key)
      .where('lock_id', '=', existing.lock_id)
      .returning('key')
      .executeTakeFirst();
    if (taken && expired) return { state: 'claimed', lockId };
    if (taken) return sameRequest(existing, request) ? { state: 'claimed', lockId } : reused();
    return claimKey(db, request, now, lockId);
  }
  if (!sameRequest(existing, request)) reused();
  if (existing.completed_at === null || existing.status_code === null || existing.response_body === null) {
    throw new ApiError(
      'idempotency_in_progress',
      'A request with this Idempotency-Key is still being processed; retry shortly.',
    );
  }
  return { state: 'replay', statusCode: existing.status_code, body: existing.response_body };
}

function sameRequest(
  row: { method: string; path: string; body_hash: string },
  request: IdempotentRequest,
): boolean {
  return row.method === request.method && row.path === request.path && row.body_hash === request.bodyHash;
}

function reused(): never {
  throw new ApiError(
    'idempotency_key_reused',
    'This Idempotency-Key was used with another method, path or body; use a new key for each operation.',
  );
}

/** Records the answer for replays, or frees the key when the answer asks for a retry. */
export async function settleKey(
  db: Db,
  request: IdempotentRequest,
  lockId: string,
  answer: { statusCode: number; body: string; errorCode: string | null },
  now: Date,
): Promise<void> {
  // Only the request holding the lock settles the key (a taken-over one no longer does).
  const mine = (eb: ExpressionBuilder<DB, 'idempotency_keys'>) =>
    eb.and({
      tenant_id: request.tenantId,
      connection_id: request.connectionId,
      key: request.key,
      lock_id: lockId,
    });
  if (answer.statusCode >= 500 || answer.errorCode === 'conflict') return freeKey(db, request, lockId);
  await db
    .updateTable('idempotency_keys')
    .set({ status_code: answer.statusCode, response_body: answer.body, completed_at: now })
    .where(mine)
    .execute();
}

/**
 * Frees the key held with `lockId` for another try, unless its answer is recorded: a commit
 * whose acknowledgement was lost did take effect, and its key must replay it.
 */
export async function freeKey(db: Db, request: IdempotentRequest, lockId: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('tenant_id', '=', request.tenantId)
    .where('connection_id', '=', request.connectionId)
    .where('key', '=', request.key)
    .where('lock_id', '=', lockId)
    .where('completed_at', 'is', null)
    .execute();
}

/** Drops keys past their 24 hours (a worker job). */
export async function purgeExpiredKeys(db: Db, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', new Date(now.getTime() - keyLifetimeMs))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
