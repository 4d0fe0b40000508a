import DataLoader from 'dataloader';
import { CompiledQuery, type InferResult, sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { perRestaurant } from '../../db/restaurant-batches.ts';
import type { Ctx } from '../shared/context.ts';
import { newId, sha256 } from '../shared/ids.ts';
import {
  newRestaurantSecret,
  restaurantOfSecret,
  restaurantSecretPattern,
} from '../shared/restaurant-secrets.ts';
import type { Plan, Scope } from '../shared/scopes.ts';
import { type Connection, toConnection } from './connection.schema.ts';

export const accessTokenLifetimeSeconds = 3600;
export const accessTokenPattern = restaurantSecretPattern('svc_at_');

/**
 * Issues an access token for a connection; the token itself is returned once and stored hashed.
 * One issued at the token endpoint names its family and the refresh token issued with it.
 */
export async function issueAccessToken(
  ctx: Ctx,
  input: {
    tenantId: string;
    connectionId: string;
    scopes: readonly Scope[];
    familyId?: string;
    refreshTokenId?: string;
  },
): Promise<{ token: string; expiresAt: Date }> {
  const token = newRestaurantSecret('svc_at_', input.tenantId);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + accessTokenLifetimeSeconds * 1000);
  await ctx.db
    .insertInto('access_tokens')
    .values({
      tenant_id: input.tenantId,
      id: newId(),
      token_hash: sha256(token),
      connection_id: input.connectionId,
      scopes: [...input.scopes],
      created_at: now,
      expires_at: expiresAt,
      family_id: input.familyId ?? null,
      refresh_token_id: input.refreshTokenId ?? null,
    })
    .execute();
  return { token, expiresAt };
}

export interface ApiAuth {
  tenantId: string;
  connectionId: string;
  /** The connection's app. */
  appId: string;
  /** The token's scopes (a narrowed token may have fewer than its connection). */
  scopes: readonly Scope[];
  plan: Plan;
  subscriptionActive: boolean;
  connection: Connection;
}

/**
 * What a bearer token is worth:
 * - `valid`: a live token of an active connection of an app that is not suspended;
 * - `invalid`: a token we issued that is expired or revoked, of an ended connection or a
 *   suspended app (never counted against the caller's address);
 * - `unknown`: malformed or never issued.
 */
export type TokenCheck =
  | { status: 'valid'; auth: ApiAuth }
  | { status: 'invalid'; reason: string }
  | { status: 'unknown' };

/**
 * The token lookup: one query joining tokens, their connections, apps and restaurants. Tokens
 * naming their restaurant are looked up in it (on Citus, on the restaurants' nodes alone); those
 * of the older form by hash alone (every shard).
 */
function tokenLookup(db: Db, hashes: readonly string[], tenantId: string | null) {
  return db
    .selectFrom('access_tokens as t')
    .innerJoin('connections as c', (join) =>
      join.onRef('c.tenant_id', '=', 't.tenant_id').onRef('c.id', '=', 't.connection_id'),
    )
    .innerJoin('apps as a', 'a.id', 'c.app_id')
    .innerJoin('restaurants as r', 'r.id', 't.tenant_id')
    .select([
      't.token_hash',
      't.tenant_id',
      't.connection_id',
      'c.app_id',
      't.scopes',
      't.expires_at',
      't.revoked_at',
      'c.created_at as connected_at',
      'c.ended_at',
      'a.client_id',
      'a.name as app_name',
      'a.status as app_status',
      'r.name',
      'r.slug',
      'r.timezone',
      'r.currency',
      'r.country',
      'r.plan',
      'r.livemode',
      'r.subscription_active',
    ])
    .where('t.token_hash', '=', sql<string>`any(${hashes})`)
    .$if(tenantId !== null, (query) => query.where('t.tenant_id', '=', tenantId as string));
}

/** A token to look up: its hash, and its restaurant when it names it. */
interface TokenKey {
  hash: string;
  tenantId: string | null;
}

type TokenRow = InferResult<ReturnType<typeof tokenLookup>>[number];

/*
 * The lookup runs on every API request, so it is made cheap in two ways:
 * - the tokens of requests that arrive together are looked up in one query per restaurant
 *   (DataLoader batches the calls of one tick, perRestaurant splits them; it caches nothing, so
 *   every request sees the tokens as they are now);
 * - the query is built and compiled with Kysely once per database (that costs about as much as
 *   running it), then run with each batch's hashes.
 */
const tokenLoaders = new WeakMap<Db, DataLoader<TokenKey, TokenRow | undefined>>();

function tokenLoader(db: Db): DataLoader<TokenKey, TokenRow | undefined> {
  let loader = tokenLoaders.get(db);
  if (!loader) {
    const inRestaurant = tokenLookup(db, [], '').compile().sql;
    const byHashAlone = tokenLookup(db, [], null).compile().sql;
    loader = new DataLoader(
      (all) =>
        perRestaurant(
          all,
          (key) => key.tenantId,
          async (keys, tenantId) => {
            const hashes = keys.map((key) => key.hash);
            const query =
              tenantId === null
                ? CompiledQuery.raw(byHashAlone, [hashes])
                : CompiledQuery.raw(inRestaurant, [hashes, tenantId]);
            const { rows } = await db.executeQuery<TokenRow>(query);
            const byHash = new Map(rows.map((row) => [row.token_hash, row]));
            return keys.map((key) => byHash.get(key.hash));
          },
        ),
      // Requests that arrive in one pass of the event loop over its sockets are looked up together.
      { cache: false, maxBatchSize: 100, batchScheduleFn: (run) => setImmediate(run) },
    );
    tokenLoaders.set(db, loader);
  }
  return loader;
}

export async function checkAccessToken(db: Db, token: string, now: Date): Promise<TokenCheck> {
  if (!accessTokenPattern.test(token)) return { status: 'unknown' };
  const row = await tokenLoader(db).load({
    hash: sha256(token),
    tenantId: restaurantOfSecret('svc_at_', token),
  });
  if (!row) return { status: 'unknown' };
  if (row.revoked_at) return { status: 'invalid', reason: 'The access token was revoked.' };
  if (row.expires_at <= now) return { status: 'invalid', reason: 'The access token expired.' };
  if (row.ended_at) return { status: 'invalid', reason: 'The connection was ended.' };
  if (row.app_status === 'suspended') return { status: 'invalid', reason: 'The app is suspended.' };
  const scopes = row.scopes as Scope[];
  return {
    status: 'valid',
    auth: {
      tenantId: row.tenant_id,
      connectionId: row.connection_id,
      appId: row.app_id,
      scopes,
      plan: row.plan,
      subscriptionActive: row.subscription_active,
      connection: toConnection({ ...row, scopes }),
    },
  };
}
