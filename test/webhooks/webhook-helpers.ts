import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createAccount } from '../../src/domain/accounts/accounts.service.ts';
import { buildTestApp, type Tenant, type TestApp } from '../harness.ts';

export const password = 'correct horse battery';

/** The service with WEBHOOKS_ALLOW_INSECURE as given (buildTestApp leaves it off). */
export function buildWebhookTestApp(webhooksAllowInsecure: boolean): Promise<TestApp> {
  return buildTestApp({ config: { webhooksAllowInsecure } });
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

/** A session of the developer of the tenant's app (makeTenant's developer owns its restaurant too). */
export async function developerSession(
  test: TestApp,
  tenant: Tenant,
  surface: 'console' | 'dashboard',
): Promise<string> {
  const developer = await test.database.db
    .selectFrom('apps as p')
    .innerJoin('accounts as a', 'a.id', 'p.developer_id')
    .select('a.email')
    .where('p.id', '=', tenant.appId)
    .executeTakeFirstOrThrow();
  return signInTo(test.app, surface, developer.email);
}
