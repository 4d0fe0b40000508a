import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import Stripe from 'stripe';
import type { Db } from '../../src/db/client.ts';
import { systemCtx } from '../../src/domain/context.ts';
import { recordEvent } from '../../src/domain/events/events.store.ts';
import { setAppWebhook } from '../../src/domain/webhooks/app-webhook.service.ts';
import { makeTenant, type Tenant } from '../harness.ts';
import {
  bearer,
  killServices,
  migratedDatabase,
  postgresUrl,
  type Service,
  type ServiceDatabase,
  startService,
  withDatabase,
} from './service.ts';

let database: ServiceDatabase | null = null;
let receiver: Receiver | null = null;
after(async () => {
  await killServices();
  await receiver?.close();
  await database?.remove();
});

const events = 300;
/** Distinct events arrived when the kill comes: some, not all. */
const killAt = 130;
/** How long the receiver takes to answer: the worker has deliveries in flight when it dies. */
const answerDelayMs = 30;
/** The time the restarted worker gets to deliver every event (a dead worker's claims wait for their retry). */
const deliveredWithinMs = 90_000;

interface Arrival {
  eventId: string;
  objectId: string;
  body: string;
  signature: string;
}

interface Receiver {
  url: string;
  arrivals: Arrival[];
  /** Distinct object ids arrived so far. */
  objectIds: Set<string>;
  /** Requests read but not answered yet (the worker is waiting for them). */
  inFlight(): number;
  /** Called on each arrival, before it is answered. */
  onArrival: (() => void) | null;
  close(): Promise<void>;
}

/** A receiver on a loopback port that records every POST and answers 200 after a short delay. */
async function startSlowReceiver(): Promise<Receiver> {
  let waiting = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as { data: { object: { id: string } } };
      received.arrivals.push({
        eventId: String(req.headers['service-event-id']),
        objectId: parsed.data.object.id,
        body,
        signature: String(req.headers['service-signature']),
      });
      received.objectIds.add(parsed.data.object.id);
      waiting += 1;
      received.onArrival?.();
      setTimeout(() => {
        waiting -= 1;
        res.writeHead(200).end();
      }, answerDelayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const received: Receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals: [],
    objectIds: new Set(),
    inFlight: () => waiting,
    onArrival: null,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return received;
}

/** A test restaurant with a connected app whose webhook (all order events) points at the receiver. */
async function seed(db: Db, url: string): Promise<{ tenant: Tenant; secret: string }> {
  const ctx = systemCtx(db);
  const tenant = await makeTenant(ctx, { livemode: false });
  const { secret } = await setAppWebhook(ctx, {
    clientId: tenant.clientId,
    developerId: null,
    url,
    events: ['order.*'],
    rules: { allowInsecure: true },
  });
  if (!secret) throw new Error('the webhook existed already');
  return { tenant, secret };
}

const objectId = (i: number) => `ord_sigkill_${String(i).padStart(4, '0')}`;

/** Records the events as domain code does: each in its own transaction. */
async function recordEvents(db: Db, tenant: Tenant, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    await db.transaction().execute((trx) =>
      recordEvent(systemCtx(trx), {
        tenantId: tenant.restaurantId,
        type: 'order.created',
        connectionId: null,
        livemode: false,
        data: { object: { object: 'order', id: objectId(i) } },
      }),
    );
  }
}

function startWorkerService(): Promise<Service> {
  return startService({
    database,
    args: ['serve', '--role', 'all'],
    env: { DEMO_DATA: 'false', WEBHOOKS_ALLOW_INSECURE: 'true' },
  });
}

/** Every order event id GET /v1/events knows for the connection, page by page. */
async function feedIds(service: Service, token: string): Promise<string[]> {
  const ids: string[] = [];
  let after = '';
  for (;;) {
    const response = await fetch(`${service.url}/v1/events?types=order.*&limit=100${after}`, {
      headers: bearer(token),
    });
    assert.equal(response.status, 200);
    const page = (await response.json()) as { data: { id: string }[]; has_more: boolean; next_after: string };
    ids.push(...page.data.map((event) => event.id));
    if (!page.has_more) return ids;
    after = `&after=${page.next_after}`;
  }
}

test(`SIGKILL of the worker in the middle of webhook deliveries loses no event (${postgresUrl ? 'PostgreSQL' : 'PGlite'})`, {
  timeout: 240_000,
}, async (t) => {
  database = await migratedDatabase();
  const slow = await startSlowReceiver();
  receiver = slow;
  // A backlog the worker claims in batches, so the kill also cuts claimed deliveries not yet
  // sent. PGlite is open in one process at a time: there every event is recorded before the
  // service starts; PostgreSQL takes the last ones while the service runs, through the kill.
  const recordedLater = database.dataDir === null ? 100 : 0;
  const { tenant, secret } = await withDatabase(database, async ({ db }) => {
    const seeded = await seed(db, slow.url);
    await recordEvents(db, seeded.tenant, 0, events - recordedLater);
    return seeded;
  });
  const writer = recordedLater > 0 ? await database.open() : null;

  try {
    const first = await startWorkerService();
    await first.ready(60_000);
    let inFlightAtKill = 0;
    slow.onArrival = () => {
      if (slow.objectIds.size < killAt) return;
      slow.onArrival = null;
      inFlightAtKill = slow.inFlight();
      first.child.kill('SIGKILL');
    };
    const writing = writer
      ? recordEvents(writer.db, tenant, events - recordedLater, events)
      : Promise.resolve();
    assert.deepEqual(await first.waitForExit(60_000), { code: null, signal: 'SIGKILL' });
    const arrivedBeforeKill = slow.objectIds.size;
    assert.ok(inFlightAtKill > 0, 'deliveries were in flight when the worker was killed');
    assert.ok(arrivedBeforeKill < events, 'the kill came before every event had arrived');

    const second = await startWorkerService();
    await second.ready(60_000);
    await writing;
    const deadline = Date.now() + deliveredWithinMs;
    while (slow.objectIds.size < events && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));

    const missing = Array.from({ length: events }, (_, i) => objectId(i)).filter(
      (id) => !slow.objectIds.has(id),
    );
    assert.deepEqual(missing, [], `${missing.length} events never arrived within ${deliveredWithinMs} ms`);
    assert.equal(slow.objectIds.size, events, 'nothing arrived that was not recorded');

    // Every event the feed knows arrived under its id, and only those.
    const feed = await feedIds(second, tenant.token);
    assert.equal(feed.length, events);
    assert.deepEqual(new Set(slow.arrivals.map((a) => a.eventId)), new Set(feed));

    // Every delivery, resent ones too, is signed for the receiver's verifier.
    const verifier = Stripe.webhooks.signature;
    assert.ok(verifier);
    for (const arrival of slow.arrivals) {
      verifier.verifyHeader(arrival.body, arrival.signature, secret, 300);
      assert.equal((JSON.parse(arrival.body) as { id: string }).id, arrival.eventId);
    }
    const duplicates = slow.arrivals.length - events;
    t.diagnostic(
      `${arrivedBeforeKill} events arrived before the kill (${inFlightAtKill} in flight), ${duplicates} resent after it`,
    );
    assert.deepEqual(await second.stop(), { code: 0, signal: null });
  } finally {
    await writer?.close();
  }
});
