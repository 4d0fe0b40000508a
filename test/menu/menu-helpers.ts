import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { bearer, json, type TestApp } from '../harness.ts';

/* What the menu's tests share: requests with a token, and checks of error answers. */

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export function request(
  t: TestApp,
  token: string,
  method: Method,
  url: string,
  body?: unknown,
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method,
    url: `/v1${url}`,
    headers: { ...bearer(token), ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
}

/** A request that must succeed with `status`; its body. */
export async function ok(
  t: TestApp,
  token: string,
  method: Method,
  url: string,
  body?: unknown,
  status = method === 'POST' ? 201 : 200,
): Promise<ReturnType<typeof json>> {
  const res = await request(t, token, method, url, body);
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
  return json(res);
}

export function assertError(res: LightMyRequestResponse, status: number, code: string, param?: string): void {
  assert.equal(res.statusCode, status, res.body);
  const { error } = res.json() as { error: { code: string; param?: string } };
  assert.equal(error.code, code, res.body);
  assert.equal(error.param, param, res.body);
}
