import { chmodSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/*
 * A PGlite data directory is open in one process only (see lockDataDir in client.ts). That process
 * shares its database through a Unix socket in the directory, so that other processes, the
 * operator CLI beside a running `serve`, reach it with pg as they would a PostgreSQL server. The
 * socket has PostgreSQL's own name: `host=<data dir>` finds it.
 */
export const dataDirSocketName = '.s.PGSQL.5432';

/** The connection string of the database shared by the process that has `dataDir` open. */
export function dataDirSocketUrl(dataDir: string): string {
  return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(path.resolve(dataDir))}`;
}

/** Longest socket path every Unix takes (macOS: 103 bytes, Linux: 107). */
const longestSocketPath = 103;

/** A client that sends nothing for this long is disconnected: it must not hold the database. */
const clientIdleLimitMs = 30_000;

/*
 * Serves `pglite` on the directory's socket until the returned function is called, which
 * disconnects the clients and stops. Not on Windows (no Unix sockets) nor for a directory whose
 * socket path would be too long: there the directory stays unshared.
 *
 * - PGlite is one PostgreSQL session. A client has it to itself from its first message until it
 *   disconnects: it takes PGlite's transaction lock, which every query, exec and transaction of
 *   this process takes too, so the process's work waits meanwhile and never interleaves with the
 *   client's transactions. Further clients wait their turn.
 * - A client leaves nothing behind: its open transaction is rolled back, its prepared statements
 *   are dropped.
 * - Only this user may connect (the socket is made 0600): PGlite asks for no password.
 */
export async function shareDataDir(pglite: PGlite, dataDir: string): Promise<() => Promise<void>> {
  const file = path.join(path.resolve(dataDir), dataDirSocketName);
  if (process.platform === 'win32' || Buffer.byteLength(file) > longestSocketPath) return async () => {};
  // A socket left by a process that was killed: the caller holds the directory's lock, so it is nobody's.
  rmSync(file, { force: true });
  const clients = new Map<net.Socket, Promise<void>>();
  const server = net.createServer((socket) => {
    clients.set(
      socket,
      serveClient(pglite, socket).finally(() => clients.delete(socket)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, resolve);
  });
  chmodSync(file, 0o600);
  return async () => {
    const closed = new Promise((resolve) => server.close(resolve));
    for (const socket of clients.keys()) socket.destroy();
    await Promise.all([closed, ...clients.values()]);
  };
}

const startupProtocolVersion = 196_608; // 3.0
const terminate = 'X'.charCodeAt(0);

/** Passes the client's wire-protocol messages to PGlite one by one and its answers back. */
async function serveClient(pglite: PGlite, socket: net.Socket): Promise<void> {
  // A client that goes away ends its session; there is nothing to report.
  socket.on('error', () => {});
  socket.on('timeout', () => socket.destroy());
  socket.setTimeout(clientIdleLimitMs);
  let unlock: (() => void) | null = null;
  try {
    let started = false;
    let buffered = Buffer.alloc(0);
    for await (const chunk of socket as AsyncIterable<Buffer>) {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        // The startup message has no type byte: its length comes first, then the protocol version.
        const length = started
          ? buffered.length >= 5 && 1 + buffered.readInt32BE(1)
          : buffered.length >= 8 && buffered.readInt32BE(0);
        if (length === false || buffered.length < length) break;
        const message = buffered.subarray(0, length);
        buffered = buffered.subarray(length);
        // A malformed length, anything but a startup first (an SSL or cancel request) and a
        // terminate end the session.
        if (length < (started ? 5 : 8)) return;
        if (started ? message[0] === terminate : message.readInt32BE(4) !== startupProtocolVersion) return;
        socket.setTimeout(0); // the time the database takes is not the client's idling
        unlock ??= await lockSession(pglite);
        if (socket.destroyed) return; // gone (or disconnected by a stop) while it waited
        socket.write(await pglite.execProtocolRaw(message));
        socket.setTimeout(clientIdleLimitMs);
        started = true;
      }
    }
  } catch {
    // a connection reset ends the session like a close
  } finally {
    socket.destroy();
    if (unlock) await endSession(pglite).finally(unlock);
  }
}

/*
 * Takes PGlite's transaction lock until the function it resolves with is called. (Its public
 * runExclusive takes only the query lock, which a transaction of this process lets go between its
 * statements: the client's messages would land inside that transaction.)
 */
function lockSession(pglite: PGlite): Promise<() => void> {
  return new Promise((locked) => {
    void pglite._runExclusiveTransaction(() => new Promise<void>((unlock) => locked(() => unlock())));
  });
}

/*
 * Undoes what a client left in the session: a transaction (also one of an extended-protocol batch
 * cut off before its Sync, and one left failed, which only a Sync lets a ROLLBACK reach) and its
 * prepared statements.
 */
async function endSession(pglite: PGlite): Promise<void> {
  for (const message of [query('ROLLBACK'), sync, query('ROLLBACK'), query('DEALLOCATE ALL')])
    await pglite.execProtocolRaw(message);
}

const sync = Uint8Array.of(0x53, 0, 0, 0, 4);

function query(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`);
  const message = Buffer.alloc(5 + body.length);
  message.write('Q');
  message.writeInt32BE(4 + body.length, 1);
  body.copy(message, 5);
  return message;
}
