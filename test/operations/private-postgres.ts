import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../harness.ts';
import { eventually, hangCatcherMs } from '../waiting.ts';

/*
 * A PostgreSQL server of the test's own, and a streaming replica of it when asked, made with this
 * machine's PostgreSQL binaries (`pg_config --bindir`) in a temporary directory, on free ports of
 * 127.0.0.1; a test may stop and start it, which the machine's shared server must not be. As root
 * they run as the `postgres` user, since PostgreSQL refuses to run as root.
 */

export interface PrivatePostgres {
  url: string;
  /** Stops the server (fast: its sessions are ended) and starts it again. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it at once and removes its files. */
  close(): Promise<void>;
}

export interface ReplicatedCluster extends PrivatePostgres {
  replicaUrl: string;
  /** Waits until the replica has replayed every write the server has made so far. */
  caughtUp(): Promise<void>;
  /** Stops and resumes the replica's replay: it answers, but with the data as it was. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  stopReplica(): Promise<void>;
}

let bindir: string | undefined;
const bin = (name: string) => {
  bindir ??= execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  return path.join(bindir, name);
};

const execFileAsync = promisify(execFile);

async function run(name: string, args: string[]): Promise<void> {
  const asRoot = process.getuid?.() === 0;
  await execFileAsync(
    asRoot ? 'runuser' : bin(name),
    asRoot ? ['-u', 'postgres', '--', bin(name), ...args] : args,
  );
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

/** A server on the data directory `make` creates under `dir`, started. */
async function serverIn(
  dir: string,
  name: string,
  make: (data: string) => Promise<void>,
): Promise<Omit<PrivatePostgres, 'close'> & { kill(): Promise<void> }> {
  const data = path.join(dir, name);
  const port = await freePort();
  await make(data);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  // pg_ctl -w gives up after 60 s by default: here it waits as long as the start or stop takes.
  const wait = ['-w', '-t', String(hangCatcherMs / 1000)];
  const start = () => run('pg_ctl', ['-D', data, ...wait, '-l', `${data}.log`, '-o', options, 'start']);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop: () => run('pg_ctl', ['-D', data, '-m', 'fast', ...wait, 'stop']),
    kill: () => run('pg_ctl', ['-D', data, '-m', 'immediate', ...wait, 'stop']).catch(() => {}),
  };
}

function temporaryDirectory(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'servery-postgres-'));
  if (process.getuid?.() === 0) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'])), 0);
  return dir;
}

const initdb = (data: string) => run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres']);

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = temporaryDirectory();
  const { kill, ...server } = await serverIn(dir, 'server', initdb);
  return {
    ...server,
    close: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startReplicatedCluster(): Promise<ReplicatedCluster> {
  const dir = temporaryDirectory();
  const { kill, ...primary } = await serverIn(dir, 'primary', async (data) => {
    await initdb(data);
    appendFileSync(path.join(data, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
  });
  const primaryPort = new URL(primary.url).port;
  const replica = await serverIn(dir, 'replica', (data) =>
    run('pg_basebackup', ['-h', '127.0.0.1', '-p', primaryPort, '-U', 'postgres', '-D', data, '-R']),
  );
  const replicaUrl = replica.url;
  return {
    ...primary,
    replicaUrl,
    caughtUp: async () => {
      const { lsn } = await query<{ lsn: string }>(primary.url, 'SELECT pg_current_wal_lsn()::text AS lsn');
      await eventually(`the replica at ${lsn}`, async () => {
        const { done } = await query<{ done: boolean }>(
          replicaUrl,
          `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`,
        );
        return done;
      });
    },
    pauseReplay: () => query(replicaUrl, 'SELECT pg_wal_replay_pause()'),
    resumeReplay: () => query(replicaUrl, 'SELECT pg_wal_replay_resume()'),
    stopReplica: replica.kill,
    close: async () => {
      await replica.kill();
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
