/*
 * `npm run bench -- --only token-peer`: refresh grants/s of our `POST /oauth/token` against
 * node-oidc-provider's token endpoint (bench/oidc-peer.ts), configured alike, in one run and one
 * process. Each side has a fresh PostgreSQL database of the same server, reached through pg.
 * After a warm-up of each, the sides are measured in alternating rounds (ours, peer, ours, peer…),
 * each round with new token families, one per connection, each answer's refresh token being its
 * family's next request (bench/oauth.ts's load generator). Every statement either side sends is
 * counted: statements per grant are its round trips to the database.
 */
import type http from 'node:http';
import pg from 'pg';
import { alignColumns, combine, cpuSince, cpuTimes, figureCells, type Segment } from './figures.ts';
import {
  forkOAuthLoad,
  type OAuthLoadJob,
  refreshFamilies,
  runOAuthLoad,
  startTokenEndpoint,
} from './oauth.ts';
import { startPeerEndpoint } from './oidc-peer.ts';
import type { RoundsOptions } from './rounds.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);

/*
 * Statements sent per database, until `stop()`. pg sends every query (from Kysely, the rate
 * limiter or the peer's adapter) through Client.prototype.query and waits for its answer: one
 * call, one round trip (BEGIN and COMMIT included).
 */
function countStatements(): { sent(database: string): number; stop(): void } {
  const sent = new Map<string, number>();
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    sent.set(this.database ?? '', (sent.get(this.database ?? '') ?? 0) + 1);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return {
    sent: (database) => sent.get(database) ?? 0,
    stop: () => {
      pg.Client.prototype.query = query;
    },
  };
}

/**
 * The grants a server has made (requests ended with status 200), the ones whose answers the load
 * generator no longer waited for included, and a wait until it has none in progress.
 */
function countGrants(server: http.Server): { made(): number; idle(): Promise<void> } {
  let made = 0;
  let open = 0;
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    open++;
    res.on('close', () => {
      open--;
      if (res.statusCode === 200) made++;
    });
  });
  return {
    made: () => made,
    idle: async () => {
      for (let waited = 0; open > 0 && waited < 10_000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

interface Side {
  label: string;
  url: string;
  client: OAuthLoadJob['client'];
  database: string;
  grants: ReturnType<typeof countGrants>;
  families(n: number): Promise<string[]>;
  measured: { segments: Segment[]; statements: number; grants: number };
}

export async function benchTokenPeer(
  options: RoundsOptions,
): Promise<{ lines: string[]; failures: string[] }> {
  log('token endpoint against oidc-provider: fresh databases, servers on 127.0.0.1…');
  const ours = await startTokenEndpoint();
  const peer = await startPeerEndpoint().catch(async (error: unknown) => {
    await ours.close();
    throw error;
  });
  const child = forkOAuthLoad();
  const statements = countStatements();
  try {
    const servery: Side = {
      label: 'servery',
      url: ours.url,
      client: ours.client,
      database: ours.database,
      grants: countGrants(ours.server),
      families: (n) => refreshFamilies(ours.db, ours.tenant, ours.url, ours.client, n),
      measured: { segments: [], statements: 0, grants: 0 },
    };
    const oidcProvider: Side = {
      label: 'oidc-provider',
      url: peer.url,
      client: peer.client,
      database: peer.database,
      grants: countGrants(peer.server),
      families: (n) => peer.families(n),
      measured: { segments: [], statements: 0, grants: 0 },
    };
    const sides = [servery, oidcProvider];
    const failures: string[] = [];
    const run = async (side: Side, duration: number, label: string) => {
      const inputs = await side.families(options.connections);
      const counted = { statements: statements.sent(side.database), grants: side.grants.made() };
      const before = cpuTimes();
      const serverBefore = process.cpuUsage();
      const result = await runOAuthLoad(child, {
        url: side.url,
        client: side.client,
        grant: 'refresh_token',
        inputs,
        connections: options.connections,
        duration,
        amount: 0,
      });
      const used = process.cpuUsage(serverBefore);
      const cpu = cpuSince(before);
      // The grants still in progress when the load stopped end before their statements are read.
      await side.grants.idle();
      if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0)
        failures.push(
          `${side.label} ${label}: ${result.non2xx} non-2xx (status ${JSON.stringify(result.statusCodes)}), ${result.errors} errors, ${result.timeouts} timeouts`,
        );
      return {
        segment: { result, cpu, serverCpu: used.user + used.system } satisfies Segment,
        statements: statements.sent(side.database) - counted.statements,
        grants: side.grants.made() - counted.grants,
      };
    };

    for (const side of sides) {
      log(`${side.label}: refresh grants, warm-up ${options.warmup} s`);
      await run(side, options.warmup, 'warm-up');
    }
    const segment = options.duration / options.rounds;
    for (let round = 1; round <= options.rounds; round++) {
      for (const side of sides) {
        log(`${side.label}: round ${round}/${options.rounds}, refresh grants ${segment} s`);
        const r = await run(side, segment, `round ${round}`);
        side.measured.segments.push(r.segment);
        side.measured.statements += r.statements;
        side.measured.grants += r.grants;
      }
    }

    const figures = (side: Side) => combine(side.measured.segments);
    const rows = sides.map((side) => {
      const f = figures(side);
      return [side.label, ...figureCells(f), (side.measured.statements / side.measured.grants).toFixed(1)];
    });
    const ratio = figures(servery).rps / figures(oidcProvider).rps;
    const table = alignColumns(
      [
        'token endpoint',
        'grants/s',
        'p50 ms',
        'p99 ms',
        'grants',
        'non-2xx',
        'errors',
        'server µs/grant',
        'CPU %',
        'round trips/grant',
      ],
      [...rows, ['ratio servery/oidc-provider', ratio.toFixed(2)]],
      1,
    );
    return {
      lines: [
        '',
        `refresh grants, ${options.connections} connections, one family per connection, ${options.duration} s per side in ${options.rounds} alternating round(s), ${options.warmup} s warm-up`,
        `servery: ${ours.where}; rate limits counted in ${process.env.REDIS_URL ? 'Redis (REDIS_URL)' : 'the table rate_limits'}`,
        `oidc-provider: ${peer.where}`,
        'server µs/grant: CPU time of the bench process (both servers run in it) per answer; CPU %: whole machine',
        '',
        table,
        '',
      ],
      failures,
    };
  } finally {
    statements.stop();
    child.kill();
    try {
      await peer.close();
    } finally {
      await ours.close();
    }
  }
}
