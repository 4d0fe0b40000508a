/*
 * The figures the benches report and how they print: the machine's CPU time, percentiles, a
 * route's figures over its measured rounds (bench/rounds.ts) and the aligned text tables.
 */
import os from 'node:os';
import type { LoadResult } from './load.ts';

/** CPU time of the whole machine (every core, every process), in ms. */
export interface CpuTimes {
  busy: number;
  total: number;
}

export function cpuTimes(): CpuTimes {
  let busy = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    const all = times.user + times.nice + times.sys + times.irq + times.idle;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

export function cpuSince(from: CpuTimes): CpuTimes {
  const now = cpuTimes();
  return { busy: now.busy - from.busy, total: now.total - from.total };
}

/** How busy the machine was, 0-100 % of all cores. */
export const busyPercent = (cpu: CpuTimes): number => (cpu.busy / cpu.total) * 100;

/** The value at quantile `q` of ascending values; NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/** One autocannon run of a route and how busy the machine was meanwhile. */
export interface Segment {
  result: LoadResult;
  cpu: CpuTimes;
  /** CPU time of this (the server's) process meanwhile, in µs; PGlite runs in it too. */
  serverCpu: number;
}

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** CPU time of the server process per response, µs. */
  serverCpuPerRequest: number;
  /** Machine CPU busy meanwhile, 0-100 % of all cores. */
  cpuPercent: number;
}

/** The figures of one route over all its measured rounds. */
export function combine(segments: readonly Segment[]): Figures {
  const sum = (f: (s: Segment) => number) => segments.reduce((n, s) => n + f(s), 0);
  const latencies = new Float64Array(sum((s) => s.result.latencies.length));
  let offset = 0;
  for (const { result } of segments) {
    latencies.set(result.latencies, offset);
    offset += result.latencies.length;
  }
  latencies.sort();
  const requests = sum((s) => s.result.requests);
  return {
    rps: requests / sum((s) => s.result.seconds),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    requests,
    non2xx: sum((s) => s.result.non2xx),
    errors: sum((s) => s.result.errors + s.result.timeouts),
    serverCpuPerRequest: sum((s) => s.serverCpu) / requests,
    cpuPercent: busyPercent({ busy: sum((s) => s.cpu.busy), total: sum((s) => s.cpu.total) }),
  };
}

/** A text table: the first `left` columns aligned left, the others (numbers) right. */
export function alignColumns(header: readonly string[], rows: readonly string[][], left: number): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i < left ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** One database's routes (in the order they were measured) and the ratios of their req/s. */
/** A measured route's cells in a table: req/s, p50, p99, requests, non-2xx, errors, server µs/req, CPU %. */
export function figureCells(f: Figures): string[] {
  return [
    f.rps.toFixed(0),
    f.p50.toFixed(2),
    f.p99.toFixed(2),
    String(f.requests),
    String(f.non2xx),
    String(f.errors),
    f.serverCpuPerRequest.toFixed(0),
    f.cpuPercent.toFixed(0),
  ];
}

export interface RouteRun {
  kind: string;
  figures: Readonly<Record<string, Figures>>;
  ratios: ReadonlyArray<readonly [label: string, ratio: number]>;
}

/** The table of the HTTP benches: a row per database and route, then that database's ratios. */
export function routeTable(runs: readonly RouteRun[]): string {
  const header = [
    'database',
    'route',
    'req/s',
    'p50 ms',
    'p99 ms',
    'requests',
    'non-2xx',
    'errors',
    'server µs/req',
    'CPU %',
  ];
  const rows: string[][] = [];
  for (const { kind, figures, ratios } of runs) {
    for (const [path, f] of Object.entries(figures)) {
      rows.push([kind, `GET ${path}`, ...figureCells(f)]);
    }
    for (const [label, ratio] of ratios) rows.push([kind, label, ratio.toFixed(3)]);
  }
  return alignColumns(header, rows, 2);
}
