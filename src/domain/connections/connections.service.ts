import type { Ctx } from '../context.ts';
import { ApiError, InputError } from '../errors.ts';
import { newId } from '../ids.ts';
import { isScope, type Scope } from '../scopes.ts';
import type { ConnectionRevoked } from './connection.schema.ts';

/**
 * Connects an app to a restaurant with the given scopes (the owner's consent; the OAuth flow
 * calls this). The scopes must be among the app's.
 */
export async function createConnection(
  ctx: Ctx,
  input: { tenantId: string; appId: string; scopes: readonly string[] },
): Promise<{ id: string; scopes: Scope[] }> {
  const app = await ctx.db
    .selectFrom('apps')
    .select('scopes')
    .where('id', '=', input.appId)
    .executeTakeFirst();
  if (!app) throw new InputError(`no app ${input.appId}`);
  for (const scope of input.scopes) {
    if (!isScope(scope) || !app.scopes.includes(scope))
      throw new InputError(`scope "${scope}" is not allowed for this app`);
  }
  const connection = { id: newId(), scopes: [...new Set(input.scopes)] as Scope[] };
  await ctx.db
    .insertInto('connections')
    .values({
      tenant_id: input.tenantId,
      id: connection.id,
      app_id: input.appId,
      scopes: connection.scopes,
      created_at: ctx.clock.now(),
    })
    .execute();
  return connection;
}

/** Ends the calling app's connection: every token of it is revoked, the caller's too. */
export async function endConnection(ctx: Ctx): Promise<ConnectionRevoked> {
  if (ctx.actor.kind !== 'connection' || !ctx.tenantId)
    throw new Error('endConnection needs a connection actor');
  const now = ctx.clock.now();
  const ended = await ctx.db
    .updateTable('connections')
    .set({ ended_at: now })
    .where('tenant_id', '=', ctx.tenantId)
    .where('id', '=', ctx.actor.connectionId)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  if (ended.numUpdatedRows === 0n) throw new ApiError('unauthorized', 'The connection was ended.');
  await ctx.db
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('tenant_id', '=', ctx.tenantId)
    .where('connection_id', '=', ctx.actor.connectionId)
    .where('revoked_at', 'is', null)
    .execute();
  return { object: 'connection', id: ctx.actor.connectionId, revoked: true };
}
