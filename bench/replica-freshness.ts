/*
 * `node bench/replica-freshness.ts`: how often a streaming replica has replayed everything its
 * server had written when a read begins, the condition for a list to be read there without
 * breaking the contract's promise that every process lists an order at once (docs/scale-out.md,
 * "Read replicas"). A server and a replica of it on this machine (test/operations/private-
 * postgres.ts); writers commit small transactions at a given rate while a reader asks, before each
 * read, for the server's WAL insert position and then whether the replica has replayed it.
 */
import pg from 'pg';
import { startReplicatedCluster } from '../test/operations/private-postgres.ts';

const seconds = 10;
const rates = [0, 20, 100, 500, null]; // commits a second; null: as fast as 4 writers go

const cluster = await startReplicatedCluster();
const connect = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
};
try {
  const setup = await connect(cluster.url);
  await setup.query('CREATE TABLE orders (id bigserial PRIMARY KEY, body text)');
  await setup.end();
  console.log(
    `${seconds} s each; a read is fresh when the replica has replayed the server's insert position`,
  );
  console.log('commits/s  reads  fresh  fresh %');
  for (const rate of rates) {
    const writers = await Promise.all([1, 2, 3, 4].map(() => connect(cluster.url)));
    const primary = await connect(cluster.url);
    const replica = await connect(cluster.replicaUrl);
    const end = Date.now() + seconds * 1000;
    let commits = 0;
    const write = async (client: pg.Client) => {
      for (let next = Date.now(); Date.now() < end; ) {
        if (rate === 0) return;
        await client.query('INSERT INTO orders (body) VALUES ($1)', ['x'.repeat(500)]);
        commits++;
        if (rate !== null) {
          next += (1000 * writers.length) / rate;
          const wait = next - Date.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    };
    let reads = 0;
    let fresh = 0;
    const read = async () => {
      while (Date.now() < end) {
        const { rows } = await primary.query('SELECT pg_current_wal_insert_lsn()::text AS lsn');
        const replayed = await replica.query('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS fresh', [
          rows[0].lsn,
        ]);
        reads++;
        if (replayed.rows[0].fresh) fresh++;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    };
    await Promise.all([...writers.map(write), read()]);
    await Promise.all([...writers, primary, replica].map((client) => client.end()));
    console.log(
      `${String(Math.round(commits / seconds)).padStart(9)}  ${String(reads).padStart(5)}  ${String(fresh).padStart(5)}  ${((100 * fresh) / reads).toFixed(1).padStart(7)}`,
    );
  }
} finally {
  await cluster.close();
}
