import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, test } from 'node:test';
import { dataDirLockName } from '../../src/db/client.ts';
import { hangCatcherMs, settled } from '../waiting.ts';
import {
  bearer,
  demoToken,
  killServices,
  migratedDatabase,
  type ServiceDatabase,
  startService,
  withDatabase,
} from './service.ts';

const databases: ServiceDatabase[] = [];
after(async () => {
  await killServices();
  for (const database of databases) await database.remove();
});

async function newDatabase(): Promise<ServiceDatabase> {
  const database = await migratedDatabase();
  databases.push(database);
  return database;
}

/** A raw HTTP/1.1 connection: what the server sends back, and whether it has closed it. */
function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  let ended = false;
  const changed = new Set<() => void>();
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    received += chunk;
    for (const listener of changed) listener();
  });
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      ended = true;
      for (const listener of changed) listener();
      resolve();
    }),
  );
  socket.on('error', () => {});
  /** The first complete response on the connection, if it has come. */
  const complete = () => {
    const end = received.indexOf('\r\n\r\n');
    const length = /\r\ncontent-length: (\d+)/i.exec(received)?.[1];
    if (end < 0 || length === undefined || received.length < end + 4 + Number(length)) return null;
    const head = received.slice(0, end);
    return { head, status: Number(head.split(' ')[1]), body: received.slice(end + 4) };
  };
  return {
    socket,
    /** Resolves once the connection has closed. */
    get closed(): Promise<void> {
      return settled('the connection to close', closed);
    },
    received: () => received,
    /** The first complete response; rejects if the connection closes before it is there. */
    response(): Promise<{ head: string; status: number; body: string }> {
      const answer = new Promise<{ head: string; status: number; body: string }>((resolve, reject) => {
        const check = () => {
          const found = complete();
          if (found || ended) changed.delete(check);
          if (found) resolve(found);
          else if (ended) reject(new Error(`the connection closed before a complete response: ${received}`));
        };
        changed.add(check);
        check();
      });
      return settled('a complete response', answer, () => `: ${received}`);
    },
  };
}

test('SIGTERM lets the request in flight finish, takes no new ones, exits 0 and leaves the data clean', {
  timeout: hangCatcherMs,
}, async () => {
  const database = await newDatabase();
  const service = await startService({ database });
  await service.ready();
  const token = demoToken(service.stdout());

  // An idle kept-alive connection: the stop must close it rather than wait for it.
  const idle = rawConnection(service.port);
  await once(idle.socket, 'connect');
  idle.socket.write('GET /health HTTP/1.1\r\nHost: servery.test\r\n\r\n');
  assert.equal((await idle.response()).status, 200);

  // The request in flight: DELETE /v1/connection (a write) whose JSON body `{}` is sent in two
  // parts. The server has its headers, and has authenticated it (its "incoming request" line is
  // logged), but runs the handler only once the whole body is there: until the test sends the
  // second part, the request is provably in the middle, for as long as the test likes.
  const inFlight = rawConnection(service.port);
  await once(inFlight.socket, 'connect');
  inFlight.socket.write(
    'DELETE /v1/connection HTTP/1.1\r\nHost: servery.test\r\n' +
      `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{`,
  );
  const incoming = await service.waitForLog(
    (line) => line.msg === 'incoming request' && (line.req as { url?: string }).url === '/v1/connection',
  );

  service.child.kill('SIGTERM');
  await service.waitForLog((line) => line.msg === 'stopping');
  // A repeated signal does not cut the stop short.
  service.child.kill('SIGTERM');
  service.child.kill('SIGINT');
  await service.waitForLog((line) => line.msg === 'already stopping' && line.signal === 'SIGINT');

  // New connections are refused (or, if one slips in, answered 503).
  const refused = await fetch(`${service.url}/health`).then(
    (response) => response.status,
    (error: Error) => (error.cause as { code?: string } | undefined)?.code ?? error.message,
  );
  assert.ok(refused === 'ECONNREFUSED' || refused === 503, `a new connection got ${refused}`);
  // The idle connection is closed, at most with a 503 on it.
  await idle.closed;
  const statuses = [...idle.received().matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1]);
  assert.equal(statuses[0], '200');
  assert.ok(
    statuses.slice(1).every((status) => status === '503'),
    idle.received(),
  );

  // The service waits for the request in flight: it answers it once the body is complete (below),
  // and logs it as completed before it says "stopped". The pause gives a service that did not wait
  // the time to end before the body is sent; it cannot fail a service that waits, however slow
  // the machine.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(service.child.exitCode, null, 'the service waits for the request in flight');
  inFlight.socket.write('}');
  const response = await inFlight.response();
  assert.equal(response.status, 200, response.head);
  const revoked = JSON.parse(response.body) as { object: string; id: string; revoked: boolean };
  assert.equal(revoked.object, 'connection');
  assert.equal(revoked.revoked, true);
  assert.match(response.head, /\r\nconnection: close/i, 'the last response closes its connection');
  const requestId = /\r\nx-request-id: (\S+)/i.exec(response.head)?.[1];
  assert.equal(requestId, incoming.reqId);

  // The client keeps its end open: the service must not wait for it (keepAliveTimeout is 72 s).
  // The response's "connection: close" (above) is what lets the stop go on without the client.
  const exit = await service.waitForExit();
  assert.deepEqual(exit, { code: 0, signal: null }, service.stderr());
  await inFlight.closed;
  const logs = service.logs();
  const completed = logs.findIndex((line) => line.reqId === requestId && line.msg === 'request completed');
  assert.ok(completed >= 0, 'the request in flight was logged as completed');
  assert.ok(
    completed < logs.findIndex((line) => line.msg === 'stopped'),
    'the stop waited for the request in flight',
  );
  assert.equal(logs.at(-1)?.msg, 'stopped');

  // The data is clean and has the write of the request in flight.
  if (database.dataDir) {
    assert.equal(existsSync(path.join(database.dataDir, 'postmaster.pid')), false, 'PGlite was closed');
    assert.equal(existsSync(path.join(database.dataDir, dataDirLockName)), false, 'the lock was released');
  }
  await withDatabase(database, async ({ db }) => {
    const connection = await db
      .selectFrom('connections')
      .select(['id', 'ended_at'])
      .where('id', '=', revoked.id)
      .executeTakeFirstOrThrow();
    assert.ok(connection.ended_at, 'the connection ended by the request in flight stays ended');
  });
  const restarted = await startService({ database });
  await restarted.ready();
  const me = await fetch(`${restarted.url}/v1/me`, { headers: bearer(token) });
  assert.equal(me.status, 401);
  assert.deepEqual(await restarted.stop(), { code: 0, signal: null });
});

test('SIGTERM while the service starts lets the start step finish, then stops cleanly', {
  timeout: hangCatcherMs,
}, async () => {
  const database = await newDatabase();
  const service = await startService({ database });
  // Right after this line, the service creates the demo data (seconds: two password hashes).
  await service.waitForLog((line) => line.msg === 'database ready');
  service.child.kill('SIGTERM');
  assert.deepEqual(await service.waitForExit(), { code: 0, signal: null }, service.stderr());
  assert.equal(service.logs().at(-1)?.msg, 'stopped');
  // The demo data was created whole before the stop, and is there on the next start.
  const token = demoToken(service.stdout());

  const restarted = await startService({ database });
  await restarted.ready();
  assert.doesNotMatch(restarted.stdout(), /Demo data created/);
  const me = await fetch(`${restarted.url}/v1/me`, { headers: bearer(token) });
  assert.equal(me.status, 200);
  assert.deepEqual(await restarted.stop(), { code: 0, signal: null });
});
