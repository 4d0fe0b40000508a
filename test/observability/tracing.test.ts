/*
 * Tracing as operators turn it on: `servery serve` in a child process with
 * OTEL_EXPORTER_OTLP_ENDPOINT naming a collector, here an HTTP server in the test that keeps the
 * spans the service exports (OTLP/HTTP, JSON).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { setAppWebhook } from '../../src/domain/webhooks/app-webhook.service.ts';
import { makeTenant, type Tenant } from '../harness.ts';
import {
  bearer,
  killServices,
  migratedDatabase,
  postgresUrl,
  type ServiceDatabase,
  startService,
  withDatabase,
} from '../operations/service.ts';
import { eventually, hangCatcherMs } from '../waiting.ts';
import { startReceiver } from '../webhooks/delivery-helpers.ts';

/** A span as OTLP/JSON carries it (the fields the test reads). */
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
  service: string;
}
const server = 2;
const client = 3;

const spans: Span[] = [];
const collector = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    for (const resource of body.resourceSpans ?? []) {
      const service = resource.resource?.attributes?.find((a: { key: string }) => a.key === 'service.name')
        ?.value?.stringValue;
      for (const scope of resource.scopeSpans ?? [])
        for (const span of scope.spans ?? []) spans.push({ ...span, service });
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

const attribute = (span: Span, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  const found = value?.stringValue ?? value?.intValue;
  return found === undefined ? undefined : String(found);
};

const names = () => JSON.stringify(spans.map((s) => `${s.name} (${s.kind})`));
/** The span `find` finds once it has been exported. */
const exported = (what: string, find: () => Span | undefined): Promise<Span> =>
  eventually(what, find, { describe: () => `; spans: ${names()}` });

let database: ServiceDatabase;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let tenant: Tenant;
before(async () => {
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  receiver = await startReceiver();
  database = await migratedDatabase();
  tenant = await withDatabase(database, async ({ db }) => {
    const ctx = systemCtx(db);
    const made = await makeTenant(ctx, { livemode: false });
    await setAppWebhook(ctx, {
      clientId: made.clientId,
      developerId: null,
      url: `${receiver.base}/ok/traced`,
      events: ['store.*'],
      rules: { allowInsecure: true },
    });
    return made;
  });
});
after(async () => {
  await killServices();
  await database?.remove();
  await receiver?.close();
  collector.closeAllConnections();
  collector.close();
});

test('a request, its queries and the webhook it causes are traced and exported', {
  timeout: hangCatcherMs,
}, async () => {
  const service = await startService({
    database,
    env: {
      DEMO_DATA: 'false',
      WEBHOOKS_ALLOW_INSECURE: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
      OTEL_SERVICE_NAME: 'servery-under-test',
      // Export within a moment rather than every 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
  });
  await service.ready();
  assert.ok(service.logs().some((line) => line.msg === 'tracing on'));
  const paused = await fetch(`${service.url}/v1/store/pause`, {
    method: 'POST',
    headers: { ...bearer(tenant.token), 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(paused.status, 200, await paused.text());

  // The request: a server span named after its route, and on PostgreSQL its queries inside it.
  const request = await exported('the server span', () =>
    spans.find((s) => s.kind === server && attribute(s, 'http.route') === '/v1/store/pause'),
  );
  assert.equal(request.name, 'POST /v1/store/pause');
  assert.equal(request.service, 'servery-under-test');
  assert.equal(request.parentSpanId ?? '', '', 'a request from outside starts its trace');
  const inRequest = (span: Span) => span.traceId === request.traceId;
  if (postgresUrl) {
    const query = await exported('a query in the request', () =>
      spans.find(
        (s) => inRequest(s) && s.kind === client && /access_tokens/.test(attribute(s, 'db.query.text') ?? ''),
      ),
    );
    assert.match(query.name, /^pg\.query:SELECT servery_/, 'named by its command, not its statement name');
  } else {
    // PGlite runs inside the process: there is no database client to trace.
    assert.ok(!spans.some((s) => s.name.startsWith('pg.')));
  }

  // The webhook the request's event causes: the worker's delivery span, with the outbound POST
  // (undici) in it, one trace.
  const delivery = await exported('the webhook delivery span', () =>
    spans.find((s) => s.name === 'webhook delivery' && attribute(s, 'servery.event.type') === 'store.paused'),
  );
  const post = await exported('the outbound POST', () =>
    spans.find((s) => s.kind === client && s.parentSpanId === delivery.spanId),
  );
  assert.equal(post.traceId, delivery.traceId);
  assert.equal(attribute(post, 'http.request.method'), 'POST');
  assert.equal(attribute(post, 'url.full'), `${receiver.base}/ok/traced`);
  assert.equal(attribute(post, 'http.response.status_code'), '200');
  assert.equal(receiver.received.filter((r) => r.path === '/ok/traced').length, 1);

  // Health probes are not traced, and the worker's polling makes no spans of its own: checked once
  // the service has stopped, which exports every span it has ended before it exits.
  assert.equal((await fetch(`${service.url}/health`)).status, 200);
  assert.deepEqual(await service.stop(), { code: 0, signal: null });
  assert.ok(!spans.some((s) => attribute(s, 'url.path') === '/health'), names());
  assert.ok(!spans.some((s) => s.name.startsWith('pg') && (s.parentSpanId ?? '') === ''), names());
});

test('without an OTLP endpoint tracing is off: nothing is exported', { timeout: hangCatcherMs }, async () => {
  const before = spans.length;
  const service = await startService({ database, env: { DEMO_DATA: 'false' } });
  await service.ready();
  assert.equal((await fetch(`${service.url}/v1/store`, { headers: bearer(tenant.token) })).status, 200);
  assert.ok(!service.logs().some((line) => line.msg === 'tracing on'));
  assert.deepEqual(await service.stop(), { code: 0, signal: null });
  assert.equal(spans.length, before, JSON.stringify(spans.slice(before)));
});
