import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { createAccount } from '../../src/domain/accounts/accounts.service.ts';
import { systemCtx } from '../../src/domain/context.ts';
import { openTestDatabase, type TestApp, TestClock, testBaseUrl } from '../harness.ts';

export const password = 'correct horse battery';

/** The service with WEBHOOKS_ALLOW_INSECURE as given (buildTestApp leaves it off). */
export async function buildWebhookTestApp(webhooksAllowInsecure: boolean): Promise<TestApp> {
  const database = await openTestDatabase();
  const clock = new TestClock();
  const app = await buildApp({
    config: { baseUrl: testBaseUrl, webhooksAllowInsecure },
    db: database.db,
    clock,
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

let serial = 0;
export async function newAccount(test: TestApp, developer: boolean): Promise<{ id: string; email: string }> {
  serial += 1;
  const email = `account-${serial}-${process.pid}@example.test`;
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
