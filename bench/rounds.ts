/*
 * How the HTTP benches measure the routes of one server: a warm-up of each, then alternating
 * rounds (each route in turn, every round), so that whatever drifts during the run (the machine,
 * the database's caches) weighs on every route alike.
 */
import { combine, cpuSince, cpuTimes, type Figures, type Segment } from './figures.ts';
import type { LoadJob, LoadResult } from './load.ts';

/** bench/run.ts's load generator: autocannon in a child process, one job at a time. */
export interface LoadRunner {
  run(job: LoadJob): Promise<LoadResult>;
  /** The jobs at once, each with its own figures. */
  runAll(jobs: readonly LoadJob[]): Promise<LoadResult[]>;
}

export interface RoundsOptions {
  duration: number;
  warmup: number;
  rounds: number;
  connections: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Measures `routes` on the server at `origin`, `options.duration` seconds each over
 * `options.rounds` rounds; their figures in the same order. Any non-2xx answer or error, warm-up
 * included, goes into `failures`.
 */
export async function measureRoutes<Route extends string>(
  kind: string,
  server: { origin: string; headers: Record<string, string> },
  routes: readonly Route[],
  options: RoundsOptions,
  load: LoadRunner,
  failures: string[],
): Promise<Record<Route, Figures>> {
  const job = (path: Route, duration: number): LoadJob => ({
    url: server.origin + path,
    headers: server.headers,
    connections: options.connections,
    duration,
  });
  const check = (label: string, r: LoadResult) => {
    if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0)
      failures.push(
        `${kind} ${label}: ${r.non2xx} non-2xx (status ${JSON.stringify(r.statusCodes)}), ${r.errors} errors, ${r.timeouts} timeouts`,
      );
  };
  log(`${kind}: warm-up ${options.warmup} s per route`);
  for (const path of routes) check(`warm-up ${path}`, await load.run(job(path, options.warmup)));

  const segment = options.duration / options.rounds;
  const segments = Object.fromEntries(routes.map((path) => [path, [] as Segment[]])) as Record<
    Route,
    Segment[]
  >;
  for (let round = 1; round <= options.rounds; round++) {
    for (const path of routes) {
      log(`${kind}: round ${round}/${options.rounds} ${path} ${segment} s`);
      const before = cpuTimes();
      const serverBefore = process.cpuUsage();
      const result = await load.run(job(path, segment));
      const used = process.cpuUsage(serverBefore);
      segments[path].push({ result, cpu: cpuSince(before), serverCpu: used.user + used.system });
      check(`${path} round ${round}`, result);
    }
  }
  return Object.fromEntries(routes.map((path) => [path, combine(segments[path])])) as Record<Route, Figures>;
}
