import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { type Database, openDatabase } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { createAccount } from '../src/domain/accounts/accounts.service.ts';
import { type AppType, createApp, setAppStatus } from '../src/domain/apps/apps.service.ts';
import { issueAccessToken } from '../src/domain/connections/access-tokens.ts';
import { createConnection } from '../src/domain/connections/connections.service.ts';
import { type Clock, type Ctx, systemCtx } from '../src/domain/context.ts';
import { createRestaurant } from '../src/domain/restaurants/restaurants.service.ts';
import { scopes as allScopes, type Plan, type Scope } from '../src/domain/scopes.ts';
import type { ApiRoute } from '../src/http/api-v1/api-route.ts';

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

/**
 * A fresh, migrated database for one test file: PGlite in memory, or, with DATABASE_URL set, a
 * new PostgreSQL database created for it and dropped on close.
 */
export async function openTestDatabase(): Promise<Database & { url: string | null }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const database = await openDatabase({ memory: true });
    await migrate(database);
    return { ...database, url: null };
  }
  const name = `servery_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString() });
  await migrate(database);
  return {
    ...database,
    url: url.toString(),
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
  close(): Promise<void>;
}

export const testBaseUrl = 'http://servery.test';

/** The whole service in-process on a fresh database, with a clock the test controls. */
export async function buildTestApp(options: { extraApiRoutes?: readonly ApiRoute[] } = {}): Promise<TestApp> {
  const database = await openTestDatabase();
  const clock = new TestClock();
  const app = await buildApp({
    config: { baseUrl: testBaseUrl },
    db: database.db,
    clock,
    extraApiRoutes: options.extraApiRoutes,
  });
  await app.ready();
  return {
    app,
    database,
    clock,
    ctx: systemCtx(database.db, clock),
    close: async () => {
      await app.close();
      await database.close();
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
    id = createAccount(ctx, { email, password: 'correct horse battery', developer: true }).then(
      (account) => account.id,
    );
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
  const connection = await createConnection(ctx, { tenantId: restaurant.id, appId: app.id, scopes });
  const { token } = await issueAccessToken(ctx, {
    tenantId: restaurant.id,
    connectionId: connection.id,
    scopes,
  });
  return {
    restaurantId: restaurant.id,
    appId: app.id,
    clientId: app.clientId,
    connectionId: connection.id,
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
