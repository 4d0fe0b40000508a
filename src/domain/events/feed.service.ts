import { type ExpressionBuilder, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Ctx } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { connectionAudience, envelopeJson, type RecordedEvent } from './envelope.ts';
import { beforeAnyEvent, eventId, eventIdPattern, positionOf, stampEventPositions } from './positions.ts';
import { retentionCutoff } from './retention.ts';
import { parseTypesFilter, type VisibleTypes, visibleTypes } from './visibility.ts';

/** Who reads: one connection of the restaurant, with its token's scopes. */
interface Viewer {
  tenantId: string;
  connectionId: string;
  scopes: readonly string[];
}

function viewerOf(ctx: Ctx): Viewer {
  if (ctx.actor.kind !== 'connection' || !ctx.tenantId)
    throw new Error('the events feed needs a connection actor');
  return { tenantId: ctx.tenantId, connectionId: ctx.actor.connectionId, scopes: ctx.actor.scopes };
}

/*
 * What one connection may see (spec: Fetching; decisions.md, Events):
 * - the restaurant's events (also from before the connection) of the types its token's read
 *   scopes allow, and app.* of its own connection except app.disconnected;
 * - only events with a feed position (committed and stamped), of the last 30 days;
 * - never test events (`data.test: true`).
 */
function visible(viewer: Viewer, types: VisibleTypes, now: Date) {
  return (eb: ExpressionBuilder<DB, 'events'>) =>
    eb.and([
      eb('events.tenant_id', '=', viewer.tenantId),
      eb('events.position', 'is not', null),
      eb('events.created_at', '>', retentionCutoff(now)),
      sql<boolean>`(events.data->>'test') IS DISTINCT FROM 'true'`,
      eb.or([
        eb('events.type', '=', sql<string>`any(${types.restaurant})`),
        eb.and([
          eb('events.type', '=', sql<string>`any(${types.ownApp})`),
          eb('events.connection_id', '=', viewer.connectionId),
        ]),
      ]),
    ]);
}

/** Visible events with their envelope for this connection, if one was built already. */
function eventsWithEnvelopes(ctx: Ctx, viewer: Viewer, types: VisibleTypes) {
  return ctx.db
    .selectFrom('events')
    .leftJoin('event_envelopes as env', (join) =>
      join
        .onRef('env.tenant_id', '=', 'events.tenant_id')
        .onRef('env.position', '=', 'events.position')
        .on('env.audience_id', '=', viewer.connectionId),
    )
    .select([
      'events.tenant_id',
      'events.position',
      'events.type',
      'events.livemode',
      'events.data',
      'events.created_at',
      'env.body',
    ])
    .where(visible(viewer, types, ctx.clock.now()));
}

/**
 * The frozen envelopes of these events for this connection: those not yet built are built and
 * stored now; a concurrent reader that stored one first wins, and both answer its text.
 */
async function envelopesOf(
  ctx: Ctx,
  viewer: Viewer,
  rows: ReadonlyArray<RecordedEvent & { body: string | null }>,
): Promise<string[]> {
  const missing = rows.filter((row) => row.body === null);
  if (missing.length === 0) return rows.map((row) => row.body as string);
  const positions = missing.map((row) => String(row.position));
  await ctx.db
    .insertInto('event_envelopes')
    .values(
      missing.map((row) => ({
        tenant_id: viewer.tenantId,
        position: String(row.position),
        audience_id: viewer.connectionId,
        body: envelopeJson(row, connectionAudience(viewer.connectionId)),
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  const stored = await ctx.db
    .selectFrom('event_envelopes')
    .select([sql<string>`position::text`.as('position'), 'body'])
    .where('tenant_id', '=', viewer.tenantId)
    .where('audience_id', '=', viewer.connectionId)
    .where('position', '=', sql<string>`any(${positions}::bigint[])`)
    .execute();
  const bodies = new Map(stored.map((row) => [row.position, row.body]));
  return rows.map((row) => row.body ?? (bodies.get(String(row.position)) as string));
}

export interface EventFeedQuery {
  after?: string;
  types?: string;
  limit: number;
}

/** A feed page: the envelopes as stored (JSON texts) and where to continue. */
export interface EventPage {
  envelopes: string[];
  has_more: boolean;
  next_after: string;
  gap: boolean;
}

/**
 * Where a page starts: the position after which it continues, and whether events were missed.
 * - no `after`: before the oldest kept event;
 * - `evt_` and zeros (the `next_after` before any event): likewise;
 * - an id of this connection whose event is still kept: after it;
 * - otherwise (another connection's, unknown, older than 30 days): the oldest kept, with a gap.
 */
async function startOf(
  ctx: Ctx,
  viewer: Viewer,
  after: string | undefined,
): Promise<{ from: string; gap: boolean }> {
  if (after === undefined) return { from: '0', gap: false };
  const position = positionOf(after, viewer.connectionId);
  if (position === '0') return { from: '0', gap: false };
  if (position !== null) {
    const kept = await ctx.db
      .selectFrom('events')
      .select('id')
      .where('tenant_id', '=', viewer.tenantId)
      .where('position', '=', position)
      .where('created_at', '>', retentionCutoff(ctx.clock.now()))
      .executeTakeFirst();
    if (kept) return { from: position, gap: false };
  }
  return { from: '0', gap: true };
}

/** `GET /events`: this connection's events after `after`, oldest first (spec: Fetching). */
export async function listEvents(ctx: Ctx, query: EventFeedQuery): Promise<EventPage> {
  const viewer = viewerOf(ctx);
  const types = visibleTypes(viewer.scopes, query.types === undefined ? null : parseTypesFilter(query.types));
  await stampEventPositions(ctx.db, viewer.tenantId);
  if (query.after === 'latest') {
    const newest = await ctx.db
      .selectFrom('events')
      .select('position')
      .where(visible(viewer, types, ctx.clock.now()))
      .orderBy('position', 'desc')
      .limit(1)
      .executeTakeFirst();
    const next = newest?.position == null ? beforeAnyEvent : eventId(newest.position, viewer.connectionId);
    return { envelopes: [], has_more: false, next_after: next, gap: false };
  }
  const start = await startOf(ctx, viewer, query.after);
  const rows = await eventsWithEnvelopes(ctx, viewer, types)
    .where('events.position', '>', start.from)
    .orderBy('events.position')
    .limit(query.limit + 1)
    .execute();
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    envelopes: await envelopesOf(ctx, viewer, page),
    has_more: rows.length > query.limit,
    next_after:
      last?.position != null
        ? eventId(last.position, viewer.connectionId)
        : start.from === '0'
          ? beforeAnyEvent
          : eventId(start.from, viewer.connectionId),
    gap: start.gap,
  };
}

/** The list body, composed from the stored envelope texts so each is sent byte for byte. */
export function eventPageJson(page: EventPage): string {
  const rest = JSON.stringify({ has_more: page.has_more, next_after: page.next_after, gap: page.gap }).slice(
    1,
  );
  return `{"object":"list","data":[${page.envelopes.join(',')}],${rest}`;
}

/**
 * `GET /events/{id}`: the envelope of one of this connection's events. Not found: another
 * connection's id, an event outside the token's scopes, app.disconnected, a test event, one
 * older than 30 days.
 */
export async function getEvent(ctx: Ctx, id: string): Promise<string> {
  if (!eventIdPattern.test(id)) {
    throw new ApiError('invalid_request', 'An event id is evt_ followed by 32 lowercase hex digits.', {
      param: 'id',
    });
  }
  const viewer = viewerOf(ctx);
  const position = positionOf(id, viewer.connectionId);
  const row =
    position === null || position === '0'
      ? undefined
      : await eventsWithEnvelopes(ctx, viewer, visibleTypes(viewer.scopes, null))
          .where('events.position', '=', position)
          .executeTakeFirst();
  if (!row) throw new ApiError('not_found', 'No such event for this connection.');
  const [body] = await envelopesOf(ctx, viewer, [row]);
  return body as string;
}
