/*
 * The sandbox clock (SANDBOX_CLOCK): `servery clock advance`, run beside the running service,
 * moves the time of every rule: a webhook retry falls due at once, a rate-limit window ends, a
 * pause ends, an access token expires; `clock reset` brings the system time back. Off by default
 * and refused in production mode.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import Stripe from 'stripe';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { setAppWebhook } from '../../src/domain/webhooks/app-webhook.service.ts';
import { makeTenant } from '../harness.ts';
import { eventually, hangCatcherMs } from '../waiting.ts';
import {
  bearer,
  cliPath,
  killServices,
  migratedDatabase,
  type ServiceDatabase,
  startService,
  withDatabase,
} from './service.ts';

let database: ServiceDatabase | null = null;
let closeReceiver: (() => Promise<void>) | null = null;
after(async () => {
  await killServices();
  await closeReceiver?.();
  await database?.remove();
});

interface Arrival {
  type: string;
  attempt: number;
  /** Real time of arrival (Date.now()). */
  at: number;
  body: string;
  signature: string;
}

/** A webhook receiver that answers 500 to the first attempt of `store.paused`, 200 to the rest. */
async function startReceiver(): Promise<{ url: string; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrival = {
        type: String(req.headers['service-event-type']),
        attempt: Number(req.headers['service-delivery-attempt']),
        at: Date.now(),
        body: Buffer.concat(chunks).toString('utf8'),
        signature: String(req.headers['service-signature']),
      };
      arrivals.push(arrival);
      res.writeHead(arrival.type === 'store.paused' && arrival.attempt === 1 ? 500 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closeReceiver = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, arrivals };
}

/** `servery <args>` on the service's database, with `env` added. */
function servery(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent' };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'SANDBOX_CLOCK'])
    delete base[name];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cliPath, ...args],
      { env: { ...base, ...database?.env, ...env }, timeout: hangCatcherMs },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

/** `servery clock advance <duration> --json` with the setting on: the new offset in seconds. */
async function advance(duration: string): Promise<number> {
  const run = await servery({ SANDBOX_CLOCK: 'true' }, 'clock', 'advance', duration, '--json');
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout).offset_seconds;
}

// The service reads the clock's offset every second: what a move changes is awaited with `eventually`.

test('the clock moves forward for a running service: a retry goes now, windows and a pause end, a token expires', {
  timeout: hangCatcherMs,
}, async (t) => {
  database = await migratedDatabase();
  const receiver = await startReceiver();
  const { tenant, secret } = await withDatabase(database, async ({ db }) => {
    const ctx = systemCtx(db);
    const made = await makeTenant(ctx, { livemode: false });
    const webhook = await setAppWebhook(ctx, {
      clientId: made.clientId,
      developerId: null,
      url: receiver.url,
      events: ['store.*'],
      rules: { allowInsecure: true },
    });
    return { tenant: made, secret: webhook.secret as string };
  });
  const service = await startService({
    database,
    env: { DEMO_DATA: 'false', SANDBOX_CLOCK: 'true', WEBHOOKS_ALLOW_INSECURE: 'true' },
  });
  await service.ready();
  const api = (path: string, init: RequestInit = {}, token = tenant.token) =>
    fetch(`${service.url}/v1${path}`, {
      ...init,
      headers: { ...bearer(token), 'content-type': 'application/json' },
    });
  const storeStatus = async () => ((await (await api('/store')).json()) as { status: string }).status;

  // A webhook retry: attempt 1 fails, attempt 2 is due a minute later by the clock.
  const paused = await api('/store/pause', {
    method: 'POST',
    body: JSON.stringify({ until: new Date(Date.now() + 10 * 60_000).toISOString() }),
  });
  assert.equal(paused.status, 200, await paused.text());
  const attempt = (n: number) => receiver.arrivals.find((a) => a.type === 'store.paused' && a.attempt === n);
  await eventually('attempt 1 of store.paused', () => attempt(1) !== undefined);
  // 30 requests with an unknown token a minute per address; the 31st is refused.
  const unknown = () => api('/me', {}, 'svc_at_unknown').then((response) => response.status);
  for (let i = 0; i < 30; i++) assert.equal(await unknown(), 401);
  assert.equal(await unknown(), 429);

  assert.equal(await advance('61s'), 61);
  await eventually('attempt 2 of store.paused', () => attempt(2) !== undefined);
  // Due a minute after attempt 1 by the clock: before a minute of real time has passed, only the
  // move can have made it due. (On a machine so busy that a minute passed, it shows nothing.)
  const waited = (attempt(2)?.at ?? 0) - (attempt(1)?.at ?? 0);
  if (waited >= 60_000) t.diagnostic(`attempt 2 came ${waited} ms after attempt 1: the move is not shown`);
  await eventually('a new window for unknown tokens', async () => (await unknown()) === 401);
  assert.equal(await storeStatus(), 'paused', 'the pause ends in 10 minutes');

  assert.equal(await advance('10m'), 661);
  await eventually('the pause ended', async () => (await storeStatus()) !== 'paused');
  // The worker lifts the ended pause by the clock too (every 5 s).
  await eventually('store.resumed sent', () => receiver.arrivals.some((a) => a.type === 'store.resumed'));
  // Signed at the system time, which receivers check against their own clock (5 minutes) when it
  // arrives.
  const resumed = receiver.arrivals.find((a) => a.type === 'store.resumed') as Arrival;
  const verifier = Stripe.webhooks.signature;
  assert.ok(verifier);
  verifier.verifyHeader(resumed.body, resumed.signature, secret, 300, undefined, resumed.at);

  // An access token lives one hour.
  assert.equal((await api('/me')).status, 200);
  assert.equal(await advance('1h'), 4261);
  await eventually('the access token expired', async () => (await api('/me')).status === 401);

  const showStarted = Date.now();
  const show = await servery({ SANDBOX_CLOCK: 'true' }, 'clock', 'show', '--json');
  const showEnded = Date.now();
  assert.equal(show.code, 0, show.stderr);
  const shown = JSON.parse(show.stdout);
  assert.equal(shown.offset_seconds, 4261);
  // The system time while the command ran, 4261 s on.
  const moved = Date.parse(shown.now) - 4261_000;
  assert.ok(moved >= showStarted && moved <= showEnded, `${shown.now}: not 4261 s after the system time`);

  const reset = await servery({ SANDBOX_CLOCK: 'true' }, 'clock', 'reset');
  assert.equal(reset.code, 0, reset.stderr);
  assert.match(reset.stdout, /0s ahead of the system clock/);
  await eventually('the token valid again at the system time', async () => (await api('/me')).status === 200);
  assert.deepEqual(await service.stop(), { code: 0, signal: null });
});

test('off by default: the clock commands are refused and change nothing', async () => {
  database ??= await migratedDatabase();
  for (const args of [['advance', '61s'], ['show']]) {
    const run = await servery({}, 'clock', ...args);
    assert.equal(run.code, 2, args.join(' '));
    assert.match(run.stderr, /^servery: clock \w+: the sandbox clock is off .*SANDBOX_CLOCK=true/);
  }
  const offset = await withDatabase(database, ({ db }) =>
    db.selectFrom('sandbox_clock').select('offset_seconds').executeTakeFirstOrThrow(),
  );
  assert.equal(offset.offset_seconds, 0);
  const bad = await servery({ SANDBOX_CLOCK: 'true' }, 'clock', 'advance', '61');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /the duration must be like 61s, 90m, 1h30m or 2d, got "61"/);
});

test('refused in production mode (NODE_ENV=production): the service does not start', async () => {
  const service = await startService({
    database: null,
    env: { SANDBOX_CLOCK: 'true', NODE_ENV: 'production' },
  });
  assert.deepEqual(await service.waitForExit(), { code: 2, signal: null });
  assert.match(
    service.stderr(),
    /SANDBOX_CLOCK is for development and tests: it cannot be on in production mode/,
  );
  const cli = await servery({ SANDBOX_CLOCK: 'true', NODE_ENV: 'production' }, 'clock', 'advance', '61s');
  assert.equal(cli.code, 2);
  assert.match(cli.stderr, /cannot be on in production mode/);
});
