import type { Ctx } from '../shared/context.ts';
import { InvalidGrant } from './oauth-errors.ts';

export interface ActiveConnection {
  id: string;
  scopes: string[];
  tenant: { id: string; name: string; slug: string };
}

/*
 * The connection a grant is for (spec: Connection and tokens, Refresh with rotation):
 * - ended (DELETE /connection) → invalid_grant: a new consent is needed.
 * Returns its scopes now and its restaurant, for the token response.
 */
export async function checkConnectionActive(
  ctx: Ctx,
  tenantId: string,
  connectionId: string,
): Promise<ActiveConnection> {
  const row = await ctx.db
    .selectFrom('connections as c')
    .innerJoin('restaurants as r', 'r.id', 'c.tenant_id')
    .select(['c.scopes', 'c.ended_at', 'r.name', 'r.slug'])
    .where('c.tenant_id', '=', tenantId)
    .where('c.id', '=', connectionId)
    .executeTakeFirstOrThrow();
  if (row.ended_at)
    throw new InvalidGrant('The connection was ended; the restaurant must connect the app again.');
  return { id: connectionId, scopes: row.scopes, tenant: { id: tenantId, name: row.name, slug: row.slug } };
}
