import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { stampAllEventPositions } from '../../src/domain/events/positions.ts';
import { enqueueJob } from '../../src/domain/jobs/jobs.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { setAppWebhook } from '../../src/domain/webhooks/app-webhook.service.ts';
import { fanOutDeliveries } from '../../src/domain/webhooks/delivery-fanout.ts';
import {
  createMetrics,
  type Metrics,
  type MetricsServer,
  serveMetrics,
} from '../../src/observability/metrics.ts';
import { type JobHandler, type JobHandlers, runDueJobs } from '../../src/worker/job-queue.ts';
import { WebhookSender } from '../../src/worker/webhook-sender.ts';
import { jobs } from '../../src/worker/worker.ts';
import { bearer, makeTenant, openTestDatabase, type Tenant, TestClock, testBaseUrl } from '../harness.ts';
import {
  freePort,
  killServices,
  migratedDatabase,
  type ServiceDatabase,
  startService,
} from '../operations/service.ts';
import { eventually, hangCatcherMs } from '../waiting.ts';
import { settings, startReceiver } from '../webhooks/delivery-helpers.ts';

const log = pino({ level: 'silent' });
let database: Awaited<ReturnType<typeof openTestDatabase>>;
const clock = new TestClock();
let metrics: Metrics;
let app: FastifyInstance;
let publicUrl: string;
let metricsServer: MetricsServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

before(async () => {
  database = await openTestDatabase();
  metrics = createMetrics(database.db, clock);
  app = await buildApp({
    config: { baseUrl: testBaseUrl, webhooksAllowInsecure: true },
    db: database.db,
    clock,
    metrics,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  publicUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  metricsServer = await serveMetrics({ host: '127.0.0.1', port: 0 }, metrics, log);
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await metricsServer.close();
  await app.close();
  await database.close();
});

/** One sample of a scrape: its metric name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** GET /metrics on the metrics listener, parsed (the text format: `name{a="b",…} value`). */
async function scrape(): Promise<Sample[]> {
  const response = await fetch(`http://127.0.0.1:${metricsServer.port}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const samples: Sample[] = [];
  for (const line of (await response.text()).split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[key as string] = value as string;
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample with this name and (at least) these labels; undefined if none. */
function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
  );
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value;
}

function request(method: string, path: string, token?: string, body?: unknown): Promise<Response> {
  return fetch(`${publicUrl}${path}`, {
    method,
    headers: {
      ...(token && bearer(token)),
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('the metrics listener', () => {
  test('serves /metrics and nothing else; the public port has no /metrics', async () => {
    const samples = await scrape();
    assert.ok(sampleValue(samples, 'process_resident_memory_bytes'), 'default process metrics');
    assert.notEqual(sampleValue(samples, 'nodejs_eventloop_lag_seconds'), undefined, 'event loop lag');
    assert.equal((await fetch(`http://127.0.0.1:${metricsServer.port}/`)).status, 404);
    assert.equal(
      (await fetch(`http://127.0.0.1:${metricsServer.port}/metrics`, { method: 'POST' })).status,
      404,
    );
    const onPublicPort = await fetch(`${publicUrl}/metrics`);
    assert.equal(onPublicPort.status, 404);
    assert.doesNotMatch(await onPublicPort.text(), /servery_/);
  });

  test('reports the database pool on PostgreSQL, and none on PGlite', async () => {
    const samples = await scrape();
    const pool = sampleValue(samples, 'servery_db_pool_connections');
    if (database.url) {
      assert.ok((pool ?? 0) >= 1, 'the pool holds the connections it opened');
      // The scrape's own queue query may be waiting for its connection.
      assert.ok((sampleValue(samples, 'servery_db_pool_waiting_requests') ?? -1) >= 0);
      assert.notEqual(sampleValue(samples, 'servery_db_pool_idle_connections'), undefined);
    } else assert.equal(pool, undefined);
  });
});

describe('HTTP requests', () => {
  test('are counted by method, route pattern (never the address with its ids) and status', async () => {
    const tenant = await makeTenant(systemCtx(database.db, clock));
    assert.equal((await request('GET', '/v1/store', tenant.token)).status, 200);
    assert.equal((await request('GET', '/v1/store', tenant.token)).status, 200);
    const unmatchedBefore = sampleValue(await scrape(), 'servery_http_requests_total', {
      method: 'GET',
      route: 'unmatched',
      status: '404',
    });
    assert.equal((await request('GET', '/v1/store')).status, 401);
    const closure = await request('DELETE', '/v1/store/closures/2031-12-24', tenant.token);
    assert.equal(closure.status, 404);
    assert.equal((await request('GET', '/no/such/page-4711')).status, 404);

    const samples = await scrape();
    const count = (labels: Record<string, string>) =>
      sampleValue(samples, 'servery_http_requests_total', labels);
    assert.equal(count({ method: 'GET', route: '/v1/store', status: '200' }), 2);
    assert.equal(count({ method: 'GET', route: '/v1/store', status: '401' }), 1);
    assert.equal(count({ method: 'DELETE', route: '/v1/store/closures/:date', status: '404' }), 1);
    assert.equal(count({ method: 'GET', route: 'unmatched', status: '404' }), (unmatchedBefore ?? 0) + 1);
    const routes = samples.filter((s) => s.name.startsWith('servery_http_')).map((s) => s.labels.route);
    assert.ok(
      !routes.some((route) => route?.includes('2031') || route?.includes('4711')),
      'no raw addresses',
    );
    const latency = (suffix: string, labels: Record<string, string> = {}) =>
      sampleValue(samples, `servery_http_request_duration_seconds_${suffix}`, {
        method: 'GET',
        route: '/v1/store',
        ...labels,
      });
    assert.equal(latency('count'), 3);
    assert.equal(latency('bucket', { le: '+Inf' }), 3);
    assert.ok((latency('sum') ?? 0) > 0);
  });
});

describe('webhook deliveries', () => {
  const deliveryJob = jobs.find((job) => job.name === 'deliver webhooks');
  /** One run of the worker's delivery job with these metrics, until its outcomes are written. */
  async function runDeliveries(): Promise<void> {
    assert.ok(deliveryJob);
    const sender = new WebhookSender(database.db, clock, settings, log, metrics);
    await deliveryJob.run(database.db, clock, {
      log,
      emailTransport: { send: async () => {} },
      webhooks: sender,
    });
    await sender.idle();
  }
  const ctx = () => systemCtx(database.db, clock);
  async function webhookTo(tenant: Tenant, path: string): Promise<void> {
    await setAppWebhook(ctx(), {
      clientId: tenant.clientId,
      developerId: null,
      url: `${receiver.base}${path}`,
      events: ['store.*'],
      rules: { allowInsecure: true },
    });
  }
  /** POST /v1/store/pause: an event, store.paused, for the tenant's webhook. */
  async function pauseStore(tenant: Tenant): Promise<void> {
    assert.equal((await request('POST', '/v1/store/pause', tenant.token, {})).status, 200);
  }
  const outcomes = async () => {
    const samples = await scrape();
    const count = (outcome: string) =>
      sampleValue(samples, 'servery_webhook_deliveries_total', { outcome }) ?? 0;
    return { success: count('success'), failure: count('failure'), given_up: count('given_up') };
  };

  test('the queue depth and the age of the oldest due delivery move; a delivery counts as success', async () => {
    const tenant = await makeTenant(ctx(), { livemode: false });
    await webhookTo(tenant, '/ok/queue');
    const before = await outcomes();
    let samples = await scrape();
    assert.equal(sampleValue(samples, 'servery_webhook_queue_due'), 0);
    assert.equal(sampleValue(samples, 'servery_webhook_queue_oldest_due_age_seconds'), 0);

    const awaiting = sampleValue(samples, 'servery_webhook_events_awaiting_fanout') ?? 0;
    await pauseStore(tenant);
    samples = await scrape();
    assert.equal(
      sampleValue(samples, 'servery_webhook_events_awaiting_fanout'),
      awaiting + 1,
      'store.paused',
    );
    assert.equal(sampleValue(samples, 'servery_webhook_queue_due'), 0);
    // The worker's first steps, without the send: the delivery is queued, due at once.
    await stampAllEventPositions(database.db);
    await fanOutDeliveries(database.db, clock);
    clock.advance(30_000);
    samples = await scrape();
    assert.equal(sampleValue(samples, 'servery_webhook_events_awaiting_fanout'), 0);
    assert.equal(sampleValue(samples, 'servery_webhook_queue_due'), 1);
    assert.equal(sampleValue(samples, 'servery_webhook_queue_oldest_due_age_seconds'), 30);

    await runDeliveries();
    samples = await scrape();
    assert.equal(sampleValue(samples, 'servery_webhook_queue_due'), 0);
    assert.equal(sampleValue(samples, 'servery_webhook_queue_scheduled'), 0);
    assert.equal(sampleValue(samples, 'servery_webhook_queue_oldest_due_age_seconds'), 0);
    assert.equal(receiver.received.filter((r) => r.path === '/ok/queue').length, 1);
    assert.deepEqual(await outcomes(), { ...before, success: before.success + 1 });
    assert.ok(
      (sampleValue(samples, 'servery_webhook_send_duration_seconds_count') ?? 0) >= 1,
      'the send is timed',
    );
  });

  test('a failure with attempts left is a failure, one after the last attempt is given_up', async () => {
    const tenant = await makeTenant(ctx(), { livemode: false });
    await webhookTo(tenant, '/fail/metrics');
    const before = await outcomes();
    await pauseStore(tenant);
    await runDeliveries();
    let samples = await scrape();
    assert.equal(sampleValue(samples, 'servery_webhook_queue_due'), 0);
    assert.equal(
      sampleValue(samples, 'servery_webhook_queue_scheduled'),
      1,
      'attempt 2 comes a minute later',
    );
    assert.deepEqual(await outcomes(), { ...before, failure: before.failure + 1 });
    clock.advance(60_000);
    samples = await scrape();
    assert.equal(sampleValue(samples, 'servery_webhook_queue_due'), 1);
    assert.equal(sampleValue(samples, 'servery_webhook_queue_scheduled'), 0);

    // Attempts 2 to 7 failed too: the next is the 8th and last.
    await database.db
      .updateTable('webhook_deliveries')
      .set({ attempts: 7, sends: 7, next_attempt_at: clock.now() })
      .where('webhook_id', 'in', (eb) =>
        eb.selectFrom('webhooks').select('id').where('url', '=', `${receiver.base}/fail/metrics`),
      )
      .execute();
    await runDeliveries();
    assert.deepEqual(await outcomes(), {
      ...before,
      failure: before.failure + 1,
      given_up: before.given_up + 1,
    });
    samples = await scrape();
    assert.equal(
      sampleValue(samples, 'servery_webhook_queue_due'),
      0,
      'a delivery given up leaves the queue',
    );
  });
});

describe('queued jobs', () => {
  test('are counted by kind and outcome, and their queue depth moves', async () => {
    const ctx = systemCtx(database.db, clock);
    const services = { log, emailTransport: { send: async () => {} }, metrics };
    const ok: JobHandler<never> = { run: async () => {} };
    const failing: JobHandler<never> = {
      maxAttempts: 2,
      run: async () => {
        throw new Error('no luck');
      },
    };
    const handlers = { email: ok, 'rendered-email': failing, 'menu-images': ok } as JobHandlers;
    // Only this test's jobs (the restaurants made before may have queued e-mails).
    await database.db.deleteFrom('jobs').execute();
    await enqueueJob(ctx, 'email', { template: 'x' } as never);
    await enqueueJob(ctx, 'rendered-email', { to: 'a@example.test', subject: 's', text: 't' });
    clock.advance(5000);
    let samples = await scrape();
    assert.equal(sampleValue(samples, 'servery_job_queue_due'), 2);
    assert.equal(sampleValue(samples, 'servery_job_queue_oldest_due_age_seconds'), 5);

    await runDueJobs(database.db, clock, services, handlers);
    samples = await scrape();
    const runs = (kind: string, outcome: string) =>
      sampleValue(samples, 'servery_queued_jobs_total', { kind, outcome });
    assert.equal(runs('email', 'success'), 1);
    assert.equal(runs('rendered-email', 'failure'), 1);
    assert.equal(sampleValue(samples, 'servery_job_queue_due'), 0, 'the failed one waits for its backoff');

    clock.advance(60 * 60 * 1000);
    await runDueJobs(database.db, clock, services, handlers);
    samples = await scrape();
    assert.equal(runs('rendered-email', 'given_up'), 1);
    assert.equal(sampleValue(samples, 'servery_job_queue_due'), 0);
  });
});

describe('METRICS_LISTEN', () => {
  let served: ServiceDatabase;
  before(async () => {
    served = await migratedDatabase();
  });
  after(async () => {
    await killServices();
    await served?.remove();
  });

  /** Scrapes a service's metrics listener until `ready` holds for its text. */
  async function scrapeService(port: number, ready: (text: string) => boolean): Promise<string> {
    let text = '';
    return eventually(
      'the metrics showing what is awaited',
      async () => {
        text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return ready(text) && text;
      },
      { describe: () => `:\n${text}` },
    );
  }

  test("serves the API role's metrics on its own port, never on the public one", {
    timeout: hangCatcherMs,
  }, async () => {
    const port = await freePort();
    const service = await startService({
      database: served,
      args: ['serve', '--role', 'api'],
      env: { DEMO_DATA: 'false', METRICS_LISTEN: `127.0.0.1:${port}` },
    });
    await service.ready();
    assert.equal(service.logs().find((line) => line.msg === 'Servery started')?.metrics_port, port);
    assert.equal((await fetch(`${service.url}/metrics`)).status, 404);
    const text = await scrapeService(port, (t) => t.includes('route="/health"'));
    assert.match(text, /^servery_http_requests_total\{method="GET",route="\/health",status="200"\} \d+$/m);
    assert.match(text, /^servery_webhook_queue_due 0$/m);
    assert.deepEqual(await service.stop(), { code: 0, signal: null });
  });

  test("serves the worker role's metrics: its job runs", { timeout: hangCatcherMs }, async () => {
    const port = await freePort();
    const service = await startService({
      database: served,
      args: ['serve', '--role', 'worker'],
      env: { DEMO_DATA: 'false', METRICS_LISTEN: `127.0.0.1:${port}` },
    });
    const started = await service.waitForLog((line) => line.msg === 'Servery started');
    assert.equal(started.metrics_port, port);
    const text = await scrapeService(port, (t) => t.includes('job="deliver webhooks",outcome="success"'));
    assert.match(text, /^servery_job_queue_due \d+$/m);
    assert.deepEqual(await service.stop(), { code: 0, signal: null });
  });

  test('is refused when it is not host:port', () => {
    for (const value of ['9464', 'localhost', '127.0.0.1:', '127.0.0.1:70000', '::1:9464'])
      assert.throws(() => loadConfig({ METRICS_LISTEN: value }), ConfigError, value);
    assert.deepEqual(loadConfig({ METRICS_LISTEN: '[::1]:9464' }).metricsListen, { host: '::1', port: 9464 });
    assert.deepEqual(loadConfig({ METRICS_LISTEN: '0.0.0.0:9464' }).metricsListen, {
      host: '0.0.0.0',
      port: 9464,
    });
    assert.equal(loadConfig({}).metricsListen, null);
  });
});
