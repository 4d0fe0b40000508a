import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  createServeryClient,
  type EventsPollerOptions,
  FileCursorStore,
  pollEvents,
  ServeryApiError,
  type ServeryEvent,
} from '@servery/client';
import type { FastifyInstance } from 'fastify';
import { openLimiters } from '../../src/adapters/rate-limit-stores.ts';
import { buildApp } from '../../src/app.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import type { Limiters } from '../../src/domain/shared/limits.ts';
import { feedAll, record } from '../events/events-helpers.ts';
import {
  buildTestApp,
  makeTenant,
  openTestDatabase,
  type Tenant,
  type TestApp,
  TestClock,
  testBaseUrl,
  tokenFor,
} from '../harness.ts';

/*
 * The events poller against the service on a real socket: every event handed out once, in feed
 * order, across a restart from the cursor file, across 429 answers, and past an expired cursor.
 * The poller's waits move the test's clock instead of the timers.
 */

let t: TestApp;
let baseUrl: string;
let dir: string;
before(async () => {
  t = await buildTestApp();
  baseUrl = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/v1`;
  dir = await mkdtemp(path.join(tmpdir(), 'servery-poller-'));
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

let files = 0;
const cursorFile = () => path.join(dir, `cursor-${++files}`);

/** Records `n` order.created events, in order; their data object ids. */
async function recordOrders(test: Pick<TestApp, 'database' | 'ctx'>, tenant: Tenant, n: number) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `order-${i}-${randomUUID()}`;
    // record() reads only the database and the ctx (the rate-limit suite builds its app itself).
    await record(test as TestApp, tenant, 'order.created', { object: { object: 'order', id } });
    ids.push(id);
  }
  return ids;
}

/** A poll that stops once `stopAt(handed)` holds, its handler collecting events; what was handed out. */
async function pollUntil(
  options: Omit<EventsPollerOptions, 'onEvent' | 'signal' | 'onGap'> & {
    onGap?: (after: string) => void;
  },
  stopAt: (handed: ServeryEvent[]) => boolean,
): Promise<ServeryEvent[]> {
  const handed: ServeryEvent[] = [];
  const stop = new AbortController();
  await pollEvents({
    onGap: () => assert.fail('no gap'),
    sleep: async (_ms, signal) => {
      signal?.throwIfAborted();
      assert.fail('no wait expected');
    },
    ...options,
    signal: stop.signal,
    onEvent: (event) => {
      handed.push(event);
      if (stopAt(handed)) stop.abort();
    },
  });
  return handed;
}

describe('pollEvents', () => {
  test('hands out every event once in order, across a restart from the cursor file', async () => {
    const tenant = await makeTenant(t.ctx);
    const client = createServeryClient({ baseUrl, token: tenant.token });
    const file = cursorFile();
    await recordOrders(t, tenant, 7);

    // Stopped in the middle of the second page: the poller finishes the page, stores its cursor.
    const first = await pollUntil(
      { client, cursor: new FileCursorStore(file), limit: 3 },
      (handed) => handed.length === 4,
    );
    assert.equal(first.length, 6);
    assert.equal((await readFile(file, 'utf8')).trim(), first.at(-1)?.id);

    await recordOrders(t, tenant, 3);
    // The feed: the app.connected of the connection, then the 10 orders.
    const all = await feedAll(t, tenant.token);
    assert.equal(all.length, 11);
    // A new poller (a restarted app) on the same file goes on after the stored cursor.
    const second = await pollUntil(
      { client, cursor: new FileCursorStore(file), limit: 3 },
      (handed) => first.length + handed.length === all.length,
    );
    assert.deepEqual(
      [...first, ...second].map((event) => event.id),
      all.map((event) => event.id),
    );
    assert.deepEqual([...first, ...second], all, 'the same envelopes as the feed');
    assert.equal((await readFile(file, 'utf8')).trim(), all.at(-1)?.id);
  });

  test('a handler that throws stops the poller; the next run hands that page out again', async () => {
    const tenant = await makeTenant(t.ctx);
    const client = createServeryClient({ baseUrl, token: tenant.token });
    const file = cursorFile();
    await recordOrders(t, tenant, 4);
    const handed: string[] = [];
    await assert.rejects(
      pollEvents({
        client,
        cursor: new FileCursorStore(file),
        limit: 2,
        onGap: () => assert.fail('no gap'),
        onEvent: (event) => {
          if (handed.length === 3) throw new Error('printer jammed');
          handed.push(event.id);
        },
      }),
      /printer jammed/,
    );
    const all = (await feedAll(t, tenant.token)).map((event) => event.id);
    // Pages of two: app.connected and the first order, then the second and third (the handler
    // threw at the third), then the fourth.
    const again = await pollUntil(
      { client, cursor: new FileCursorStore(file), limit: 2 },
      (h) => h.length === all.length - 2,
    );
    assert.deepEqual(handed, all.slice(0, 3));
    assert.deepEqual(
      again.map((event) => event.id),
      all.slice(2),
    );
  });

  test('without a stored cursor, startAt latest hands out only events from then on', async () => {
    const tenant = await makeTenant(t.ctx);
    const client = createServeryClient({ baseUrl, token: tenant.token });
    const file = cursorFile();
    await recordOrders(t, tenant, 2);
    const waits: number[] = [];
    let newer: string[] = [];
    const handed = await pollUntil(
      {
        client,
        cursor: new FileCursorStore(file),
        startAt: 'latest',
        intervalMs: 2000,
        sleep: async (ms, signal) => {
          signal?.throwIfAborted();
          waits.push(ms);
          // Caught up: while the poller waits, the restaurant gets an order.
          if (waits.length === 1) newer = await recordOrders(t, tenant, 1);
        },
      },
      (h) => h.length === 1,
    );
    assert.deepEqual(waits, [2000]);
    assert.deepEqual(
      handed.map((event) => event.data.object.id),
      newer,
    );
  });

  test('an expired cursor: onGap with it, then the oldest kept events', async () => {
    const tenant = await makeTenant(t.ctx);
    let token = tenant.token;
    const client = createServeryClient({ baseUrl, token: () => token });
    const file = cursorFile();
    await recordOrders(t, tenant, 2);
    const first = await pollUntil(
      { client, cursor: new FileCursorStore(file), types: 'order.*' },
      (h) => h.length === 2,
    );
    const stored = first.at(-1)?.id;
    assert.ok(stored);

    // The app is off for 31 days: its cursor is older than the 30 days events are kept.
    t.clock.advance(31 * 24 * 60 * 60 * 1000);
    token = await tokenFor(t.ctx, tenant, ['orders:read']);
    const kept = await recordOrders(t, tenant, 2);
    const gaps: string[] = [];
    const handed = await pollUntil(
      { client, cursor: new FileCursorStore(file), types: 'order.*', onGap: (after) => gaps.push(after) },
      (h) => h.length === 2,
    );
    assert.deepEqual(gaps, [stored]);
    assert.deepEqual(
      handed.map((event) => event.data.object.id),
      kept,
    );
  });

  test('network failures and 5xx answers are retried with doubling waits', async () => {
    const tenant = await makeTenant(t.ctx);
    const file = cursorFile();
    await recordOrders(t, tenant, 1);
    let calls = 0;
    // What is in front of the service fails the first three requests: no connection, a proxy's
    // 502, no connection.
    const flaky = createServeryClient({
      baseUrl,
      token: tenant.token,
      fetch: async (request) => {
        calls += 1;
        if (calls === 2) return new Response('Bad gateway', { status: 502 });
        if (calls <= 3) throw new TypeError('fetch failed');
        return fetch(request);
      },
    });
    const failures: unknown[] = [];
    const waits: number[] = [];
    const handed = await pollUntil(
      {
        client: flaky,
        cursor: new FileCursorStore(file),
        types: 'order.*',
        minBackoffMs: 500,
        maxBackoffMs: 1500,
        onRetry: (error) => failures.push(error),
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
      (h) => h.length === 1,
    );
    assert.equal(handed.length, 1);
    assert.deepEqual(
      failures.map((error) => (error instanceof ServeryApiError ? error.status : String(error))),
      ['TypeError: fetch failed', 502, 'TypeError: fetch failed'],
    );
    assert.deepEqual(waits, [500, 1000, 1500]);
  });

  test('an answer that cannot get better by asking again (401) stops the poller with the error', async () => {
    const client = createServeryClient({ baseUrl, token: 'svc_at_unknown' });
    await assert.rejects(
      pollEvents({
        client,
        cursor: new FileCursorStore(cursorFile()),
        onGap: () => {},
        onEvent: () => assert.fail('no event'),
      }),
      { name: 'ServeryApiError', status: 401, code: 'unauthorized' },
    );
  });
});

/** A test clock like the operator's sandbox clock: its moves start the rate-limit windows anew. */
class ShiftingClock extends TestClock {
  offsetMs = 0;
  override advance(ms: number): void {
    super.advance(ms);
    this.offsetMs += ms;
  }
}

describe('pollEvents and the rate limit', () => {
  let app: FastifyInstance;
  let limiters: Limiters;
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  const clock = new ShiftingClock();
  before(async () => {
    database = await openTestDatabase();
    // Two requests per connection and window, so the poller meets 429 within a few pages.
    limiters = await openLimiters({ db: database.db, clock }, { points: 2 });
    app = await buildApp({ config: { baseUrl: testBaseUrl }, db: database.db, clock, limiters });
  });
  after(async () => {
    await app.close();
    await limiters.close();
    await database.close();
  });

  test('waits Retry-After on 429 and hands out every event once, in order', async () => {
    const ctx = systemCtx(database.db, clock);
    const tenant = await makeTenant(ctx);
    const origin = await app.listen({ host: '127.0.0.1', port: 0 });
    const client = createServeryClient({ baseUrl: `${origin}/v1`, token: tenant.token });
    const recorded = await recordOrders({ database, ctx }, tenant, 7);
    const refusals: ServeryApiError[] = [];
    const waits: number[] = [];
    const handed = await pollUntil(
      {
        client,
        cursor: new FileCursorStore(cursorFile()),
        types: 'order.*',
        limit: 2,
        onRetry: (error) => refusals.push(error as ServeryApiError),
        sleep: async (ms) => {
          waits.push(ms);
          clock.advance(ms);
        },
      },
      (h) => h.length === 7,
    );
    assert.deepEqual(
      handed.map((event) => event.data.object.id),
      recorded,
    );
    // Pages 1 and 2, then 429; after the wait pages 3 and 4.
    assert.equal(refusals.length, 1);
    const [refusal] = refusals;
    assert.equal(refusal?.status, 429);
    assert.equal(refusal?.code, 'rate_limited');
    assert.ok(refusal?.retryAfter && refusal.retryAfter > 0 && refusal.retryAfter <= 60);
    assert.deepEqual(waits, [refusal.retryAfter * 1000]);
  });
});
