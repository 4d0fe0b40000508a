import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { envelopeJson, type RecordedEvent } from '../events/envelope.ts';
import type { EventType } from '../events/events.store.ts';
import { visibleTypes } from '../events/visibility.ts';
import type { Clock } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';

/** Most events one fan-out takes; the rest wait for the next run. */
const fanoutBatch = 500;

/** Whether an event selection (`*`, `order.*`, `order.created`, …) includes this type. */
export function selectionIncludes(selection: readonly string[], type: string): boolean {
  return selection.some(
    (entry) =>
      entry === '*' || entry === type || (entry.endsWith('.*') && type.startsWith(entry.slice(0, -1))),
  );
}

/** An enabled webhook that may receive events of a restaurant, and the audience it sees them as. */
interface Candidate {
  webhook_id: string;
  events: string[];
  /** The app's connection to the restaurant; null for the restaurant's own webhook. */
  connection_id: string | null;
  scopes: string[] | null;
  active: boolean;
}

/*
 * Which webhooks receive an event, as which audience:
 * - a restaurant event: the webhook of each app with an active connection to the restaurant whose
 *   scopes show the type (the feed's mapping, visibility.ts), as that connection; and each of the
 *   restaurant's own webhooks, as itself (connection_id null);
 * - an app.* event (app.disconnected too, unlike the feed): only the webhook of the app of the
 *   connection it belongs to, even if that connection just ended;
 * - and only if the webhook's event selection includes the type.
 */
function recipients(
  event: RecordedEvent & { connection_id: string | null },
  candidates: readonly Candidate[],
) {
  return candidates.filter((c) => {
    if (!selectionIncludes(c.events, event.type)) return false;
    if (event.type.startsWith('app.'))
      return c.connection_id !== null && c.connection_id === event.connection_id;
    if (c.connection_id === null) return true;
    return c.active && visibleTypes(c.scopes ?? [], null).restaurant.includes(event.type as EventType);
  });
}

/** The enabled webhooks that may receive events of a restaurant. */
async function candidatesFor(db: Db, tenantId: string): Promise<Candidate[]> {
  const ofApps = db
    .selectFrom('connections as c')
    .innerJoin('webhooks as w', 'w.app_id', 'c.app_id')
    .select([
      'w.id as webhook_id',
      'w.events',
      sql<string | null>`c.id`.as('connection_id'),
      sql<string[] | null>`c.scopes`.as('scopes'),
      sql<boolean>`c.ended_at IS NULL`.as('active'),
    ])
    .where('c.tenant_id', '=', tenantId)
    .where('w.enabled', '=', true);
  const own = db
    .selectFrom('webhooks as w')
    .select([
      'w.id as webhook_id',
      'w.events',
      sql<string | null>`NULL::uuid`.as('connection_id'),
      sql<string[] | null>`NULL::text[]`.as('scopes'),
      sql<boolean>`true`.as('active'),
    ])
    .where('w.tenant_id', '=', tenantId)
    .where('w.enabled', '=', true);
  return ofApps.unionAll(own).execute();
}

/** Rows one multi-row insert takes (PostgreSQL allows 65,535 parameters per statement). */
const insertChunk = 1000;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += insertChunk) out.push(rows.slice(i, i + insertChunk));
  return out;
}

/*
 * Creates the webhook deliveries of the events stamped since the last run, per restaurant, oldest
 * first, and freezes each one's envelope for its audience (for a connection the same row
 * GET /events reads). Test events (`data.test`) are not fanned out. Running it again creates
 * nothing twice. Returns how many deliveries it created.
 * Finding the restaurants whose events went past their fan-out asks every shard on Citus (the
 * worker's run, not a request); each restaurant's fan-out then runs on its node.
 */
export async function fanOutDeliveries(db: Db, clock: Clock): Promise<number> {
  const behind = await sql<{ tenant_id: string }>`
    SELECT s.tenant_id FROM event_sequences s LEFT JOIN webhook_fanout f ON f.tenant_id = s.tenant_id
    WHERE s.position > coalesce(f.position, 0)`.execute(db);
  let created = 0;
  for (const { tenant_id } of behind.rows) created += await fanOutRestaurant(db, clock, tenant_id);
  return created;
}

/** One restaurant's fan-out; one at a time per restaurant (its progress row is locked). */
async function fanOutRestaurant(db: Db, clock: Clock, tenantId: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const progress = await sql<{ position: string }>`
      INSERT INTO webhook_fanout (tenant_id, position) VALUES (${tenantId}, 0)
      ON CONFLICT (tenant_id) DO UPDATE SET position = webhook_fanout.position
      RETURNING position`.execute(trx);
    const events = await trx
      .selectFrom('events')
      .select(['tenant_id', 'position', 'type', 'livemode', 'data', 'created_at', 'connection_id'])
      .where('tenant_id', '=', tenantId)
      .where('position', '>', progress.rows[0]?.position ?? '0')
      .orderBy('position')
      .limit(fanoutBatch)
      .execute();
    const last = events.at(-1);
    if (!last) return 0;
    const candidates = await candidatesFor(trx, tenantId);
    const now = clock.now();
    const envelopes = [];
    const deliveries = [];
    for (const event of events) {
      if ((event.data as { test?: unknown }).test === true) continue;
      const position = String(event.position);
      for (const to of recipients(event, candidates)) {
        const audience = { id: to.connection_id ?? to.webhook_id, connectionId: to.connection_id };
        envelopes.push({
          tenant_id: event.tenant_id,
          position,
          audience_id: audience.id,
          body: envelopeJson(event, audience),
        });
        deliveries.push({
          id: newId(),
          webhook_id: to.webhook_id,
          tenant_id: event.tenant_id,
          position,
          audience_id: audience.id,
          event_type: event.type,
          livemode: event.livemode,
          next_attempt_at: now,
          delivered_at: null,
          given_up_at: null,
          created_at: now,
        });
      }
    }
    for (const rows of chunks(envelopes)) {
      await trx
        .insertInto('event_envelopes')
        .values(rows)
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    let created = 0;
    for (const rows of chunks(deliveries)) {
      const inserted = await trx
        .insertInto('webhook_deliveries')
        .values(rows)
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      created += Number(inserted.numInsertedOrUpdatedRows ?? 0);
    }
    await trx
      .updateTable('webhook_fanout')
      .set({ position: String(last.position) })
      .where('tenant_id', '=', tenantId)
      .execute();
    return created;
  });
}
