import { eventTypes } from '../events/events.store.ts';
import { ApiError } from '../shared/errors.ts';

/**
 * The groups a selection may name: `*` (every type) and `<prefix>.*` for every dotted prefix of a
 * type (`order.*`, `menu.*`, `menu.product.*`, `store.*`, `reservation.*`, `app.*`).
 */
export const eventGroups: readonly string[] = [
  '*',
  ...new Set(
    eventTypes.flatMap((type) => {
      const parts = type.split('.');
      return parts.slice(1).map((_, i) => `${parts.slice(0, i + 1).join('.')}.*`);
    }),
  ),
];

/** Who owns the webhook: a restaurant's own webhooks receive no `app.*` events. */
export type WebhookOwner = 'app' | 'restaurant';

const selectable = (owner: WebhookOwner, entry: string) =>
  (eventTypes as readonly string[]).includes(entry) || eventGroups.includes(entry)
    ? owner === 'app' || !entry.startsWith('app.')
    : false;

/*
 * An event selection:
 * - a non-empty list of known event types and groups (`*`, `order.*`, …), each once;
 * - a restaurant's own webhook cannot select `app.*` or an `app.` type (its `*` never includes them);
 * - an unknown entry is a 400 naming it (`events[2]`).
 */
export function checkEventSelection(events: readonly string[], owner: WebhookOwner): string[] {
  if (events.length === 0)
    throw new ApiError('invalid_request', 'Select at least one event type or group.', { param: 'events' });
  events.forEach((entry, i) => {
    if (!selectable(owner, entry)) {
      const hint =
        entry.startsWith('app.') && owner === 'restaurant' ? ' (not for a restaurant’s own webhook)' : '';
      throw new ApiError('invalid_request', `Unknown event type or group "${entry}"${hint}.`, {
        param: `events[${i}]`,
      });
    }
  });
  return [...new Set(events)];
}
