import type { Ctx } from '../shared/context.ts';
import { newId, sha256 } from '../shared/ids.ts';
import { newRestaurantSecret, restaurantSecretPattern } from '../shared/restaurant-secrets.ts';
import type { Scope } from '../shared/scopes.ts';

/** A refresh token lives 180 days from its issue, which is the last use of its family. */
export const refreshTokenLifetimeSeconds = 180 * 24 * 3600;
export const refreshTokenPattern = restaurantSecretPattern('svc_rt_');

/** Issues a refresh token of a family; the token is returned once and stored hashed. */
export async function issueRefreshToken(
  ctx: Ctx,
  input: {
    tenantId: string;
    familyId: string;
    connectionId: string;
    appId: string;
    scopes: readonly Scope[];
  },
): Promise<{ id: string; token: string }> {
  const token = newRestaurantSecret('svc_rt_', input.tenantId);
  const id = newId();
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('refresh_tokens')
    .values({
      tenant_id: input.tenantId,
      id,
      token_hash: sha256(token),
      family_id: input.familyId,
      connection_id: input.connectionId,
      app_id: input.appId,
      scopes: [...input.scopes],
      created_at: now,
      expires_at: new Date(now.getTime() + refreshTokenLifetimeSeconds * 1000),
    })
    .execute();
  return { id, token };
}
