import { eventId } from './positions.ts';

/** Events created before this instant keep the first version date (spec: Versioning). */
const currentVersionSince = Date.parse('2026-10-08T00:00:00.000Z');

export function apiVersionOf(createdAt: Date): string {
  return createdAt.getTime() < currentVersionSince ? '2026-10-04' : '2026-10-08';
}

/** Values that belong to a single app; events carry them as null (spec: Event). */
const perAppFields = new Set(['external_id', 'acknowledged_at']);

function withoutPerAppValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPerAppValues);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      perAppFields.has(key) ? null : withoutPerAppValues(inner),
    ]),
  );
}

export interface RecordedEvent {
  tenant_id: string;
  position: string | number | null;
  type: string;
  livemode: boolean;
  data: Record<string, unknown>;
  created_at: Date;
}

/**
 * Who sees an event under an id of its own (decisions.md, Events): a connection, or a
 * restaurant's own webhook, whose envelopes carry `connection_id` null.
 */
export interface Audience {
  id: string;
  connectionId: string | null;
}

export function connectionAudience(connectionId: string): Audience {
  return { id: connectionId, connectionId };
}

/** The envelope of a recorded event as one audience sees it, as JSON text (spec: Event). */
export function envelopeJson(event: RecordedEvent, audience: Audience): string {
  if (event.position === null) throw new Error('an event is shown only once it has a position');
  const { object, ...rest } = event.data;
  return JSON.stringify({
    id: eventId(event.position, audience.id),
    object: 'event',
    type: event.type,
    created_at: event.created_at.toISOString(),
    api_version: apiVersionOf(event.created_at),
    livemode: event.livemode,
    tenant_id: event.tenant_id,
    connection_id: audience.connectionId,
    data: { object: withoutPerAppValues(object), ...rest },
  });
}
