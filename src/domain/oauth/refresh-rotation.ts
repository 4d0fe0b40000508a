import { sql } from 'kysely';
import { accessTokenLifetimeSeconds } from '../connections/access-tokens.ts';
import type { Ctx } from '../shared/context.ts';
import { newId, sha256 } from '../shared/ids.ts';
import { newRestaurantSecret } from '../shared/restaurant-secrets.ts';
import { scopes as allScopes } from '../shared/scopes.ts';
import type { Client } from './client-authentication.ts';
import { refreshTokenLifetimeSeconds } from './refresh-tokens.ts';
import type { TokenResponse } from './token-response.schema.ts';

/** A refresh request: the token's restaurant and hash, and the `scope` sent. */
export interface RefreshRequest {
  tenantId: string;
  hash: string;
  scope: string | undefined;
}

/*
 * The common refresh, an unused refresh token rotated, in one statement (one round trip, a
 * transaction of its own). Under the family's lock (token-families.ts) it uses the token up and
 * issues the new pair, as refresh-token-grant.ts does, but only when the grant has nothing else
 * to decide:
 * - the token is the client's, not revoked, not expired and not used;
 * - its connection is active;
 * - `scope`, if sent, is among the token's and the connection's scopes.
 * Otherwise it changes nothing and returns null, and the grant decides check by check under the
 * lock (every reuse, the grace rule included, goes that way).
 * The lock is taken before the token is used up: when a revocation or a retry under the grace
 * rule held it first, the update sees the token as they left it (PostgreSQL re-reads a row changed
 * since the statement began) and finds nothing to rotate.
 */
export async function rotateUnusedRefreshToken(
  ctx: Ctx,
  client: Client,
  request: RefreshRequest,
): Promise<TokenResponse | null> {
  const now = ctx.clock.now();
  const { tenantId, hash } = request;
  const requested = request.scope === undefined ? null : request.scope.split(' ');
  const refreshToken = newRestaurantSecret('svc_rt_', tenantId);
  const refreshId = newId();
  const accessToken = newRestaurantSecret('svc_at_', tenantId);
  const { rows } = await sql<{
    tenant_id: string;
    connection_id: string;
    access_scopes: string[];
    name: string;
    slug: string;
  }>`
    WITH family AS (
      SELECT f.tenant_id, f.id FROM authorization_codes f
      JOIN refresh_tokens t ON t.tenant_id = f.tenant_id AND t.family_id = f.id
      WHERE f.tenant_id = ${tenantId} AND t.token_hash = ${hash}
      FOR UPDATE OF f
    ), used AS (
      UPDATE refresh_tokens t SET used_at = ${now}, replaced_by = ${refreshId}
      FROM family f, connections c
      WHERE t.tenant_id = ${tenantId} AND t.token_hash = ${hash} AND t.tenant_id = f.tenant_id AND t.family_id = f.id
        AND t.app_id = ${client.appId} AND t.used_at IS NULL AND t.revoked_at IS NULL
        AND t.expires_at > ${now}
        AND c.tenant_id = t.tenant_id AND c.id = t.connection_id AND c.ended_at IS NULL
        AND (${requested}::text[] IS NULL OR (${requested}::text[] <@ t.scopes AND ${requested}::text[] <@ c.scopes))
      RETURNING t.tenant_id, t.family_id, t.connection_id, t.scopes,
        -- the access token's scopes: the token's that the connection still has, narrowed by
        -- scope, in the order of the scope list (token-scopes.ts)
        ARRAY(SELECT s FROM unnest(${[...allScopes]}::text[]) WITH ORDINALITY AS a(s, n)
          WHERE s = ANY(t.scopes) AND s = ANY(c.scopes)
            AND (${requested}::text[] IS NULL OR s = ANY(${requested}::text[]))
          ORDER BY n) AS access_scopes
    ), new_refresh AS (
      INSERT INTO refresh_tokens
        (tenant_id, id, token_hash, family_id, connection_id, app_id, scopes, created_at, expires_at)
      SELECT tenant_id, ${refreshId}, ${sha256(refreshToken)}, family_id, connection_id, ${client.appId},
        scopes, ${now}, ${new Date(now.getTime() + refreshTokenLifetimeSeconds * 1000)}
      FROM used
    ), new_access AS (
      INSERT INTO access_tokens
        (tenant_id, id, token_hash, connection_id, scopes, created_at, expires_at, family_id, refresh_token_id)
      SELECT tenant_id, ${newId()}, ${sha256(accessToken)}, connection_id, access_scopes, ${now},
        ${new Date(now.getTime() + accessTokenLifetimeSeconds * 1000)}, family_id, ${refreshId}
      FROM used
    )
    SELECT u.tenant_id, u.connection_id, u.access_scopes, r.name, r.slug
    FROM used u JOIN restaurants r ON r.id = u.tenant_id`.execute(ctx.db);
  const row = rows[0];
  if (!row) return null;
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: accessTokenLifetimeSeconds,
    refresh_token: refreshToken,
    scope: row.access_scopes.join(' '),
    connection_id: row.connection_id,
    tenant: { id: row.tenant_id, name: row.name, slug: row.slug },
  };
}
