import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { menuImages } from './adapters/hosted-images.ts';
import { StripePayments } from './adapters/payments/stripe-payments.ts';
import { webhookDeliverySettings } from './adapters/webhook-post.ts';
import { type AppDeps, buildApp, logRedaction } from './app.ts';
import type { Config } from './config.ts';
import { whenDatabaseAnswers } from './db/availability.ts';
import { type Database, type DatabaseTarget, openDatabase } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { describeDemoData, seedDemoData } from './demo/demo-data.ts';
import { type Clock, systemClock } from './domain/shared/context.ts';
import { openSandboxClock, type SandboxClock } from './domain/shared/sandbox-clock.ts';
import { createMetrics, type MetricsServer, serveMetrics } from './observability/metrics.ts';
import { startTracing, type Tracing } from './observability/tracing.ts';
import { emailTransport } from './worker/email-transport.ts';
import { startWorker, type Worker } from './worker/worker.ts';

export type Role = 'api' | 'worker' | 'all';

export function databaseTarget(config: Config): DatabaseTarget {
  if (!config.databaseUrl) return { dataDir: config.dataDir };
  return {
    url: config.databaseUrl,
    ...(config.databaseReplicaUrl && { replicaUrl: config.databaseReplicaUrl }),
  };
}

export function createLogger(config: Config): pino.Logger {
  return pino({ level: config.logLevel, redact: logRedaction });
}

/**
 * Starts the service: migrations, demo data on an empty database, then the HTTP server (role api),
 * the background jobs (role worker) or both. SIGTERM/SIGINT stop it gracefully: in-flight
 * requests finish, jobs stop, the database closes.
 */
export async function serve(config: Config, role: Role): Promise<void> {
  const log = createLogger(config);

  // The signals are taken from the start: one that comes while the database opens or migrates
  // lets that step finish and then stops, instead of killing the process in the middle of it.
  let stopSignal: NodeJS.Signals | null = null;
  let stopNow: (() => void) | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopSignal) {
      // A repeated signal (an impatient Ctrl-C, a supervisor that sends it again) must not end
      // the process in the middle of its stop: the database would be left open.
      log.info({ signal }, 'already stopping');
      return;
    }
    stopSignal = signal;
    log.info({ signal }, 'stopping');
    stopNow?.();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  let database: Database | null = null;
  let app: FastifyInstance | null = null;
  let worker: Worker | null = null;
  let sandboxClock: SandboxClock | null = null;
  let metricsServer: MetricsServer | null = null;
  let tracing: Tracing | null = null;
  const stop = async (): Promise<void> => {
    let code = 0;
    try {
      await metricsServer?.close();
      await app?.close();
      await worker?.stop();
      sandboxClock?.stop();
      await database?.close();
      await tracing?.shutdown();
      log.info('stopped');
    } catch (error) {
      log.error({ err: error }, 'unclean stop');
      code = 1;
    }
    // The process ends by itself once nothing is left to do: process.exit() here would cut off the
    // logger's last lines, which pino writes to stdout asynchronously. Anything still holding the
    // process open is cut off after a while.
    process.exitCode = code;
    setTimeout(() => process.exit(code), 5000).unref();
  };

  try {
    // Before the database opens, so that its connections are traced too.
    tracing = config.tracing ? await startTracing(config.tracing) : null;
    if (tracing) log.info({ service_name: config.tracing?.serviceName }, 'tracing on');
    database = await openDatabase(databaseTarget(config));
    const opened = database;
    const applied = await whenDatabaseAnswers(
      () => migrate(opened),
      log,
      () => stopSignal !== null,
    );
    if (applied === null) return stop();
    if (applied.length > 0) log.info({ migrations: applied }, 'migrations applied');
    log.info({ database: database.kind }, 'database ready');
    if (config.databaseReplicaUrl && !config.redisUrl)
      log.warn(
        'DATABASE_REPLICA_URL without REDIS_URL: the rate limits count in PostgreSQL, so every request writes and the replica is hardly ever caught up for the orders list, which then reads the server (the reports still read the replica)',
      );
    if (stopSignal) return stop();
    // SANDBOX_CLOCK: every time rule reads the offset that `servery clock advance` moves.
    sandboxClock = config.sandboxClock ? await openSandboxClock(database.db) : null;
    if (sandboxClock)
      log.warn(
        { offset_seconds: sandboxClock.offsetMs / 1000 },
        'sandbox clock on (development only): "servery clock advance" moves the time',
      );
    const clock: Clock = sandboxClock ?? systemClock;
    const images = menuImages(config);
    if (config.demoData && role !== 'worker') {
      const pictures = { keeper: images.fetcher, baseUrl: config.baseUrl };
      const demo = await seedDemoData(database.db, clock, pictures);
      if (demo) process.stdout.write(`${describeDemoData(demo, config.baseUrl)}\n`);
    }
    if (stopSignal) return stop();

    const metrics = config.metricsListen ? createMetrics(database.db, clock) : undefined;
    if (role !== 'worker') {
      // Live restaurants' payments: Stripe when configured, else the test provider (no money moves).
      const payments = config.stripe ? new StripePayments(config.stripe) : undefined;
      const deps: AppDeps = { config, db: database.db, clock, logger: log, images, payments, metrics };
      app = await buildApp(deps);
      closeConnectionsWhenStopping(app, () => stopSignal !== null);
    }
    worker =
      role === 'api'
        ? null
        : startWorker(
            database.db,
            clock,
            log,
            emailTransport(config, log),
            webhookDeliverySettings(config),
            images.fetcher,
            metrics,
          );
    if (app) await app.listen({ port: config.port, host: config.host });
    if (metrics && config.metricsListen)
      metricsServer = await serveMetrics(config.metricsListen, metrics, log);
  } catch (error) {
    // A start that fails (the port is taken, say) still closes what it opened: the PGlite
    // directory is then left unlocked and without recovery to do.
    await worker?.stop().catch(() => {});
    await app?.close().catch(() => {});
    sandboxClock?.stop();
    await database?.close().catch(() => {});
    await tracing?.shutdown().catch(() => {});
    throw error;
  }
  log.info(
    { role, database: database.kind, port: app ? config.port : undefined, metrics_port: metricsServer?.port },
    'Servery started',
  );
  if (stopSignal) return stop();
  stopNow = () => void stop();
}

/*
 * Fastify's close stops accepting connections, closes the idle ones and answers requests that
 * arrive on a kept-alive connection with 503 and "Connection: close". A request already running
 * when the stop begins is answered, but its connection would then stay open, idle, until the
 * client or keepAliveTimeout (72 s) closes it, and the stop would wait that long. So its
 * response says "Connection: close" too, and Node closes the connection once it is sent.
 */
function closeConnectionsWhenStopping(app: FastifyInstance, stopping: () => boolean): void {
  const running = new Set<ServerResponse>();
  app.server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (stopping()) response.shouldKeepAlive = false;
    running.add(response);
    response.on('close', () => running.delete(response));
    // A response whose headers went out before the stop kept its connection: close it once idle.
    response.on('finish', () => {
      if (stopping()) setImmediate(() => app.server.closeIdleConnections());
    });
  });
  app.addHook('preClose', async () => {
    for (const response of running) response.shouldKeepAlive = false;
  });
}
