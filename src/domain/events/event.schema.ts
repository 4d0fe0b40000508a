import Type from 'typebox';
import { eventTypes } from './events.store.ts';

/** The Event resource, the envelope of webhooks and the feed (spec: Event, Envelope). */
export const EventSchema = Type.Object({
  id: Type.String({
    pattern: '^evt_[0-9a-f]{32}$',
    description:
      'The event as this connection sees it; another connection sees the same change under another id.',
  }),
  object: Type.Literal('event'),
  type: Type.Enum(eventTypes, { type: 'string' }),
  created_at: Type.String({ format: 'date-time', description: 'When the change happened.' }),
  api_version: Type.String({
    description: '`2026-10-08`; `2026-10-04` for events created before 8 October 2026.',
  }),
  livemode: Type.Boolean(),
  tenant_id: Type.String({ format: 'uuid' }),
  connection_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  data: Type.Object(
    {
      object: Type.Object(
        {},
        { additionalProperties: true, description: 'The resource as it was at the change.' },
      ),
    },
    {
      additionalProperties: true,
      description:
        'The resource as at the change, plus `previous_status`, `changed`, `previous` depending on type.',
    },
  ),
});

/** The events feed's page (not the usual list envelope: spec, Fetching). */
export const EventListSchema = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(EventSchema),
  has_more: Type.Boolean({ description: 'More events follow: fetch again at once with `next_after`.' }),
  next_after: Type.String({
    pattern: '^evt_[0-9a-f]{32}$',
    description:
      'Where to continue (store it after processing the page); `evt_` and 32 zeros before any event.',
  }),
  gap: Type.Boolean({
    description:
      'The `after` sent is no longer kept: the page starts at the oldest kept event and some events were missed; resynchronise with the list endpoints.',
  }),
});
