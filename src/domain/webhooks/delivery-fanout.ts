import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../context.ts';
import { envelopeJson, type RecordedEvent } from '../events/envelope.ts';
import type { EventType } from '../events/events.store.ts';
import { visibleTypes } from '../events/visibility.ts';
import { newId } from '../ids.ts';

/** Most events one fan-out takes; the rest wait for the next run. */
const fanoutBatch = 500;

/** Whether an event selection (`*`, `order.*`, `order.created`, …) includes this type. */
export function selectionIncludes(selection: readonly string[], type: string): boolean {
  return selection.some(
    (entry) =>
      entry === '*' || entry === type || (entry.endsWith('.*') && type.startsWith(entry.slice(0, -1))),
  );
}

interface Candidate {
  tenant_id: string;
  connection_id: string;
  scopes: string[];
  active: boolean;
  app_id: string;
  events: string[];
}

/*
 * Which app webhooks receive an event (spec: Webhooks), through which connection:
 * - a restaurant event: the enabled webhook of each app with an active connection to the
 *   restaurant whose scopes show the type (the feed's mapping, visibility.ts);
 * - an app.* event (app.disconnected too, unlike the feed): the enabled webhook of the app of the
 *   connection it belongs to, even if that connection just ended;
 * - and only if the webhook's event selection includes the type.
 */
function recipients(
  event: RecordedEvent & { connection_id: string | null },
  candidates: readonly Candidate[],
) {
  return candidates.filter((c) => {
    if (c.tenant_id !== event.tenant_id || !selectionIncludes(c.events, event.type)) return false;
    if (event.type.startsWith('app.')) return c.connection_id === event.connection_id;
    return c.active && visibleTypes(c.scopes, null).restaurant.includes(event.type as EventType);
  });
}

/*
 * Creates the webhook deliveries of the events stamped since the last run, oldest first, and
 * freezes each one's envelope for its connection (the same row GET /events reads). One fan-out at
 * a time (the progress row is locked); test events (`data.test`) are not fanned out. Running it
 * again creates nothing twice. Returns how many deliveries it created.
 */
export async function fanOutDeliveries(db: Db, clock: Clock): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const progress = await trx
      .selectFrom('webhook_fanout')
      .select('position')
      .forUpdate()
      .executeTakeFirstOrThrow();
    const events = await trx
      .selectFrom('events')
      .select(['tenant_id', 'position', 'type', 'livemode', 'data', 'created_at', 'connection_id'])
      .where('position', '>', String(progress.position))
      .orderBy('position')
      .limit(fanoutBatch)
      .execute();
    const last = events.at(-1);
    if (!last) return 0;
    const tenants = [...new Set(events.map((event) => event.tenant_id))];
    const candidates = await trx
      .selectFrom('connections as c')
      .innerJoin('app_webhooks as w', 'w.app_id', 'c.app_id')
      .select([
        'c.tenant_id',
        'c.id as connection_id',
        'c.scopes',
        sql<boolean>`c.ended_at IS NULL`.as('active'),
        'w.app_id',
        'w.events',
      ])
      .where('c.tenant_id', '=', sql<string>`any(${tenants}::uuid[])`)
      .where('w.enabled', '=', true)
      .execute();
    const now = clock.now();
    let created = 0;
    for (const event of events) {
      if ((event.data as { test?: unknown }).test === true) continue;
      for (const to of recipients(event, candidates)) {
        const position = String(event.position);
        await trx
          .insertInto('event_envelopes')
          .values({
            tenant_id: event.tenant_id,
            position,
            connection_id: to.connection_id,
            body: envelopeJson(event, to.connection_id),
          })
          .onConflict((oc) => oc.doNothing())
          .execute();
        const inserted = await trx
          .insertInto('webhook_deliveries')
          .values({
            id: newId(),
            app_id: to.app_id,
            tenant_id: event.tenant_id,
            position,
            connection_id: to.connection_id,
            event_type: event.type,
            livemode: event.livemode,
            next_attempt_at: now,
            delivered_at: null,
            given_up_at: null,
            created_at: now,
          })
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        created += Number(inserted.numInsertedOrUpdatedRows ?? 0);
      }
    }
    await trx
      .updateTable('webhook_fanout')
      .set({ position: String(last.position) })
      .execute();
    return created;
  });
}
