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
  const id = newId();
  await ctx.db
    .insertInto('events')
    .values({
      tenant_id: event.tenantId,
      id,
      type: event.type,
      connection_id: event.connectionId,
      livemode: event.livemode,
      data: JSON.stringify(event.data),
      created_at: ctx.clock.now(),
      actor: JSON.stringify(actorRecord(ctx.actor)),
    })
    .execute();
  return id;
}
