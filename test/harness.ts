import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { type AppDeps, buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { type Database, openDatabase } from '../src/db/client.ts';
import { distributionStatements, placeTables, readSchema } from '../src/db/distribution.ts';
import { migrate, migrationNames } from '../src/db/migrate.ts';
import { createAccount } from '../src/domain/accounts/accounts.service.ts';
import { setPasswordHashCost } from '../src/domain/accounts/password.ts';
import { type AppType, createApp, setAppStatus } from '../src/domain/apps/apps.service.ts';
import { issueAccessToken } from '../src/domain/connections/access-tokens.ts';
import { consentToApp } from '../src/domain/connections/connections.service.ts';
import { createRestaurant } from '../src/domain/restaurants/restaurants.service.ts';
import { type Clock, type Ctx, systemCtx } from '../src/domain/shared/context.ts';
import { scopes as allScopes, type Plan, type Scope } from '../src/domain/shared/scopes.ts';
import type { ApiRoute } from '../src/http/api-v1/api-route.ts';
import { citusUrl, newCitusDatabase } from './citus-cluster.ts';
import { checkAnswersAgainstDocument } from './openapi-responses.ts';
import { hangCatcherMs } from './waiting.ts';

/*
 * Tests hash passwords at the minimum cost (PASSWORD_HASH_COST): at the standard one each hash
 * takes about 0.7 s of CPU and 128 MiB, and the tests make and check thousands. The services and
 * commands the tests start inherit the setting; test/accounts/password-hash-cost.test.ts holds
 * the standard cost.
 */
process.env.PASSWORD_HASH_COST ??= 'minimum';
setPasswordHashCost(loadConfig().passwordHashCost);

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  #now: number;
  constructor(start = new Date('2026-11-02T10:00:00.000Z')) {
    this.#now = start.getTime();
  }
  now(): Date {
    return new Date(this.#now);
  }
  advance(ms: number): void {
    this.#now += ms;
  }
}

/** Names what a migrated database holds: the migrations and the PGlite version. */
function migrationsDigest(): string {
  const digest = createHash('sha256').update(pgliteVersion);
  for (const name of migrationNames()) {
    digest.update(name).update(readFileSync(new URL(`../src/db/migrations/${name}`, import.meta.url)));
  }
  return digest.digest('hex').slice(0, 16);
}

const pgliteVersion = (
  JSON.parse(
    readFileSync(new URL('../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8'),
  ) as { version: string }
).version;

/*
 * Initialising a PGlite cluster (initdb in WebAssembly) takes seconds; loading a dump of one takes
 * a fraction. So a migrated cluster is dumped once, to a file named after the migrations and the
 * PGlite version, and every test database starts from it.
 */
export async function migratedPgliteDump(): Promise<Blob> {
  const file = path.join(tmpdir(), `servery-pglite-migrated-${migrationsDigest()}.tar`);
  if (!existsSync(file)) {
    const dir = mkdtempSync(path.join(tmpdir(), 'servery-pglite-build-'));
    try {
      const database = await openDatabase({ dataDir: dir });
      await migrate(database);
      await database.close();
      const pglite = await PGlite.create(dir);
      const dump = await pglite.dumpDataDir('none');
      await pglite.close();
      // Written aside and renamed: a test file running at the same time never reads half a dump.
      const partial = `${file}.${process.pid}`;
      writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      renameSync(partial, file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return new Blob([readFileSync(file)]);
}

/*
 * The same on PostgreSQL: a database migrated once per migrations on the server, kept there as
 * `servery_template_<digest>`, and every test database a copy of it (CREATE DATABASE … TEMPLATE
 * copies in a fraction of the time migrating takes). Test files starting at once take turns
 * through an advisory lock; the template is built under another name and renamed when done, so
 * no one copies half of it, and nothing ever connects to it afterwards (a copy needs that).
 */
let postgresTemplate: Promise<string> | undefined;
function migratedPostgresTemplate(serverUrl: string): Promise<string> {
  postgresTemplate ??= (async () => {
    const name = `servery_template_${migrationsDigest()}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      await admin.query("SELECT pg_advisory_lock(hashtext('servery test template'))");
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount === 0) {
        const building = `${name}_building`;
        await admin.query(`DROP DATABASE IF EXISTS ${building}`);
        await admin.query(`CREATE DATABASE ${building}`);
        const database = await openDatabase({ url: databaseUrl(serverUrl, building) });
        try {
          await migrate(database);
        } finally {
          await database.close();
        }
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      }
    } finally {
      await admin.end(); // and with the session its lock
    }
    return name;
  })();
  return postgresTemplate;
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A fresh, migrated database for one test file: PGlite in memory, or, with DATABASE_URL set, a
 * new PostgreSQL database created for it and dropped on close.
 */
export async function openTestDatabase(): Promise<Database & { url: string | null }> {
  if (citusUrl) return distributedTestDatabase(citusUrl);
  const serverUrl = process.env.DATABASE_URL;
  const database = serverUrl
    ? await newPostgresDatabase(serverUrl, await migratedPostgresTemplate(serverUrl))
    : { ...(await openDatabase({ memory: true, initialData: await migratedPgliteDump() })), url: null };
  await migrate(database);
  return database;
}

/**
 * With CITUS_URL set, a test file's database is a new one on that Citus cluster, migrated and
 * distributed as `servery distribute` places it, and dropped on every node on close.
 */
export async function distributedTestDatabase(coordinatorUrl: string): Promise<Database & { url: string }> {
  const cluster = await newCitusDatabase(coordinatorUrl);
  const database = await openDatabase({ url: cluster.url, connectTimeoutMs: hangCatcherMs });
  await migrate(database);
  const statements = distributionStatements(await readSchema(database.db), cluster.name);
  // Four shards a table (two a worker) instead of Citus's 32: the same routing, placed in a
  // quarter of the time (measured: 2 s instead of 9 s a database).
  await database.db.transaction().execute(async (trx) => {
    await sql`SET LOCAL citus.shard_count TO 4`.execute(trx);
    await placeTables(trx, statements);
  });
  return {
    ...database,
    url: cluster.url,
    close: async () => {
      await database.close();
      await cluster.drop();
    },
  };
}

/** A database with no migration applied (as openTestDatabase's, for tests of a migration). */
export async function emptyTestDatabase(): Promise<Database & { url: string | null }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return { ...(await openDatabase({ memory: true })), url: null };
  return newPostgresDatabase(serverUrl, null);
}

/** A new database on the PostgreSQL server (a copy of `template`, or empty), dropped on close. */
async function newPostgresDatabase(
  serverUrl: string,
  template: string | null,
): Promise<Database & { url: string }> {
  const name = `servery_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  await admin.end();
  const url = databaseUrl(serverUrl, name);
  // A connection (or a free one of the pool) waited for as long as it takes on a busy machine.
  const database = await openDatabase({ url, connectTimeoutMs: hangCatcherMs });
  return {
    ...database,
    url,
    close: async () => {
      await database.close();
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  database: Database & { url: string | null };
  clock: TestClock;
  ctx: Ctx;
  /**
   * Answers of /v1 operations that the served OpenAPI document does not describe
   * (openapi-responses.ts); `close()` fails while there are any.
   */
  answerViolations: string[];
  close(): Promise<void>;
}

export const testBaseUrl = 'http://servery.test';

/** A TCP port of 127.0.0.1 that nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The password of every account the harness makes (makeTenant's developer, newAccount). */
export const password = 'correct horse battery';

/**
 * The whole service in-process on a fresh database, with a clock the test controls. `appUrl` gives
 * the console and dashboard a host of their own (default: the API host, testBaseUrl); `config`
 * sets what else a test needs of the configuration.
 */
export async function buildTestApp(
  options: {
    extraApiRoutes?: readonly ApiRoute[];
    appUrl?: string;
    config?: Pick<AppDeps['config'], 'trustProxy' | 'webhooksAllowInsecure' | 'redisUrl'>;
    /** The database (default: a fresh test database); closed with the app. */
    database?: Database & { url: string | null };
    /** Menu images served and downloaded (default: none; writes leave new images to the worker). */
    images?: AppDeps['images'];
    /** Live restaurants' payment provider (default: the test provider); Stripe serves its webhook too. */
    payments?: AppDeps['payments'];
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await openTestDatabase());
  const clock = new TestClock();
  const app = await buildApp({
    config: { baseUrl: testBaseUrl, appUrl: options.appUrl, ...options.config },
    db: database.db,
    clock,
    extraApiRoutes: options.extraApiRoutes,
    images: options.images,
    payments: options.payments,
  });
  const answerViolations = checkAnswersAgainstDocument(app);
  await app.ready();
  return {
    app,
    database,
    clock,
    ctx: systemCtx(database.db, clock),
    answerViolations,
    close: async () => {
      await app.close();
      await database.close();
      if (answerViolations.length > 0) {
        throw new Error(
          `${answerViolations.length} answers differ from the OpenAPI document:\n${answerViolations.join('\n')}`,
        );
      }
    },
  };
}

export interface Tenant {
  restaurantId: string;
  appId: string;
  clientId: string;
  connectionId: string;
  /** An access token with every scope of the connection. */
  token: string;
}

let serial = 0;

/** One developer account per database: password hashing is slow by design. */
const developers = new WeakMap<object, Promise<string>>();
function developerFor(ctx: Ctx): Promise<string> {
  let id = developers.get(ctx.db);
  if (!id) {
    const email = `dev-${process.pid}-${randomBytes(3).toString('hex')}@example.test`;
    id = createAccount(ctx, { email, password, developer: true }).then((account) => account.id);
    developers.set(ctx.db, id);
  }
  return id;
}

/**
 * A restaurant with an approved app connected to it. Options: the plan, a test restaurant, an
 * inactive subscription, the connection's scopes (default all nine).
 */
export async function makeTenant(
  ctx: Ctx,
  options: { plan?: Plan; livemode?: boolean; scopes?: readonly Scope[]; appType?: AppType } = {},
): Promise<Tenant> {
  serial += 1;
  const tag = `${process.pid}-${serial}-${randomBytes(3).toString('hex')}`;
  const developerId = await developerFor(ctx);
  const restaurant = await createRestaurant(ctx, {
    name: `Restaurant ${tag}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    country: 'DE',
    plan: options.plan ?? 'pro',
    livemode: options.livemode ?? true,
    ownerIds: [developerId],
  });
  const { app } = await createApp(ctx, {
    developerId,
    name: `App ${tag}`,
    type: options.appType ?? 'confidential',
    redirectUris: ['https://app.example.test/callback'],
    scopes: allScopes,
  });
  await setAppStatus(ctx, app.clientId, 'approved');
  const scopes = options.scopes ?? allScopes;
  const connection = await consentToApp(ctx, { tenantId: restaurant.id, appId: app.id, scopes });
  const { token } = await issueAccessToken(ctx, {
    tenantId: restaurant.id,
    connectionId: connection.connectionId,
    scopes,
  });
  return {
    restaurantId: restaurant.id,
    appId: app.id,
    clientId: app.clientId,
    connectionId: connection.connectionId,
    token,
  };
}

/** Another access token for a tenant's connection, e.g. with fewer scopes. */
export async function tokenFor(ctx: Ctx, tenant: Tenant, scopes: readonly Scope[]): Promise<string> {
  const { token } = await issueAccessToken(ctx, {
    tenantId: tenant.restaurantId,
    connectionId: tenant.connectionId,
    scopes,
  });
  return token;
}

export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}

// Signing in to the console and the dashboard, as their own pages do.

let accountSerial = 0;
export async function newAccount(test: TestApp, developer: boolean): Promise<{ id: string; email: string }> {
  accountSerial += 1;
  const email = `account-${accountSerial}-${process.pid}@example.test`;
  const account = await createAccount(test.ctx, { email, password, developer });
  return { id: account.id, email };
}

/** A JSON request as the console's or dashboard's own pages send it, with the session cookie. */
export function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  cookie: string | null,
  body?: unknown,
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  if (cookie) headers.cookie = cookie;
  if (method !== 'GET') headers['content-type'] = 'application/json';
  return app.inject({ method, url, headers, payload: body === undefined ? undefined : JSON.stringify(body) });
}

/** Signs in on `/console` or `/dashboard` and returns the session cookie (`name=value`). */
export async function signInTo(
  app: FastifyInstance,
  surface: 'console' | 'dashboard',
  email: string,
): Promise<string> {
  const response = await call(app, 'POST', `/${surface}/api/sessions`, null, { email, password });
  assert.equal(response.statusCode, 200, response.body);
  const cookie = response.cookies[0];
  assert.ok(cookie);
  return `${cookie.name}=${cookie.value}`;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
export function json(response: LightMyRequestResponse): any {
  return response.json();
}

/** A session of the developer of the tenant's app (makeTenant's developer owns its restaurant too). */
export async function developerSession(
  test: TestApp,
  tenant: Tenant,
  surface: 'console' | 'dashboard',
): Promise<string> {
  return signInTo(test.app, surface, await developerEmail(test, tenant));
}

/** The e-mail of the developer of the tenant's app, who is also the restaurant's owner. */
export async function developerEmail(test: TestApp, tenant: Tenant): Promise<string> {
  const developer = await test.database.db
    .selectFrom('apps as p')
    .innerJoin('accounts as a', 'a.id', 'p.developer_id')
    .select('a.email')
    .where('p.id', '=', tenant.appId)
    .executeTakeFirstOrThrow();
  return developer.email;
}
