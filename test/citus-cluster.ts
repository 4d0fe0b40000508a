import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { eventually } from './waiting.ts';

/*
 * Databases on a Citus cluster, for the tests that run on one: CITUS_URL names the coordinator's
 * `postgres` database, as ../shared/tools/citus/cluster.sh prints it (.ci/run starts such a
 * cluster). Citus keeps its nodes per database, so a new database needs the extension made in it
 * on every node and its workers added (docs/scale-out.md, "Running it").
 */

/** The coordinator of the cluster the Citus tests run on, if any. */
export const citusUrl = process.env.CITUS_URL;

export interface CitusDatabase {
  readonly name: string;
  readonly url: string;
  /** Drops the database on every node. */
  drop(): Promise<void>;
}

/** A new database on the cluster with Citus in it on every node and the workers added. */
export async function newCitusDatabase(coordinatorUrl: string): Promise<CitusDatabase> {
  const name = `servery_citus_${randomBytes(6).toString('hex')}`;
  const coordinator = new URL(coordinatorUrl);
  const urlOf = (host: string, port: number | string) => {
    const url = new URL(coordinatorUrl);
    url.hostname = host;
    url.port = String(port);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const workers = await onDatabase(coordinatorUrl, async (admin) => {
    await admin.query('SET citus.enable_create_database_propagation TO on');
    await admin.query(`CREATE DATABASE ${name}`);
    // Every statement sent to more than one shard is written to the coordinator's log, to be
    // read beside the code's comments (docs/scale-out.md, "Statements on every shard").
    await admin.query(`ALTER DATABASE ${name} SET citus.multi_task_query_log_level = 'log'`);
    return (
      await admin.query<{ host: string; port: number }>(
        'SELECT nodename AS host, nodeport AS port FROM pg_dist_node WHERE groupid > 0 ORDER BY groupid',
      )
    ).rows;
  });
  for (const worker of workers)
    await onDatabase(urlOf(worker.host, worker.port), (client) => client.query('CREATE EXTENSION citus'));
  const url = urlOf(coordinator.hostname, coordinator.port || 5432);
  const nodes = [{ host: coordinator.hostname, port: Number(coordinator.port || 5432) }, ...workers];
  await onDatabase(url, async (client) => {
    await client.query('CREATE EXTENSION citus');
    await client.query('SELECT citus_set_coordinator_host($1, $2)', [
      coordinator.hostname,
      Number(coordinator.port || 5432),
    ]);
    for (const worker of workers)
      await client.query('SELECT citus_add_node($1, $2)', [worker.host, worker.port]);
  });
  return {
    name,
    url,
    // Each node's copy is dropped on its own, the coordinator's first (its sessions to the
    // workers end with it): a drop the coordinator passes on to the workers fails whole when a
    // worker's Citus maintenance process is still in the database ("being accessed by other
    // users", 55006), and leaves the nodes it reached without theirs. A worker's is dropped once
    // that process has left.
    drop: async () => {
      for (const node of nodes) {
        const admin = new URL(coordinatorUrl);
        admin.hostname = node.host;
        admin.port = String(node.port);
        await eventually(`database ${name} dropped on ${node.host}:${node.port}`, () =>
          onDatabase(admin.toString(), (client) =>
            client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
          ).then(
            () => true,
            (error: { code?: string }) => {
              if (error.code === '55006') return false;
              throw error;
            },
          ),
        );
      }
    },
  };
}

async function onDatabase<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
