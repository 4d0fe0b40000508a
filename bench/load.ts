/*
 * The load generator of `npm run bench`, run by bench/run.ts as a child process so that
 * autocannon's own work (HTTP parsing, timers, GC) happens on the other core and does not
 * share an event loop with the server it measures. It takes one job (or a list of jobs run at
 * once) at a time over IPC and answers with the figures of that job (of each).
 */
import autocannon from 'autocannon';

export interface LoadJob {
  url: string;
  headers: Record<string, string>;
  /** GET unless told; a POST or PUT sends `body` with every request. */
  method?: 'GET' | 'POST' | 'PUT';
  body?: string;
  connections: number;
  /** Seconds. */
  duration: number;
}

export interface LoadResult {
  /** Responses received (any status). */
  requests: number;
  /** Seconds the run lasted, as autocannon measured it. */
  seconds: number;
  /** Every response's latency in ms (fractional: autocannon's own histogram rounds to whole ms). */
  latencies: Float64Array;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Responses per minute of the run, in order (the last minute may be partial); autocannon runs only. */
  perMinute?: number[];
}

async function run(job: LoadJob): Promise<LoadResult> {
  const latencies: number[] = [];
  const perMinute: number[] = [];
  const start = Date.now();
  const instance = autocannon({
    url: job.url,
    headers: job.headers,
    ...(job.method && { method: job.method }),
    ...(job.body !== undefined && { body: job.body }),
    connections: job.connections,
    duration: job.duration,
    pipelining: 1,
    timeout: 10,
  });
  instance.on('response', (_client, _status, _bytes, ms) => {
    latencies.push(ms);
    const minute = Math.floor((Date.now() - start) / 60_000);
    perMinute[minute] = (perMinute[minute] ?? 0) + 1;
  });
  const result = await instance;
  return {
    requests: latencies.length,
    seconds: result.duration,
    latencies: Float64Array.from(latencies),
    perMinute: Array.from(perMinute, (count) => count ?? 0),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, stats]) => [code, stats.count]),
    ),
  };
}

if (process.send) {
  // A list of jobs runs at once (bench/mix.ts), each with its own figures.
  process.on('message', (job: LoadJob | LoadJob[]) => {
    (Array.isArray(job) ? Promise.all(job.map(run)) : run(job)).then(
      (result) => process.send?.({ ok: true, result }),
      (error: unknown) => process.send?.({ ok: false, error: String((error as Error)?.stack ?? error) }),
    );
  });
}
