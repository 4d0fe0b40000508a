/*
 * A tiny order printer: polls the restaurant's events and prints each new order as a kitchen
 * ticket, keeping its place in a cursor file so a restart prints nothing twice.
 *
 *   SERVERY_URL=https://api.example.com/v1 SERVERY_TOKEN=svc_at_... node order-printer.ts
 *
 * Ctrl-C stops it after the page it is printing.
 */

import {
  createServeryClient,
  dataOf,
  FileCursorStore,
  type Order,
  pollEvents,
  type ServeryClient,
} from '@servery/client';

const servery = createServeryClient({
  baseUrl: process.env.SERVERY_URL ?? 'http://localhost:3000/v1',
  token: process.env.SERVERY_TOKEN ?? '',
});

function printTicket(order: Order): void {
  const when = order.requested_for ? `for ${order.requested_for}` : 'as soon as possible';
  console.log(`\n#${order.code} ${order.type} ${when}`);
  for (const item of order.items) {
    console.log(`  ${item.quantity} × ${item.name}`);
    for (const option of item.options) console.log(`      + ${option.name}`);
  }
  if (order.note) console.log(`  Note: ${order.note}`);
}

/**
 * After a long outage the cursor expired and events were missed: print again every order the
 * kitchen has not finished yet (a reprint beats a lost ticket).
 */
async function reprintOpenOrders(client: ServeryClient): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await dataOf(
      client.GET('/orders', {
        params: { query: { status: 'pending,confirmed,preparing', limit: 100, cursor } },
      }),
    );
    for (const order of page.data) printTicket(order);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());

await pollEvents({
  client: servery,
  cursor: new FileCursorStore(process.env.CURSOR_FILE ?? 'order-printer.cursor'),
  startAt: 'latest',
  types: 'order.created',
  signal: stop.signal,
  onEvent: (event) => printTicket(event.data.object as Order),
  onGap: () => reprintOpenOrders(servery),
  onRetry(error, waitMs) {
    console.error(`${error}; trying again in ${waitMs / 1000} s`);
  },
});
