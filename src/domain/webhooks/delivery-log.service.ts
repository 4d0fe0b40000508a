import { sql } from 'kysely';
import { envelopeJson } from '../events/envelope.ts';
import { type ExampleAudience, eventExample } from '../events/event-examples.ts';
import { type EventType, eventTypes, type NewEvent, recordEvent } from '../events/events.store.ts';
import { eventId, stampEventPositions } from '../events/positions.ts';
import { visibleTypes } from '../events/visibility.ts';
import type { Ctx } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid, newId } from '../shared/ids.ts';
import { inPageOrder, type ListOrder, type PageRange } from '../shared/paging.ts';
import { claimForResend, type DeliveryPoster, send, writeOutcomes } from './delivery.ts';
import type { DeliveryView } from './webhook.schema.ts';

/** A webhook as the log needs it: whose it is decides which test events it may be sent. */
export interface LoggedWebhook {
  id: string;
  appId: string | null;
  tenantId: string | null;
}

/** A test event or resend that failed has no next attempt: `failed`. */
function statusOf(row: {
  delivered_at: Date | null;
  given_up_at: Date | null;
  skipped_at: Date | null;
  next_attempt_at: Date | null;
}): DeliveryView['status'] {
  if (row.delivered_at) return 'delivered';
  if (row.skipped_at) return 'skipped';
  if (row.given_up_at) return 'given_up';
  return row.next_attempt_at ? 'pending' : 'failed';
}

/** Deliveries of one webhook, newest first, each with its attempts (the delivery log). */
async function deliveriesOf(
  ctx: Ctx,
  webhookId: string,
  where: { id?: string; page?: Required<PageRange> },
): Promise<DeliveryView[]> {
  let query = ctx.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('event_envelopes as e', (join) =>
      join
        .onRef('e.tenant_id', '=', 'd.tenant_id')
        .onRef('e.position', '=', 'd.position')
        .onRef('e.audience_id', '=', 'd.audience_id'),
    )
    .select([
      'd.id',
      'd.tenant_id',
      sql<string>`d.position::text`.as('position'),
      'd.audience_id',
      'd.event_type',
      'd.attempts',
      'd.sends',
      'd.next_attempt_at',
      'd.delivered_at',
      'd.given_up_at',
      'd.skipped_at',
      'd.created_at',
      'e.body',
    ])
    .where('d.webhook_id', '=', webhookId);
  // An app's webhook gets every connected restaurant's deliveries: on Citus this read and the
  // attempts' ask every shard (a page a developer or owner opens).
  if (where.id !== undefined) query = query.where('d.id', '=', where.id);
  if (where.page !== undefined) query = inPageOrder(query, newestFirst, where.page, 'd');
  const rows = await query.execute();
  if (rows.length === 0) return [];
  const attempts = await ctx.db
    .selectFrom('webhook_delivery_attempts')
    .select(['delivery_id', 'attempt', 'started_at', 'status_code', 'duration_ms', 'error'])
    .where('tenant_id', '=', sql<string>`any(${[...new Set(rows.map((row) => row.tenant_id))]}::uuid[])`)
    .where('delivery_id', '=', sql<string>`any(${rows.map((row) => row.id)}::uuid[])`)
    .orderBy('attempt')
    .execute();
  return rows.map((row) => ({
    object: 'webhook_delivery',
    id: row.id,
    event_id: eventId(row.position, row.audience_id),
    event_type: row.event_type,
    status: statusOf(row),
    scheduled_attempts: row.attempts,
    next_attempt_at: row.next_attempt_at,
    delivered_at: row.delivered_at,
    created_at: row.created_at,
    event: JSON.parse(row.body) as Record<string, unknown>,
    attempts: attempts
      .filter((a) => a.delivery_id === row.id)
      .map(({ delivery_id: _, ...attempt }) => attempt),
  }));
}

/** The delivery log's order: newest first (webhook_deliveries_log index). */
export const newestFirst: ListOrder<'created_at'> = { key: 'created_at', direction: 'desc' };

/** One page of the webhook's delivery log, newest first. */
export function listDeliveries(
  ctx: Ctx,
  webhookId: string,
  page: Required<PageRange>,
): Promise<DeliveryView[]> {
  return deliveriesOf(ctx, webhookId, { page });
}

export async function getDelivery(ctx: Ctx, webhookId: string, deliveryId: string): Promise<DeliveryView> {
  const [delivery] = isUuid(deliveryId) ? await deliveriesOf(ctx, webhookId, { id: deliveryId }) : [];
  if (!delivery) throw new ApiError('not_found', `This webhook has no delivery ${deliveryId}.`);
  return delivery;
}

/**
 * Sends a delivery once more, now (spec: Webhooks, Console): the same envelope and id, a fresh
 * signature, the attempt number going on; not one of the 8 scheduled attempts, so a failure
 * changes no schedule. A success completes the delivery. Returns the delivery after the send.
 */
export async function resendDelivery(
  ctx: Ctx,
  webhookId: string,
  deliveryId: string,
  poster: DeliveryPoster,
): Promise<DeliveryView> {
  await getDelivery(ctx, webhookId, deliveryId);
  const claimed = await claimForResend(ctx.db, ctx.clock.now(), deliveryId);
  await writeOutcomes(ctx.db, ctx.clock, claimed.tenant_id, [await send(claimed, false, poster, ctx.clock)]);
  return getDelivery(ctx, webhookId, deliveryId);
}

/** spec: Webhooks, Console: resends and test events together, at most 10 a minute per app. */
export const manualSendLimit = { keyPrefix: 'webhook-manual-sends', points: 10, durationSeconds: 60 };

/** A test event's type: any event type (no app.* to a restaurant's own webhook) or ping. */
export function checkTestEventType(webhook: LoggedWebhook, type: string): EventType {
  const allowed = webhook.appId === null ? eventTypes.filter((t) => !t.startsWith('app.')) : eventTypes;
  const known = allowed.find((t) => t === type);
  if (!known)
    throw new ApiError('invalid_request', `type must be one of ${allowed.join(', ')}.`, { param: 'type' });
  return known;
}

/** Whom a test event is for, and what it may show: the connection's scopes (null: a restaurant's own). */
interface TestAudience extends ExampleAudience {
  audienceId: string;
  scopes: string[] | null;
}

/**
 * Where a test event takes its restaurant from: for the app's webhook, its newest active
 * connection to a test restaurant (test events use test-restaurant data only); for a
 * restaurant's own webhook, that restaurant.
 */
async function testAudience(ctx: Ctx, webhook: LoggedWebhook): Promise<TestAudience> {
  if (webhook.tenantId !== null)
    return { tenantId: webhook.tenantId, audienceId: webhook.id, connectionId: null, scopes: null };
  const connection = await ctx.db
    .selectFrom('connections as c')
    .innerJoin('restaurants as r', 'r.id', 'c.tenant_id')
    .select(['c.id', 'c.tenant_id', 'c.scopes'])
    .where('c.app_id', '=', webhook.appId as string)
    .where('c.ended_at', 'is', null)
    .where('r.livemode', '=', false)
    .orderBy('c.created_at', 'desc')
    .executeTakeFirst();
  if (!connection)
    throw new ApiError(
      'invalid_request',
      'Test events use test-restaurant data: connect the app to a test restaurant first.',
    );
  return {
    tenantId: connection.tenant_id,
    audienceId: connection.id,
    connectionId: connection.id,
    scopes: connection.scopes,
  };
}

/*
 * A test event's `data` shows only what its receiver may see:
 * - a restaurant's own webhook: the restaurant's newest real event of the type;
 * - an app's webhook: the newest real event of a type its connection's scopes show (the feed's
 *   mapping), or for app.* the newest of its own connection, never another app's;
 * - anything else (no such event, a type it may not see, ping): the type's documented example.
 */
async function testEventData(ctx: Ctx, audience: TestAudience, type: EventType): Promise<NewEvent['data']> {
  const ownApp = type.startsWith('app.');
  const mayRead =
    audience.scopes === null || ownApp || visibleTypes(audience.scopes, null).restaurant.includes(type);
  const newest = mayRead
    ? await ctx.db
        .selectFrom('events')
        .select('data')
        .where('tenant_id', '=', audience.tenantId)
        .where('type', '=', type)
        .where(sql<boolean>`(data->>'test') IS DISTINCT FROM 'true'`)
        .$if(ownApp, (query) => query.where('connection_id', '=', audience.connectionId))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirst()
    : undefined;
  return newest ? (newest.data as NewEvent['data']) : eventExample(type, audience);
}

/*
 * Sends a test event of `type` (any event type, or `ping`) to the webhook now: `livemode` false,
 * `data.test` true, the rest of `data` what the webhook may see (testEventData). It gets an id
 * like any event but is never listed by GET /events nor fanned out to other webhooks; it appears
 * in this webhook's log.
 */
export async function sendTestEvent(
  ctx: Ctx,
  webhook: LoggedWebhook,
  type: EventType,
  poster: DeliveryPoster,
): Promise<DeliveryView> {
  const audience = await testAudience(ctx, webhook);
  const data = { ...(await testEventData(ctx, audience, type)), test: true };
  const outboxId = await ctx.db.transaction().execute((trx) =>
    recordEvent(
      { ...ctx, db: trx },
      {
        tenantId: audience.tenantId,
        type,
        connectionId: audience.connectionId,
        livemode: false,
        data,
      },
    ),
  );
  await stampEventPositions(ctx.db, audience.tenantId);
  const event = await ctx.db
    .selectFrom('events')
    .select(['tenant_id', 'position', 'type', 'livemode', 'data', 'created_at'])
    .where('tenant_id', '=', audience.tenantId)
    .where('id', '=', outboxId)
    .executeTakeFirstOrThrow();
  const position = String(event.position);
  const now = ctx.clock.now();
  const deliveryId = newId();
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('event_envelopes')
      .values({
        tenant_id: audience.tenantId,
        position,
        audience_id: audience.audienceId,
        body: envelopeJson(event, { id: audience.audienceId, connectionId: audience.connectionId }),
      })
      .execute();
    await trx
      .insertInto('webhook_deliveries')
      .values({
        id: deliveryId,
        webhook_id: webhook.id,
        tenant_id: audience.tenantId,
        position,
        audience_id: audience.audienceId,
        event_type: type,
        livemode: false,
        next_attempt_at: null,
        delivered_at: null,
        given_up_at: null,
        created_at: now,
      })
      .execute();
  });
  return resendDelivery(ctx, webhook.id, deliveryId, poster);
}
