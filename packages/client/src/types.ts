import type { paths } from './schema.ts';

/* Names for the answers apps use most, taken from the generated paths. */

type Json<Operation> = Operation extends { responses: { 200: { content: { 'application/json': infer T } } } }
  ? T
  : never;

/** A page of GET /events. */
export type EventsPage = Json<paths['/events']['get']>;
/** An event as GET /events and webhook deliveries carry it (the same envelope). */
export type ServeryEvent = EventsPage['data'][number];
export type EventType = ServeryEvent['type'];
export type Order = Json<paths['/orders/{id}']['get']>;
