/*
 * The spans of queued jobs, read in this process from an in-memory exporter (the child process
 * test, tracing.test.ts, covers requests and webhook deliveries).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SpanStatusCode } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import pino from 'pino';
import { enqueueJob } from '../../src/domain/jobs/jobs.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { type JobHandler, type JobHandlers, runDueJobs } from '../../src/worker/job-queue.ts';
import { openTestDatabase, TestClock } from '../harness.ts';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
const sdk = new NodeSDK({
  spanProcessors: [processor],
  metricReaders: [],
  logRecordProcessors: [],
});
let database: Awaited<ReturnType<typeof openTestDatabase>>;
before(async () => {
  sdk.start();
  database = await openTestDatabase();
});
after(async () => {
  await database.close();
  await sdk.shutdown();
});

test('each run of a queued job is a span, failed when the run fails', async () => {
  const clock = new TestClock();
  const ok: JobHandler<never> = { run: async () => {} };
  const failing: JobHandler<never> = {
    run: async () => {
      throw new Error('the SMTP server said no');
    },
  };
  const handlers = { email: ok, 'rendered-email': failing, 'menu-images': ok } as JobHandlers;
  const ctx = systemCtx(database.db, clock);
  await enqueueJob(ctx, 'menu-images', { urls: [] });
  await enqueueJob(ctx, 'rendered-email', { to: 'a@example.test', subject: 's', text: 't' });
  const services = { log: pino({ level: 'silent' }), emailTransport: { send: async () => {} } };
  await runDueJobs(database.db, clock, services, handlers);
  // A span is exported once the resource's attributes are known, which may take a moment.
  await processor.forceFlush();

  const spans = exporter.getFinishedSpans();
  const images = spans.find((s) => s.name === 'job menu-images');
  assert.ok(images, JSON.stringify(spans.map((s) => s.name)));
  assert.equal(images.attributes['servery.job.kind'], 'menu-images');
  assert.equal(images.attributes['servery.job.attempt'], 1);
  assert.equal(images.status.code, SpanStatusCode.UNSET);
  const email = spans.find((s) => s.name === 'job rendered-email');
  assert.ok(email);
  assert.equal(email.status.code, SpanStatusCode.ERROR);
  assert.equal(email.events[0]?.name, 'exception');
  assert.equal(email.events[0]?.attributes?.['exception.message'], 'the SMTP server said no');
});
