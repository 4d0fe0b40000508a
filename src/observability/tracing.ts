import { createRequire } from 'node:module';
import { type Attributes, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';

/** Tracing started in this process. */
export interface Tracing {
  /** Sends the spans not yet exported, then stops. */
  shutdown(): Promise<void>;
}

/*
 * Starts the OpenTelemetry SDK: spans of incoming HTTP requests (http), of database queries on
 * PostgreSQL (pg; PGlite runs in the process and has none) and of outbound calls (undici: webhooks,
 * image downloads, Stripe), exported over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT. The SDK is
 * imported only here, so a process without tracing never loads it.
 *
 * The http and pg instrumentations patch modules as they are `require`d, but our ES modules
 * `import` them, and pg is already loaded by then (the CLI's admin commands import it). Their
 * patches change the modules' classes in place (http.Server, pg.Client, pg-pool), so requiring
 * the modules once more after the start, which the hooks see, patches the copies in use too.
 * undici reports through diagnostics_channel and needs nothing of the kind.
 */
export async function startTracing(settings: NonNullable<Config['tracing']>): Promise<Tracing> {
  const [{ NodeSDK }, { OTLPTraceExporter }, { HttpInstrumentation }, { PgInstrumentation }, undici] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-pg'),
      import('@opentelemetry/instrumentation-undici'),
    ]);
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    traceExporter: new OTLPTraceExporter(),
    // Traces only: the metrics are Prometheus's (metrics.ts), the logs pino's.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes every few seconds would bury the traces worth reading.
        ignoreIncomingRequestHook: (request) => request.url === '/health' || request.url === '/metrics',
      }),
      // The worker polls its queues several times a second: only queries inside a request, a
      // webhook delivery or a queued job (which have spans) are traced.
      new PgInstrumentation({
        requireParentSpan: true,
        // Our statements are prepared under a hash of their text (db/client.ts), which would
        // become the span's name: they are named by their command, as unnamed ones are.
        requestHook: (span, { query, connection }) =>
          span.updateName(`pg.query:${sqlCommand(query.text)} ${connection.database ?? ''}`.trimEnd()),
      }),
      new undici.UndiciInstrumentation(),
    ],
  });
  sdk.start();
  const require = createRequire(import.meta.url);
  for (const name of ['node:http', 'pg', 'pg-pool']) require(name);
  return sdk;
}

/** `SELECT`, `UPDATE`, …: a statement's first word. */
function sqlCommand(text: string): string {
  return (text.trimStart().split(/\s/, 1)[0] ?? '').replace(/;$/, '').toUpperCase();
}

/**
 * Names each request's server span after its route pattern (`GET /v1/orders/:id`), as the
 * OpenTelemetry conventions ask; the http instrumentation alone knows only the method.
 */
export function nameServerSpansByRoute(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const route = request.routeOptions.url;
    const span = trace.getActiveSpan();
    if (!span || !route) return;
    span.setAttribute('http.route', route);
    span.updateName(`${request.method} ${route}`);
  });
}

const tracer = trace.getTracer('servery');

/**
 * Runs `work` in a span of its own (a webhook delivery, a queued job), so the queries and the
 * outbound call it makes are one trace; a throw marks the span failed. Without tracing the API
 * is a no-op and this costs nothing.
 */
export function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
