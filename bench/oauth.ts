/*
 * The token endpoint under load, on PostgreSQL (part of `npm run bench`): code exchanges/s and
 * refresh-token grants/s of a confidential client (client_secret_post). Every grant uses its
 * input up, so each request carries a body of its own:
 * - exchanges: codes minted beforehand (issueAuthorizationCode), one per request, their number
 *   set from a warm-up's rate so that they last about the measured duration;
 * - refreshes: one token family per connection; each answer's refresh token goes back into the
 *   pool the next request takes from, so every family rotates as a client would.
 * The load generator is this file in a child process (autocannon's `requests` with
 * setupRequest/onResponse); the rate limits count as in the service, with a limit never reached.
 */

import { type ChildProcess, fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import type http from 'node:http';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import { openLimiters } from '../src/adapters/rate-limit-stores.ts';
import { buildApp } from '../src/app.ts';
import type { Db } from '../src/db/client.ts';
import { issueAuthorizationCode } from '../src/domain/oauth/authorization-codes.ts';
import { systemCtx } from '../src/domain/shared/context.ts';
import { newId, newSecret, sha256 } from '../src/domain/shared/ids.ts';
import { makeTenant, type Tenant } from '../test/harness.ts';
import { openBenchDatabase } from './databases.ts';
import type { LoadResult } from './load.ts';

declare module 'autocannon' {
  interface Options {
    amount?: number;
    requests?: Array<{
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      setupRequest?: (request: { body?: string }, context: object) => { body?: string };
      onResponse?: (status: number, body: string, context: object) => void;
    }>;
  }
}

const redirectUri = 'https://app.example.test/callback';

type Grant = 'authorization_code' | 'refresh_token';

/** One load run: codes to exchange, one per request, or the refresh tokens the families start with. */
export interface OAuthLoadJob {
  url: string;
  client: { client_id: string; client_secret: string };
  grant: Grant;
  inputs: Array<{ code: string; verifier: string }> | string[];
  connections: number;
  /** Seconds (refresh grants). */
  duration: number;
  /** Requests (code exchanges). */
  amount: number;
}

export interface OAuthBenchOptions {
  duration: number;
  warmup: number;
  connections: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The app on a fresh PostgreSQL database with one confidential client, listening on 127.0.0.1. */
export interface TokenEndpoint {
  /** http://127.0.0.1:<port>/oauth/token */
  url: string;
  client: OAuthLoadJob['client'];
  server: http.Server;
  db: Db;
  tenant: Tenant;
  /** The database's name, and where it is for the report (no password). */
  database: string;
  where: string;
  close(): Promise<void>;
}

/*
 * The rate limits count as in the service (PostgreSQL table rate_limits, or Redis with REDIS_URL),
 * with a limit never reached: the bench measures what counting costs, not refusals.
 */
export async function startTokenEndpoint(): Promise<TokenEndpoint> {
  const bench = await openBenchDatabase('postgres');
  const db = bench.database.db;
  const limiters = await openLimiters(
    { db, redisUrl: process.env.REDIS_URL || null },
    { points: 1_000_000_000 },
  );
  let app: FastifyInstance | null = null;
  const close = async () => {
    try {
      await app?.close();
      await limiters.close();
    } finally {
      await bench.dispose();
    }
  };
  try {
    const tenant = await makeTenant(systemCtx(db));
    const secret = newSecret('svc_cs_');
    await db
      .insertInto('app_secrets')
      .values({
        id: newId(),
        app_id: tenant.appId,
        secret_hash: sha256(secret),
        created_at: new Date(),
        expires_at: null,
      })
      .execute();
    app = await buildApp({ config: { baseUrl: 'http://127.0.0.1' }, db, limiters });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    return {
      url: `http://127.0.0.1:${address.port}/oauth/token`,
      client: { client_id: tenant.clientId, client_secret: secret },
      server: app.server,
      db,
      tenant,
      database: new URL(bench.url ?? '').pathname.slice(1),
      where: bench.where,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs the bench on a fresh PostgreSQL database; returns the report's lines and any failures. */
export async function benchOAuth(
  options: OAuthBenchOptions,
): Promise<{ lines: string[]; failures: string[] }> {
  log('postgres: token endpoint bench: fresh database, client, server on 127.0.0.1…');
  const endpoint = await startTokenEndpoint();
  const child = forkOAuthLoad();
  try {
    const { url, client, db, tenant } = endpoint;
    const run = (job: Omit<OAuthLoadJob, 'url' | 'client' | 'connections'>) =>
      runOAuthLoad(child, { ...job, url, client, connections: options.connections });
    const families = () => refreshFamilies(db, tenant, url, client, options.connections);

    const warmAmount = options.connections * 20;
    log(`postgres: code exchanges, warm-up of ${warmAmount} requests`);
    const warm = await run({
      grant: 'authorization_code',
      inputs: await mintCodes(db, tenant, warmAmount + options.connections),
      duration: 0,
      amount: warmAmount,
    });
    const amount = Math.max(warmAmount, Math.round((warm.requests / warm.seconds) * options.duration));
    log(`postgres: code exchanges, ${amount} requests (about ${options.duration} s)`);
    const exchanges = await run({
      grant: 'authorization_code',
      inputs: await mintCodes(db, tenant, amount + options.connections),
      duration: 0,
      amount,
    });

    log(`postgres: refresh grants, ${options.warmup} s warm-up, then ${options.duration} s`);
    const warmRefresh = await run({
      grant: 'refresh_token',
      inputs: await families(),
      duration: options.warmup,
      amount: 0,
    });
    const refreshes = await run({
      grant: 'refresh_token',
      inputs: await families(),
      duration: options.duration,
      amount: 0,
    });

    const failures: string[] = [];
    for (const [label, r] of [
      ['code exchanges (warm-up)', warm],
      ['code exchanges', exchanges],
      ['refresh grants (warm-up)', warmRefresh],
      ['refresh grants', refreshes],
    ] as const) {
      if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
        failures.push(
          `postgres ${label}: ${r.non2xx} non-2xx (status ${JSON.stringify(r.statusCodes)}), ${r.errors} errors, ${r.timeouts} timeouts`,
        );
      }
    }
    return {
      lines: [
        `token endpoint on postgres: ${endpoint.where}, ${options.connections} connections, confidential client (client_secret_post)`,
        row('code exchanges', exchanges),
        row('refresh grants', refreshes),
        '',
      ],
      failures,
    };
  } finally {
    child.kill();
    await endpoint.close();
  }
}

function exchangeBody(client: OAuthLoadJob['client'], code: string, verifier: string): string {
  const params = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  };
  return new URLSearchParams({ ...params, ...client }).toString();
}

function refreshBody(client: OAuthLoadJob['client'], refreshToken: string): string {
  return new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...client,
  }).toString();
}

/** One new family per connection: its first refresh token, from a code exchange at `url`. */
export function refreshFamilies(
  db: Db,
  tenant: Tenant,
  url: string,
  client: OAuthLoadJob['client'],
  n: number,
): Promise<string[]> {
  return mintCodes(db, tenant, n).then((codes) =>
    Promise.all(
      codes.map(async ({ code, verifier }) => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: exchangeBody(client, code, verifier),
        });
        if (res.status !== 200) throw new Error(`code exchange for the refresh bench: ${res.status}`);
        return ((await res.json()) as { refresh_token: string }).refresh_token;
      }),
    ),
  );
}

/** Codes of the tenant's connection, minted as the consent page does, ten at a time. */
async function mintCodes(
  db: Db,
  tenant: Tenant,
  n: number,
): Promise<Array<{ code: string; verifier: string }>> {
  const ctx = systemCtx(db);
  const minted: Array<{ code: string; verifier: string }> = [];
  for (let start = 0; start < n; start += 10) {
    const batch = Array.from({ length: Math.min(10, n - start) }, async () => {
      const verifier = randomBytes(32).toString('base64url');
      const code = await issueAuthorizationCode(ctx, {
        tenantId: tenant.restaurantId,
        connectionId: tenant.connectionId,
        appId: tenant.appId,
        scopes: ['orders:read', 'menu:read'],
        redirectUri,
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      });
      return { code, verifier };
    });
    minted.push(...(await Promise.all(batch)));
  }
  return minted;
}

function row(label: string, r: LoadResult): string {
  const sorted = r.latencies.slice().sort();
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return `  ${label.padEnd(15)} ${(r.requests / r.seconds).toFixed(0).padStart(6)} req/s  p50 ${at(0.5).toFixed(2)} ms  p99 ${at(0.99).toFixed(2)} ms  (${r.requests} requests, ${r.non2xx} non-2xx, ${r.errors + r.timeouts} errors)`;
}

/** The load generator of the token endpoint benches: this file in a child process. */
export function forkOAuthLoad(): ChildProcess {
  return fork(new URL(import.meta.url), ['--oauth-load'], {
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

export function runOAuthLoad(child: ChildProcess, job: OAuthLoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const onExit = () => reject(new Error('the OAuth load generator exited'));
    child.once('exit', onExit);
    child.once('message', (message: { ok: true; result: LoadResult } | { ok: false; error: string }) => {
      child.off('exit', onExit);
      if (message.ok) resolve(message.result);
      else reject(new Error(`OAuth load generator: ${message.error}`));
    });
    child.send(job);
  });
}

/** The child's side: one job at a time. */
async function load(job: OAuthLoadJob): Promise<LoadResult> {
  // Bodies not yet sent; a refresh answer puts its new refresh token back for the next request.
  const pending = job.inputs.map((input) =>
    typeof input === 'string'
      ? refreshBody(job.client, input)
      : exchangeBody(job.client, input.code, input.verifier),
  );
  const latencies: number[] = [];
  const instance = autocannon({
    url: job.url,
    connections: job.connections,
    pipelining: 1,
    timeout: 10,
    ...(job.amount > 0 ? { amount: job.amount } : { duration: job.duration }),
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        setupRequest: (request) => ({ ...request, body: pending.shift() ?? 'grant_type=none' }),
        onResponse: (status, body) => {
          if (job.grant === 'refresh_token' && status === 200) {
            pending.push(
              refreshBody(job.client, (JSON.parse(body) as { refresh_token: string }).refresh_token),
            );
          }
        },
      },
    ],
  });
  instance.on('response', (_client, _status, _bytes, ms) => {
    latencies.push(ms);
  });
  const result = await instance;
  return {
    requests: latencies.length,
    seconds: result.duration,
    latencies: Float64Array.from(latencies),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]),
    ),
  };
}

if (process.argv.includes('--oauth-load') && process.send) {
  process.on('message', (job: OAuthLoadJob) => {
    load(job).then(
      (result) => process.send?.({ ok: true, result }),
      (error: unknown) => process.send?.({ ok: false, error: String((error as Error)?.stack ?? error) }),
    );
  });
}
