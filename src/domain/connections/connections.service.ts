import { emailOwners } from '../email/email-outbox.ts';
import { recordEvent } from '../events/events.store.ts';
import type { Ctx } from '../shared/context.ts';
import { ApiError, InputError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { isScope, type Scope } from '../shared/scopes.ts';
import { type Connection, type ConnectionRevoked, toConnection } from './connection.schema.ts';

/** The Connection resource of a connection with all its scopes (`data.object` of app.* events). */
export async function loadConnection(ctx: Ctx, tenantId: string, connectionId: string): Promise<Connection> {
  const row = await ctx.db
    .selectFrom('connections as c')
    .innerJoin('apps as a', 'a.id', 'c.app_id')
    .innerJoin('restaurants as r', 'r.id', 'c.tenant_id')
    .select([
      'c.id as connection_id',
      'c.tenant_id',
      'c.scopes',
      'c.created_at as connected_at',
      'a.client_id',
      'a.name as app_name',
      'r.name',
      'r.slug',
      'r.timezone',
      'r.currency',
      'r.country',
      'r.plan',
      'r.livemode',
    ])
    .where('c.tenant_id', '=', tenantId)
    .where('c.id', '=', connectionId)
    .executeTakeFirstOrThrow();
  return toConnection({ ...row, scopes: row.scopes as Scope[] });
}

/**
 * The owner's consent (spec: Connection and tokens):
 * - no active connection of the app to the restaurant → one is created (`app.connected`), the
 *   owners are e-mailed;
 * - an active one → its scopes are replaced, more or fewer (`app.scopes_changed` with
 *   `previous_scopes` when they differ); the owners are e-mailed when scopes were added.
 * The scopes must be among the app's. A test restaurant sends no e-mail.
 */
export async function consentToApp(
  ctx: Ctx,
  input: { tenantId: string; appId: string; scopes: readonly string[] },
): Promise<{ connectionId: string; scopes: Scope[]; created: boolean }> {
  const app = await ctx.db
    .selectFrom('apps')
    .select(['scopes', 'name'])
    .where('id', '=', input.appId)
    .executeTakeFirst();
  if (!app) throw new InputError(`no app ${input.appId}`);
  for (const scope of input.scopes) {
    if (!isScope(scope) || !app.scopes.includes(scope))
      throw new InputError(`scope "${scope}" is not allowed for this app`);
  }
  const scopes = [...new Set(input.scopes)] as Scope[];
  const restaurant = await ctx.db
    .selectFrom('restaurants')
    .select(['livemode', 'name'])
    .where('id', '=', input.tenantId)
    .executeTakeFirstOrThrow();

  const inserted = await ctx.db
    .insertInto('connections')
    .values({
      tenant_id: input.tenantId,
      id: newId(),
      app_id: input.appId,
      scopes,
      created_at: ctx.clock.now(),
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'app_id']).where('ended_at', 'is', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) {
    const object = await loadConnection(ctx, input.tenantId, inserted.id);
    await recordEvent(ctx, {
      tenantId: input.tenantId,
      type: 'app.connected',
      connectionId: inserted.id,
      livemode: restaurant.livemode,
      data: { object },
    });
    if (restaurant.livemode) {
      await emailOwners(ctx, input.tenantId, {
        template: 'appConnected',
        params: { app: app.name, restaurant: restaurant.name, scopes },
      });
    }
    return { connectionId: inserted.id, scopes, created: true };
  }

  const current = await ctx.db
    .selectFrom('connections')
    .select(['id', 'scopes'])
    .where('tenant_id', '=', input.tenantId)
    .where('app_id', '=', input.appId)
    .where('ended_at', 'is', null)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const previous = current.scopes as Scope[];
  const same = previous.length === scopes.length && previous.every((scope) => scopes.includes(scope));
  if (!same) {
    await ctx.db
      .updateTable('connections')
      .set({ scopes })
      .where('tenant_id', '=', input.tenantId)
      .where('id', '=', current.id)
      .execute();
    const object = await loadConnection(ctx, input.tenantId, current.id);
    await recordEvent(ctx, {
      tenantId: input.tenantId,
      type: 'app.scopes_changed',
      connectionId: current.id,
      livemode: restaurant.livemode,
      data: { object, previous_scopes: previous },
    });
    const added = scopes.filter((scope) => !previous.includes(scope));
    if (added.length > 0 && restaurant.livemode) {
      await emailOwners(ctx, input.tenantId, {
        template: 'appScopesAdded',
        params: { app: app.name, restaurant: restaurant.name, scopes: added },
      });
    }
  }
  return { connectionId: current.id, scopes, created: false };
}

/** Ends the calling app's connection: every token of it is revoked, the caller's too. */
export async function endConnection(ctx: Ctx): Promise<ConnectionRevoked> {
  if (ctx.actor.kind !== 'connection' || !ctx.tenantId)
    throw new Error('endConnection needs a connection actor');
  const ended = await endActiveConnection(ctx, ctx.tenantId, ctx.actor.connectionId, 'app');
  if (!ended) throw new ApiError('unauthorized', 'The connection was ended.');
  return { object: 'connection', id: ctx.actor.connectionId, revoked: true };
}

/*
 * Ends an active connection of the restaurant, by the app (`DELETE /connection`) or by the
 * restaurant (its owner in the dashboard), the same way: every access token of it is revoked at
 * once (its refresh tokens die with the connection), `app.disconnected` is recorded with who ended
 * it as `reason`, the owners of a live restaurant are e-mailed. False if it was not active.
 */
export async function endActiveConnection(
  ctx: Ctx,
  tenantId: string,
  connectionId: string,
  reason: 'app' | 'restaurant',
): Promise<boolean> {
  const now = ctx.clock.now();
  const ended = await ctx.db
    .updateTable('connections')
    .set({ ended_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', connectionId)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  if (ended.numUpdatedRows === 0n) return false;
  const object = await loadConnection(ctx, tenantId, connectionId);
  await recordEvent(ctx, {
    tenantId,
    type: 'app.disconnected',
    connectionId,
    livemode: object.livemode,
    data: { object, reason },
  });
  if (object.livemode) {
    await emailOwners(ctx, tenantId, {
      template: 'appDisconnected',
      params: { app: object.app.name, restaurant: object.tenant.name },
    });
  }
  await ctx.db
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('tenant_id', '=', tenantId)
    .where('connection_id', '=', connectionId)
    .where('revoked_at', 'is', null)
    .execute();
  return true;
}
