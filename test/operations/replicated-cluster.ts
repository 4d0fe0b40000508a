import { execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/*
 * A PostgreSQL server and a streaming replica of it, made with this machine's PostgreSQL binaries
 * (`pg_config --bindir`) in a temporary directory, on free ports of 127.0.0.1. As root they run as
 * the `postgres` user, since PostgreSQL refuses to run as root.
 */

export interface ReplicatedCluster {
  primaryUrl: string;
  replicaUrl: string;
  /** Waits until the replica has replayed every write the primary has made so far. */
  caughtUp(): Promise<void>;
  /** Stops and resumes the replica's replay: it answers, but with the data as it was. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  stopReplica(): void;
  close(): void;
}

const bin = (name: string) =>
  path.join(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim(), name);

function run(name: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  execFileSync(asRoot ? 'runuser' : bin(name), asRoot ? ['-u', 'postgres', '--', bin(name), ...args] : args, {
    stdio: 'ignore',
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function query<T>(url: string, text: string): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows[0] as T;
  } finally {
    await client.end();
  }
}

export async function startReplicatedCluster(): Promise<ReplicatedCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'servery-replica-'));
  if (process.getuid?.() === 0) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'])), 0);
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const primary = path.join(dir, 'primary');
  const replica = path.join(dir, 'replica');
  const start = (data: string, port: number) =>
    run('pg_ctl', [
      '-D',
      data,
      '-w',
      '-l',
      `${data}.log`,
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  const stop = (data: string) => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    } catch {}
  };

  run('initdb', ['-D', primary, '-A', 'trust', '-U', 'postgres']);
  appendFileSync(path.join(primary, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
  start(primary, primaryPort);
  run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replica, '-R']);
  start(replica, replicaPort);

  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
  return {
    primaryUrl,
    replicaUrl,
    caughtUp: async () => {
      const { lsn } = await query<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn');
      for (let tries = 0; tries < 200; tries++) {
        const { done } = await query<{ done: boolean }>(
          replicaUrl,
          `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`,
        );
        if (done) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the replica did not reach ${lsn} in 10 s`);
    },
    pauseReplay: () => query(replicaUrl, 'SELECT pg_wal_replay_pause()'),
    resumeReplay: () => query(replicaUrl, 'SELECT pg_wal_replay_resume()'),
    stopReplica: () => stop(replica),
    close: () => {
      stop(replica);
      stop(primary);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
