import canonicalize from 'canonicalize';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../../db/availability.ts';
import type { Db } from '../../db/client.ts';
import type { ApiAuth } from '../../domain/connections/access-tokens.ts';
import {
  abandonedAfterMs,
  type Claim,
  claimKey,
  freeKey,
  type IdempotentRequest,
  settleKey,
} from '../../domain/idempotency/idempotency.store.ts';
import type { Clock } from '../../domain/shared/context.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import { newId, sha256 } from '../../domain/shared/ids.ts';

/** A POST request that holds its Idempotency-Key until its answer is recorded. */
export interface HeldKey {
  request: IdempotentRequest;
  lockId: string;
  settled: boolean;
}

/** An Idempotency-Key: 1 to 255 printable ASCII characters (the OpenAPI document states it too). */
export const idempotencyKeyPattern = /^[\x20-\x7e]{1,255}$/;

/**
 * Before a POST handler runs: takes the Idempotency-Key, or answers with the first response
 * (`Idempotent-Replayed: true`), 409 idempotency_in_progress or 422 idempotency_key_reused.
 */
export async function holdIdempotencyKey(
  db: Db,
  clock: Clock,
  auth: ApiAuth,
  request: FastifyRequest,
  reply: FastifyReply,
  keysToFree: KeysToFree,
): Promise<HeldKey | null> {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return null;
  if (typeof header !== 'string' || !idempotencyKeyPattern.test(header)) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters.', {
      param: 'Idempotency-Key',
    });
  }
  const key: IdempotentRequest = {
    tenantId: auth.tenantId,
    connectionId: auth.connectionId,
    key: header,
    method: request.method,
    path: request.url,
    // The parsed body in RFC 8785 form: key order and whitespace do not make another request.
    bodyHash: sha256(canonicalize(request.body ?? null) ?? 'null'),
  };
  const lockId = newId();
  let claim: Claim;
  try {
    claim = await claimKey(db, key, clock.now(), lockId);
  } catch (error) {
    if (isDatabaseUnavailable(error)) keysToFree.later(key, lockId);
    throw error;
  }
  if (claim.state === 'claimed') return { request: key, lockId, settled: false };
  // Awaited (a reply settles once it is sent): until then Fastify would take the answer for not
  // sent yet and run the handler, whenever an onSend hook takes a moment.
  await reply
    .code(claim.statusCode)
    .header('idempotent-replayed', 'true')
    .type('application/json; charset=utf-8')
    .send(withRequestId(claim.body, String(request.id)));
  return null;
}

/** A replayed error names the request it answers now, as every error body does. */
function withRequestId(body: string, requestId: string): string {
  const parsed = JSON.parse(body) as { error?: { request_id?: string } };
  if (!parsed.error) return body;
  parsed.error.request_id = requestId;
  return JSON.stringify(parsed);
}

/**
 * Records the answer of a request that holds a key (inside its transaction for a success). The
 * caller marks the key settled once that is committed: an answer recorded in a transaction that
 * then fails (a lost connection at COMMIT, a collision) is not, and the key is settled on the way
 * out instead (freed for a 5xx or 409 conflict), not held until the 2-minute takeover.
 */
export async function settleHeldKey(
  db: Db,
  clock: Clock,
  held: HeldKey,
  statusCode: number,
  body: string,
): Promise<void> {
  let errorCode: string | null = null;
  if (statusCode >= 400) errorCode = (JSON.parse(body) as { error?: { code?: string } }).error?.code ?? null;
  await settleKey(db, held.request, held.lockId, { statusCode, body, errorCode }, clock.now());
}

/*
 * A key whose request failed because the database was lost could not be freed then (that needs
 * the database), nor its claim known to have been written. Rather than leave it held until the
 * 2-minute takeover, so that the client's retry gets 409 idempotency_in_progress all that time,
 * it is freed once the database answers again: tried every second for as long as the takeover
 * would take.
 */
export class KeysToFree {
  readonly #pending = new Set<{ request: IdempotentRequest; lockId: string; until: number }>();
  readonly #timer: NodeJS.Timeout;

  constructor(db: Db) {
    this.#timer = setInterval(async () => {
      for (const item of this.#pending) {
        if (Date.now() > item.until) this.#pending.delete(item);
        else
          await freeKey(db, item.request, item.lockId).then(
            () => this.#pending.delete(item),
            () => {},
          );
      }
    }, 1000).unref();
  }

  later(request: IdempotentRequest, lockId: string): void {
    this.#pending.add({ request, lockId, until: Date.now() + abandonedAfterMs });
  }

  close(): void {
    clearInterval(this.#timer);
  }
}
