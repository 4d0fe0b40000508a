/*
 * Issue 4, "never lose an event": the service (its worker) is SIGKILLed while it delivers a
 * backlog of webhooks to a slow receiver, then started again. An event counts as delivered only
 * when the receiver answered 200 to a sender still alive to see it; every recorded event must be
 * delivered (duplicates allowed), every POST verify with the stripe package, and the ids sent be
 * the ones GET /v1/events shows. On PostgreSQL two worker processes deliver (and an API process
 * serves the feed): one of them is killed, the other delivers on. FAULT_ROUNDS repeats the kill
 * (`npm run faults` runs 100; see docs/operators.md).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, test } from 'node:test';
import Stripe from 'stripe';
import type { Db } from '../../src/db/client.ts';
import { recordEvent } from '../../src/domain/events/events.store.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { setAppWebhook } from '../../src/domain/webhooks/app-webhook.service.ts';
import { makeTenant, type Tenant } from '../harness.ts';
import { eventually, hangCatcherMs, settled } from '../waiting.ts';
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

const rounds = Number(process.env.FAULT_ROUNDS || 1);
/** Events of each round: the first round has a long backlog, later ones a shorter one. */
const eventsOf = (round: number) => (round === 0 ? 300 : 60);
/** Events of the round delivered when the kill comes: some, not all. */
const killAtOf = (round: number) => (round === 0 ? 130 : 25);
/**
 * How long the receiver takes to answer: deliveries stay in flight a while. (Only shapes the load:
 * the kill waits until the victim has deliveries in flight, whatever the delay.)
 */
const answerDelayMs = 30;

interface Arrival {
  eventId: string;
  /** Real time of arrival (Date.now()): the signature is checked against it. */
  at: number;
  body: string;
  signature: string;
}

interface Receiver {
  url: string;
  /** Every POST read, delivered or not. */
  arrivals: Arrival[];
  /** The object ids of the events delivered: answered 200 to a sender that was alive. */
  delivered: Set<string>;
  /** Requests of the sender process `pid` read but not answered yet (it is waiting for them). */
  inFlightOf(pid: number): number;
  /** Requests left unanswered because their sender had been killed. */
  cut(): number;
  /** Called after each delivery. */
  onDelivered: (() => void) | null;
  /**
   * The sender process `pid` is about to be killed: answers wait until `dead` resolves (it has
   * ended). Requests on its connections (those `ss` names as its own now, and those it opened
   * since, which once it has ended are no established connection of anyone's: the system closed
   * them as it ended) are not answered and not delivered; those of another sender, alive, are. A
   * worker that died before it saw the 2xx must send those events again.
   */
  senderKilled(pid: number, dead: Promise<unknown>): void;
  close(): Promise<void>;
}

/** A receiver on a loopback port that records every POST and answers 200 after a short delay. */
async function startSlowReceiver(): Promise<Receiver> {
  /** The connections of the requests read but not answered yet, one entry per request. */
  const waiting: Socket[] = [];
  let cut = 0;
  const open = new Set<Socket>();
  const closed = new WeakSet<Socket>();
  /** The connections of the killed senders. */
  const deadSenders = new WeakSet<Socket>();
  let killing: Promise<unknown> = Promise.resolve();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const objectId = (JSON.parse(body) as { data: { object: { id: string } } }).data.object.id;
      received.arrivals.push({
        eventId: String(req.headers['service-event-id']),
        at: Date.now(),
        body,
        signature: String(req.headers['service-signature']),
      });
      waiting.push(req.socket);
      setTimeout(async () => {
        await killing;
        waiting.splice(waiting.indexOf(req.socket), 1);
        if (closed.has(req.socket) || deadSenders.has(req.socket)) {
          cut += 1;
          return void req.socket.destroy();
        }
        res.writeHead(200).end();
        received.delivered.add(objectId);
        received.onDelivered?.();
      }, answerDelayMs);
    });
  });
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    for (const ended of ['end', 'close'] as const)
      socket.on(ended, () => {
        closed.add(socket);
        open.delete(socket);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  /**
   * The client ports of the established connections to this receiver, as the system (`ss`) tells:
   * of the process `pid`, or of any process.
   */
  const clientPortsOf = (pid: number | null): Set<number> => {
    const port = (server.address() as AddressInfo).port;
    const sockets = execFileSync('ss', ['-Htnp', 'state', 'established', `( dport = :${port} )`], {
      encoding: 'utf8',
    });
    return new Set(
      sockets
        .split('\n')
        .filter((line) => line.trim() !== '' && (pid === null || line.includes(`pid=${pid},`)))
        .map((line) => Number(line.trim().split(/\s+/)[2]?.split(':').at(-1))),
    );
  };
  const received: Receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals: [],
    delivered: new Set(),
    inFlightOf: (pid) => {
      const ports = clientPortsOf(pid);
      return waiting.filter((socket) => ports.has(socket.remotePort ?? 0)).length;
    },
    cut: () => cut,
    onDelivered: null,
    senderKilled: (pid, dead) => {
      // By connection, not port: a port of a dead sender's may come back as another's.
      const ports = clientPortsOf(pid);
      for (const socket of open) if (ports.has(socket.remotePort ?? 0)) deadSenders.add(socket);
      // A connection it opened since: once it has ended, the system has closed it (whether or not
      // that has reached this process yet), so no process has it established any more.
      killing = dead.then(() => {
        const established = clientPortsOf(null);
        for (const socket of open) if (!established.has(socket.remotePort ?? 0)) deadSenders.add(socket);
      });
    },
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

const objectId = (round: number, i: number) => `ord_sigkill_${round}_${String(i).padStart(4, '0')}`;

/** Records the round's events as domain code does: each in its own transaction. */
async function recordEvents(db: Db, tenant: Tenant, round: number, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    await db.transaction().execute((trx) =>
      recordEvent(systemCtx(trx), {
        tenantId: tenant.restaurantId,
        type: 'order.created',
        connectionId: null,
        livemode: false,
        data: { object: { object: 'order', id: objectId(round, i) } },
      }),
    );
  }
}

/** A process of `role` with insecure (loopback) webhooks allowed. */
function startRole(role: 'all' | 'api' | 'worker'): Promise<Service> {
  return startService({
    database,
    args: ['serve', '--role', role],
    env: { DEMO_DATA: 'false', WEBHOOKS_ALLOW_INSECURE: 'true' },
  });
}

/** Started: listening (api, all) or running its jobs (worker). */
async function started(service: Service): Promise<Service> {
  await service.waitForLog((line) => line.msg === 'Servery started');
  return service;
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

test(`SIGKILL of the worker in the middle of webhook deliveries loses no event (${postgresUrl ? 'PostgreSQL, two worker processes' : 'PGlite'}, ${rounds} ${rounds === 1 ? 'kill' : 'kills'})`, {
  // A hang-catcher per round: many rounds (npm run faults) take their time.
  timeout: rounds * hangCatcherMs,
}, async (t) => {
  const began = performance.now();
  database = await migratedDatabase();
  const slow = await startSlowReceiver();
  receiver = slow;
  const { tenant, secret } = await withDatabase(database, (opened) => seed(opened.db, slow.url));
  // PGlite is open in one process at a time: there each round's events are recorded before the
  // service starts, and the service (role all) stops after the round. PostgreSQL runs an API
  // process and two workers through every round, and takes a round's last events while they
  // deliver, through the kill.
  const several = database.dataDir === null;
  const writer = several ? await database.open() : null;
  const api = several ? await started(await startRole('api')) : null;
  const workers = several
    ? await Promise.all([startRole('worker'), startRole('worker')]).then((w) => Promise.all(w.map(started)))
    : [];
  let cutBefore = 0;
  let delivered = 0;
  let verified = 0;
  const verifier = Stripe.webhooks.signature;
  assert.ok(verifier);

  try {
    for (let round = 0; round < rounds; round++) {
      const events = eventsOf(round);
      const ids = Array.from({ length: events }, (_, i) => objectId(round, i));
      const deliveredOfRound = () => ids.filter((id) => slow.delivered.has(id)).length;
      // A backlog the worker claims in batches, so the kill also cuts claimed deliveries not yet sent.
      const recordedLater = several ? Math.floor(events / 3) : 0;
      if (writer) await recordEvents(writer.db, tenant, round, 0, events - recordedLater);
      else await withDatabase(database, ({ db }) => recordEvents(db, tenant, round, 0, events));

      const senders = several ? workers : [await started(await startRole('all'))];
      let victim: Service | null = null;
      let inFlightAtKill = 0;
      const killed = new Promise<Service>((resolve, reject) => {
        slow.onDelivered = () => {
          if (deliveredOfRound() === events) reject(new Error('every event was delivered before a kill'));
          if (deliveredOfRound() < killAtOf(round)) return;
          // The worker with the most deliveries in flight (one of them may have none just now).
          const inFlight = senders.map((sender) => slow.inFlightOf(sender.child.pid as number));
          inFlightAtKill = Math.max(...inFlight);
          if (inFlightAtKill === 0) return;
          slow.onDelivered = null;
          victim = senders[inFlight.indexOf(inFlightAtKill)] as Service;
          slow.senderKilled(victim.child.pid as number, victim.exited);
          victim.child.kill('SIGKILL');
          resolve(victim);
        };
      });
      const writing = writer
        ? recordEvents(writer.db, tenant, round, events - recordedLater, events)
        : Promise.resolve();
      victim = await settled('a kill while the victim has deliveries in flight', killed);
      assert.deepEqual(await victim.waitForExit(), { code: null, signal: 'SIGKILL' });
      assert.ok(inFlightAtKill > 0, 'deliveries were in flight when the worker was killed');
      assert.ok(deliveredOfRound() < events, 'the kill came before every event was delivered');

      const successor = await started(await startRole(several ? 'worker' : 'all'));
      if (several) workers[workers.indexOf(victim)] = successor;
      await writing;
      // Every event delivered (a dead worker's claims wait for their lease, real time).
      await eventually('every event of the round delivered', () => deliveredOfRound() === events, {
        describe: () => `: ${ids.filter((id) => !slow.delivered.has(id)).length} of ${events} missing`,
      });
      for (const worker of workers) assert.equal(worker.child.exitCode, null, 'the other worker lives on');
      assert.ok(slow.cut() > cutBefore, 'the kill cut deliveries a worker had to send again');
      cutBefore = slow.cut();
      delivered += events;
      // Every delivery of the round, resent ones too, is signed for the receiver's verifier
      // (which refuses a signature more than 5 minutes older than its arrival).
      for (const arrival of slow.arrivals.slice(verified)) {
        verifier.verifyHeader(arrival.body, arrival.signature, secret, 300, undefined, arrival.at);
        assert.equal((JSON.parse(arrival.body) as { id: string }).id, arrival.eventId);
      }
      verified = slow.arrivals.length;

      if (round === rounds - 1) {
        // Every event the feed knows arrived under its id, and nothing else did.
        const feed = await feedIds(api ?? successor, tenant.token);
        assert.equal(feed.length, delivered);
        assert.deepEqual(new Set(slow.arrivals.map((a) => a.eventId)), new Set(feed));
      }
      if (!several) assert.deepEqual(await successor.stop(), { code: 0, signal: null });
    }

    t.diagnostic(
      `${rounds} ${rounds === 1 ? 'kill' : 'kills'}${several ? ' of one of two workers' : ''}: ${delivered} events, all delivered; ${slow.cut()} POSTs cut by a kill; ${slow.arrivals.length} POSTs in all (${slow.arrivals.length - delivered} sent again after a kill); lost 0; ${Math.round((performance.now() - began) / 1000)} s`,
    );
    for (const service of [...workers, ...(api ? [api] : [])])
      assert.deepEqual(await service.stop(), { code: 0, signal: null });
  } finally {
    await writer?.close();
  }
});
