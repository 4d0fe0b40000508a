import { actorRecord, type Ctx } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';

export const eventTypes = [
  'order.created',
  'order.status_changed',
  'order.cancelled',
  'order.paid',
  'reservation.created',
  'reservation.updated',
  'menu.category.created',
  'menu.category.updated',
  'menu.category.deleted',
  'menu.product.created',
  'menu.product.updated',
  'menu.product.deleted',
  'menu.option_group.created',
  'menu.option_group.updated',
  'menu.option_group.deleted',
  'menu.option.created',
  'menu.option.updated',
  'menu.option.deleted',
  'menu.synced',
  'menu.refresh_requested',
  'store.paused',
  'store.resumed',
  'store.updated',
  'app.connected',
  'app.scopes_changed',
  'app.disconnected',
  'ping',
] as const;
export type EventType = (typeof eventTypes)[number];

export interface NewEvent {
  tenantId: string;
  type: EventType;
  /** The connection an app.* event belongs to; null for the restaurant's events. */
  connectionId: string | null;
  livemode: boolean;
  /** `data` of the envelope: `object` as it is now (at the change), plus previous_* / changed. */
  data: { object: unknown } & Record<string, unknown>;
}

/**
 * Records an event in the caller's transaction (the outbox): it exists exactly when the change it
 * reports committed. It keeps the ctx's actor: who made the change. Delivery and the feed read it from there.
 */
export async function recordEvent(ctx: Ctx, event: NewEvent): Promise<string> {
  const [id] = await recordEvents(ctx, [event]);
  return id as string;
}

/** Rows per insert of recordEvents: well below PostgreSQL's 65,535 parameters of a statement. */
const eventsPerInsert = 1000;

/** Events of one change to many objects, in order, as recordEvent records each: a few statements, not one per event. */
export async function recordEvents(ctx: Ctx, events: readonly NewEvent[]): Promise<string[]> {
  const createdAt = ctx.clock.now();
  const actor = JSON.stringify(actorRecord(ctx.actor));
  const rows = events.map((event) => ({
    tenant_id: event.tenantId,
    id: newId(),
    type: event.type,
    connection_id: event.connectionId,
    livemode: event.livemode,
    data: JSON.stringify(event.data),
    created_at: createdAt,
    actor,
  }));
  for (let start = 0; start < rows.length; start += eventsPerInsert)
    await ctx.db
      .insertInto('events')
      .values(rows.slice(start, start + eventsPerInsert))
      .execute();
  return rows.map((row) => row.id);
}
