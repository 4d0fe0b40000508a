import { ApiError } from '../shared/errors.ts';
import type { Scope } from '../shared/scopes.ts';
import { type EventType, eventTypes } from './events.store.ts';

/** decisions.md, Events: the read scope that shows each group of the restaurant's events. */
const groupScopes: Record<string, Scope> = {
  order: 'orders:read',
  menu: 'menu:read',
  store: 'store:read',
  reservation: 'reservations:read',
};

/** The app.* events a connection sees of its own, with no scope; app.disconnected never arrives. */
const ownAppTypes: readonly EventType[] = ['app.connected', 'app.scopes_changed'];

/** Which event types one connection's token sees: the restaurant's by scope, and its own app.*. */
export interface VisibleTypes {
  restaurant: EventType[];
  ownApp: EventType[];
}

export function visibleTypes(scopes: readonly string[], filter: ReadonlySet<EventType> | null): VisibleTypes {
  const wanted = (type: EventType) => filter === null || filter.has(type);
  return {
    restaurant: eventTypes.filter((type) => {
      const scope = groupScopes[type.split('.')[0] ?? ''];
      return scope !== undefined && scopes.includes(scope) && wanted(type);
    }),
    ownApp: ownAppTypes.filter(wanted),
  };
}

/**
 * The `types` parameter: a comma list of event types and groups (`order.created,menu.*`). A group
 * names a prefix of at least one type; anything else is a 400 on `types`.
 */
export function parseTypesFilter(text: string): Set<EventType> {
  const selected = new Set<EventType>();
  for (const item of text.split(',')) {
    const matches = item.endsWith('.*')
      ? eventTypes.filter((type) => type.startsWith(item.slice(0, -1)))
      : eventTypes.filter((type) => type === item);
    if (matches.length === 0) {
      throw new ApiError('invalid_request', `Unknown event type or group in types: "${item}".`, {
        param: 'types',
      });
    }
    for (const type of matches) selected.add(type);
  }
  return selected;
}
