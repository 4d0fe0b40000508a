import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { sha256 } from '../shared/ids.ts';

/** Arbitrary constant naming the sequencer's advisory lock. */
const sequencerLock = 727_2027;

/** Most events one stamping takes; the rest wait for the next. */
const stampBatch = 5000;

/*
 * The sequencer (decisions.md, Events: the feed never skips an event). An id or sequence value
 * taken inside a writer's transaction may commit after a higher one a poller already passed; so
 * events get their feed position only AFTER they committed:
 * - one stamping at a time (an advisory transaction lock), each taking sequence values above
 *   every earlier stamping's;
 * - a stamping numbers only events committed before it began, in id order, and its positions
 *   become visible together when it commits.
 * So the positions a reader sees are always a prefix of all positions ever handed out: no later
 * commit can appear below a position already seen. Cheap when nothing waits (one index probe).
 * Returns how many events it stamped.
 */
export async function stampEventPositions(db: Db): Promise<number> {
  const pending = await db.selectFrom('events').select('id').where('position', 'is', null).limit(1).execute();
  if (pending.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${sql.lit(sequencerLock)})`.execute(trx);
    // A new statement, so a new snapshot: it sees every event committed before the lock was had.
    const result = await sql`
      UPDATE events e SET position = s.position
      FROM (
        SELECT tenant_id, id, nextval('event_positions') AS position
        FROM (SELECT tenant_id, id FROM events WHERE position IS NULL ORDER BY id LIMIT ${sql.lit(stampBatch)}) p
      ) s
      WHERE e.tenant_id = s.tenant_id AND e.id = s.id`.execute(trx);
    return Number(result.numAffectedRows ?? 0);
  });
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
