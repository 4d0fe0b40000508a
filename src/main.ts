import pino from 'pino';
import { type AppDeps, buildApp, redactedLogPaths } from './app.ts';
import type { Config } from './config.ts';
import { type Database, type DatabaseTarget, openDatabase } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { systemClock } from './domain/context.ts';
import { describeDemoData, seedDemoData } from './domain/demo/demo-data.ts';
import { startWorker } from './worker/worker.ts';

export type Role = 'api' | 'worker' | 'all';

export function databaseTarget(config: Config): DatabaseTarget {
  return config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir };
}

export function createLogger(config: Config): pino.Logger {
  return pino({ level: config.logLevel, redact: { paths: redactedLogPaths, censor: '[redacted]' } });
}

/**
 * Starts the service: migrations, demo data on an empty database, then the HTTP server (role api),
 * the background jobs (role worker) or both. SIGTERM/SIGINT stop it gracefully: in-flight
 * requests finish, jobs stop, the database closes.
 */
export async function serve(config: Config, role: Role): Promise<void> {
  const log = createLogger(config);
  const database: Database = await openDatabase(databaseTarget(config));
  const applied = await migrate(database);
  if (applied.length > 0) log.info({ migrations: applied }, 'migrations applied');
  if (config.demoData && role !== 'worker') {
    const demo = await seedDemoData(database.db, systemClock);
    if (demo) process.stdout.write(`${describeDemoData(demo, config.baseUrl)}\n`);
  }

  const deps: AppDeps = { config, db: database.db, clock: systemClock, logger: log };
  const app = role === 'worker' ? null : await buildApp(deps);
  const worker = role === 'api' ? null : startWorker(database.db, systemClock, log);
  if (app) await app.listen({ port: config.port, host: config.host });
  log.info({ role, database: database.kind, port: app ? config.port : undefined }, 'Servery started');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    try {
      await app?.close();
      await worker?.stop();
      await database.close();
      log.info('stopped');
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'unclean stop');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
