import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { sha256 } from '../shared/ids.ts';

/** Most events one stamping takes; the rest wait for the next. */
const stampBatch = 5000;

/*
 * The sequencer (decisions.md, Events: the feed never skips an event), one per restaurant. An id
 * or sequence value taken inside a writer's transaction may commit after a higher one a poller
 * already passed; so events get their feed position only AFTER they committed:
 * - one stamping of a restaurant at a time (the lock of its row in event_sequences), each giving
 *   positions above every earlier stamping's (the row holds the last one given);
 * - a stamping numbers only events committed before it began, in id order, and its positions
 *   become visible together when it commits.
 * So the positions a reader of a restaurant's feed sees are always a prefix of all positions ever
 * handed out in it: no later commit can appear below a position already seen. Each statement
 * names the restaurant, so on Citus a stamping runs on the restaurant's node, beside the others.
 * Cheap when nothing waits (one index probe). Returns how many events it stamped.
 */
export async function stampEventPositions(db: Db, tenantId: string): Promise<number> {
  const pending = await db
    .selectFrom('events')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('position', 'is', null)
    .limit(1)
    .execute();
  if (pending.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    // The restaurant's counter, made at its first stamping, locked until the commit.
    const counter = await sql<{ position: string }>`
      INSERT INTO event_sequences (tenant_id, position) VALUES (${tenantId}, 0)
      ON CONFLICT (tenant_id) DO UPDATE SET position = event_sequences.position
      RETURNING position`.execute(trx);
    const last = counter.rows[0]?.position ?? '0';
    // A new statement, so a new snapshot: it sees every event committed before the lock was had.
    const result = await sql`
      UPDATE events e SET position = ${last}::bigint + p.n
      FROM (
        SELECT id, row_number() OVER (ORDER BY id) AS n FROM events
        WHERE tenant_id = ${tenantId} AND position IS NULL
        ORDER BY id LIMIT ${sql.lit(stampBatch)}
      ) p
      WHERE e.tenant_id = ${tenantId} AND e.id = p.id`.execute(trx);
    const stamped = Number(result.numAffectedRows ?? 0);
    await trx
      .updateTable('event_sequences')
      .set({ position: sql`position + ${stamped}` })
      .where('tenant_id', '=', tenantId)
      .execute();
    return stamped;
  });
}

/**
 * Stamps the committed events of every restaurant that has some waiting (the worker's run). On
 * Citus, finding them asks every shard (its index of unstamped events); then each restaurant is
 * stamped on its node.
 */
export async function stampAllEventPositions(db: Db): Promise<number> {
  const waiting = await db
    .selectFrom('events')
    .select('tenant_id')
    .distinct()
    .where('position', 'is', null)
    .execute();
  let stamped = 0;
  for (const { tenant_id } of waiting) stamped += await stampEventPositions(db, tenant_id);
  return stamped;
}

const zeros = '0'.repeat(16);

/** `next_after` before any event: `evt_` and 32 zeros. */
export const beforeAnyEvent = `evt_${zeros}${zeros}`;

export const eventIdPattern = /^evt_[0-9a-f]{32}$/;

/** The part of an event id naming who sees it (a connection, or a restaurant's own webhook). */
function audiencePart(audienceId: string): string {
  return sha256(audienceId).slice(0, 16);
}

/**
 * An audience's id of the event at `position`: `evt_`, 16 hex of the position (so ids sort in
 * feed order), 16 hex of the audience (so every connection and every restaurant-owned webhook
 * has ids of its own).
 */
export function eventId(position: string | number, audienceId: string): string {
  return `evt_${BigInt(position).toString(16).padStart(16, '0')}${audiencePart(audienceId)}`;
}

/**
 * The position an event id stands for, if it is one of this connection's ids; null otherwise
 * (another connection's id, or not a position we could have handed out). `evt_` + zeros is 0.
 */
export function positionOf(id: string, connectionId: string): string | null {
  if (!eventIdPattern.test(id)) return null;
  if (id === beforeAnyEvent) return '0';
  if (id.slice(20) !== audiencePart(connectionId)) return null;
  const position = BigInt(`0x${id.slice(4, 20)}`);
  return position > 0n && position <= 0x7fffffffffffffffn ? position.toString() : null;
}
