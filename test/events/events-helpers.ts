import { randomBytes } from 'node:crypto';
import { createApp, setAppStatus } from '../../src/domain/apps/apps.service.ts';
import { issueAccessToken } from '../../src/domain/connections/access-tokens.ts';
import { consentToApp } from '../../src/domain/connections/connections.service.ts';
import { type EventType, recordEvent } from '../../src/domain/events/events.store.ts';
import { eventId, stampEventPositions } from '../../src/domain/events/positions.ts';
import type { Ctx } from '../../src/domain/shared/context.ts';
import { scopes as allScopes, type Scope } from '../../src/domain/shared/scopes.ts';
import { bearer, type Tenant, type TestApp } from '../harness.ts';

/** Records one restaurant event (not app.*) the way domain code does, in its own transaction. */
export async function record(
  t: TestApp,
  tenant: Tenant,
  type: EventType,
  data: Record<string, unknown> = {
    object: { object: type.split('.')[0], id: randomBytes(4).toString('hex') },
  },
  options: { connectionId?: string | null; livemode?: boolean } = {},
): Promise<string> {
  return t.database.db.transaction().execute((trx) =>
    recordEvent(
      { ...t.ctx, db: trx },
      {
        tenantId: tenant.restaurantId,
        type,
        connectionId: options.connectionId ?? null,
        livemode: options.livemode ?? true,
        data: data as { object: unknown },
      },
    ),
  );
}

/** A second app connected to the same restaurant: another connection, with its own token. */
export async function connectAnotherApp(
  ctx: Ctx,
  tenant: Tenant,
  scopes: readonly Scope[] = allScopes,
): Promise<Tenant> {
  const first = await ctx.db
    .selectFrom('apps')
    .select('developer_id')
    .where('id', '=', tenant.appId)
    .executeTakeFirstOrThrow();
  const { app } = await createApp(ctx, {
    developerId: first.developer_id,
    name: `Other app ${randomBytes(3).toString('hex')}`,
    type: 'confidential',
    redirectUris: ['https://other.example.test/callback'],
    scopes: allScopes,
  });
  await setAppStatus(ctx, app.clientId, 'approved');
  const { connectionId } = await consentToApp(ctx, { tenantId: tenant.restaurantId, appId: app.id, scopes });
  const { token } = await issueAccessToken(ctx, { tenantId: tenant.restaurantId, connectionId, scopes });
  return { ...tenant, appId: app.id, clientId: app.clientId, connectionId, token };
}

/** GET /v1/events with a query string, as raw response. */
export function fetchEvents(t: TestApp, token: string, query = '') {
  return t.app.inject({ method: 'GET', url: `/v1/events${query}`, headers: bearer(token) });
}

export interface FeedPage {
  object: string;
  data: Array<
    { id: string; type: string; data: { object: Record<string, unknown> } } & Record<string, unknown>
  >;
  has_more: boolean;
  next_after: string;
  gap: boolean;
}

export async function feed(t: TestApp, token: string, query = ''): Promise<FeedPage> {
  const res = await fetchEvents(t, token, query);
  if (res.statusCode !== 200) throw new Error(`GET /v1/events${query}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Every event a connection can fetch, following next_after page by page. */
export async function feedAll(t: TestApp, token: string, query = ''): Promise<FeedPage['data']> {
  const all: FeedPage['data'] = [];
  let after = '';
  for (;;) {
    const page = await feed(t, token, `?limit=100${query}${after}`);
    all.push(...page.data);
    if (!page.has_more) return all;
    after = `&after=${page.next_after}`;
  }
}

/** The id a connection sees an event under (the outbox row id → its position, stamped now). */
export async function idFor(t: TestApp, tenant: Tenant, outboxId: string): Promise<string> {
  await stampEventPositions(t.database.db, tenant.restaurantId);
  const row = await t.database.db
    .selectFrom('events')
    .select('position')
    .where('tenant_id', '=', tenant.restaurantId)
    .where('id', '=', outboxId)
    .executeTakeFirstOrThrow();
  if (row.position === null) throw new Error('event not stamped');
  return eventId(row.position, tenant.connectionId);
}
