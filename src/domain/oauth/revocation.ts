import { accessTokenPattern } from '../connections/access-tokens.ts';
import type { Ctx } from '../shared/context.ts';
import { sha256 } from '../shared/ids.ts';
import { restaurantOfSecret } from '../shared/restaurant-secrets.ts';
import type { Client } from './client-authentication.ts';
import { refreshTokenPattern } from './refresh-tokens.ts';
import { lockFamily, revokeFamily } from './token-families.ts';

/*
 * Token revocation (spec: Revocation), of the authenticated client's own tokens, the kind told by
 * the token's form:
 * - a refresh token (svc_rt_…) → its whole family, refresh and access tokens;
 * - an access token (svc_at_…) → that token only;
 * - anything else, unknown, another client's or already revoked → nothing changes.
 * The connection remains. The caller answers 200 in every case. A token naming its restaurant is
 * looked up in it (on Citus, on its node); one of the older form by its hash alone.
 */
export async function revokeToken(ctx: Ctx, client: Client, token: string): Promise<void> {
  const hash = sha256(token);
  if (refreshTokenPattern.test(token)) {
    const named = restaurantOfSecret('svc_rt_', token);
    const found = await ctx.db
      .selectFrom('refresh_tokens')
      .select(['tenant_id', 'family_id', 'app_id'])
      .$if(named !== null, (query) => query.where('tenant_id', '=', named as string))
      .where('token_hash', '=', hash)
      .executeTakeFirst();
    if (!found || found.app_id !== client.appId) return;
    await lockFamily(ctx, found.tenant_id, found.family_id);
    await revokeFamily(ctx, found.tenant_id, found.family_id);
  } else if (accessTokenPattern.test(token)) {
    const named = restaurantOfSecret('svc_at_', token);
    const found = await ctx.db
      .selectFrom('access_tokens as t')
      .innerJoin('connections as c', (join) =>
        join.onRef('c.tenant_id', '=', 't.tenant_id').onRef('c.id', '=', 't.connection_id'),
      )
      .select(['t.tenant_id', 't.id', 'c.app_id'])
      .$if(named !== null, (query) => query.where('t.tenant_id', '=', named as string))
      .where('t.token_hash', '=', hash)
      .executeTakeFirst();
    if (!found || found.app_id !== client.appId) return;
    await ctx.db
      .updateTable('access_tokens')
      .set({ revoked_at: ctx.clock.now() })
      .where('tenant_id', '=', found.tenant_id)
      .where('id', '=', found.id)
      .where('revoked_at', 'is', null)
      .execute();
  }
}
