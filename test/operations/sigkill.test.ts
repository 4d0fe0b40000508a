import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { dataDirLockName } from '../../src/db/client.ts';
import { hangCatcherMs } from '../waiting.ts';
import {
  bearer,
  killServices,
  migratedDatabase,
  postgresUrl,
  type SeededConnection,
  type Service,
  type ServiceDatabase,
  seedConnections,
  startService,
  withDatabase,
} from './service.ts';

let database: ServiceDatabase | null = null;
after(async () => {
  await killServices();
  await database?.remove();
});

/** Kills, one per round (`npm run faults` runs 100; see docs/operators.md). */
const rounds = Number(process.env.FAULT_ROUNDS || 1);
const perRound = 24;
const writers = 6;
/** Acknowledged writes of a round before the kill: the other writers' requests are then in flight. */
const killAfter = 6;

/** What the test knows of a connection: ended (its DELETE was answered 200) or perhaps (cut by the kill). */
type Outcome = 'ended' | 'perhaps';

/** GET /v1/me with every token: ended ones are refused, untouched ones work, cut ones either. */
async function checkTokens(service: Service, all: SeededConnection[], outcomes: Map<string, Outcome>) {
  const queue = [...all];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const response = await fetch(`${service.url}/v1/me`, { headers: bearer(next.token) });
        const body = (await response.json()) as { id?: string };
        const outcome = outcomes.get(next.token);
        if (outcome === 'ended')
          assert.equal(response.status, 401, 'an acknowledged write survives the kill');
        else if (outcome === undefined)
          assert.equal(response.status, 200, 'an untouched connection still works');
        else assert.ok(response.status === 200 || response.status === 401, `GET /me: ${response.status}`);
        if (response.status === 200) assert.equal(body.id, next.connectionId);
      }
    }),
  );
}

/**
 * Ends the batch's connections with DELETE /v1/connection from several writers, and SIGKILLs the
 * service mid-way. With a `steady` second API process (PostgreSQL), half the writers send to it:
 * they go on through the kill, every answer 200.
 */
async function writeAndKill(
  service: Service,
  steady: Service | null,
  batch: SeededConnection[],
  outcomes: Map<string, Outcome>,
) {
  // With a steady process, each target has half the batch: the victim surely gets to its kill.
  const queues = new Map<Service, SeededConnection[]>(
    steady
      ? [
          [service, batch.filter((_, i) => i % 2 === 0)],
          [steady, batch.filter((_, i) => i % 2 === 1)],
        ]
      : [[service, [...batch]]],
  );
  let acknowledged = 0;
  let killed = false;
  const failures: string[] = [];
  let writing = true;
  const hammer = (async () => {
    while (!killed && writing)
      await fetch(`${service.url}/health`).then(
        (response) => response.arrayBuffer(),
        () => {},
      );
  })();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      const target = steady && writer % 2 === 1 ? steady : service;
      const queue = queues.get(target) as SeededConnection[];
      for (let next = queue.shift(); next && !(killed && target === service); next = queue.shift()) {
        outcomes.set(next.token, 'perhaps');
        let status: number;
        try {
          const response = await fetch(`${target.url}/v1/connection`, {
            method: 'DELETE',
            headers: bearer(next.token),
          });
          await response.arrayBuffer();
          status = response.status;
        } catch {
          continue; // cut by the kill: the write may or may not have been committed
        }
        if (status !== 200) failures.push(`DELETE /v1/connection answered ${status}`);
        outcomes.set(next.token, 'ended');
        if (target !== service) continue;
        acknowledged += 1;
        if (acknowledged === killAfter) {
          killed = true;
          service.child.kill('SIGKILL');
        }
      }
    }),
  );
  writing = false;
  await hammer;
  assert.deepEqual(failures, []);
  assert.ok(killed, 'the service was killed during the writes');
  assert.deepEqual(await service.waitForExit(), { code: null, signal: 'SIGKILL' });
}

test(postgresUrl
  ? 'SIGKILL of the service in the middle of writes leaves PostgreSQL consistent, with every acknowledged write'
  : 'SIGKILL in the middle of writes never corrupts the PGlite directory: it reopens, consistent, with every acknowledged write', {
  // A hang-catcher per round: many rounds (npm run faults) take their time.
  timeout: rounds * hangCatcherMs,
}, async (t) => {
  const began = performance.now();
  database = await migratedDatabase();
  const all = await seedConnections(database, rounds * perRound);
  const outcomes = new Map<string, Outcome>();
  // On PostgreSQL a second API process serves on through every kill of the first.
  const steady = database.dataDir
    ? null
    : await startService({ database, args: ['serve', '--role', 'api'], env: { DEMO_DATA: 'false' } });
  await steady?.ready();

  for (let round = 0; round <= rounds; round++) {
    const service = await startService({ database, env: { DEMO_DATA: 'false' } });
    await service.ready();
    // The last round's writes survived the kill, the next round's connections are untouched; at
    // the end, every connection is checked.
    await checkTokens(
      service,
      round === rounds ? all : all.slice(Math.max(0, round - 1) * perRound, (round + 1) * perRound),
      outcomes,
    );
    if (round === rounds) {
      assert.deepEqual(await service.stop(), { code: 0, signal: null });
      break;
    }
    await writeAndKill(service, steady, all.slice(round * perRound, (round + 1) * perRound), outcomes);
    assert.equal(steady?.child.exitCode ?? null, null, 'the other API process lives on');
    if (database.dataDir) {
      // The kill left its lock behind; the next start takes it over (its process is gone).
      const lock: string = readFileSync(path.join(database.dataDir, dataDirLockName), 'utf8');
      assert.equal(lock.split('\n')[0], String(service.child.pid));
    }
  }

  // Each DELETE is one transaction: a connection is ended exactly when its tokens are revoked.
  await withDatabase(database, async ({ db }) => {
    const connections = await db
      .selectFrom('connections')
      .select(['id', 'ended_at'])
      .where('tenant_id', '=', all[0]?.tenantId as string)
      .execute();
    const tokens = await db
      .selectFrom('access_tokens')
      .select(['connection_id', 'revoked_at'])
      .where('tenant_id', '=', all[0]?.tenantId as string)
      .execute();
    assert.equal(connections.length, all.length);
    assert.equal(tokens.length, all.length);
    let ended = 0;
    for (const seeded of all) {
      const connection = connections.find((row) => row.id === seeded.connectionId);
      const token = tokens.find((row) => row.connection_id === seeded.connectionId);
      assert.equal(token?.revoked_at?.getTime(), connection?.ended_at?.getTime() ?? undefined);
      const outcome = outcomes.get(seeded.token);
      if (outcome === 'ended') assert.ok(connection?.ended_at);
      if (outcome === undefined) assert.equal(connection?.ended_at, null);
      if (connection?.ended_at) ended += 1;
    }
    const acknowledged = [...outcomes.values()].filter((outcome) => outcome === 'ended').length;
    assert.ok(acknowledged >= rounds * killAfter);
    assert.ok(ended >= acknowledged && ended <= outcomes.size);
  });
  if (database.dataDir) {
    assert.equal(existsSync(path.join(database.dataDir, dataDirLockName)), false);
  }
  if (steady) assert.deepEqual(await steady.stop(), { code: 0, signal: null });
  const acknowledged = [...outcomes.values()].filter((outcome) => outcome === 'ended').length;
  t.diagnostic(
    `${rounds} kills${steady ? ' with a second API process serving on' : ''}: ${outcomes.size} writes sent, ${acknowledged} answered 200 and kept, ${outcomes.size - acknowledged} cut by a kill; lost 0, half-written 0; ${Math.round((performance.now() - began) / 1000)} s`,
  );
});
