import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { hangCatcherMs } from '../waiting.ts';
import {
  killServices,
  migratedDatabase,
  type SeededConnection,
  type ServiceDatabase,
  seedConnections,
  startService,
} from './service.ts';

let database: ServiceDatabase | null = null;
after(async () => {
  await killServices();
  await database?.remove();
});

test('stdout is pino JSON; each request is logged under its request id, without its secrets', {
  timeout: hangCatcherMs,
}, async () => {
  database = await migratedDatabase();
  const [reader, leaver] = (await seedConnections(database, 2)) as [SeededConnection, SeededConnection];
  // The tokens never pass through the service's output: it prints no demo data either.
  const service = await startService({ database, env: { DEMO_DATA: 'false' } });
  await service.ready();

  const unknownToken = `svc_at_${randomBytes(32).toString('base64url').slice(0, 43)}`;
  const basic = Buffer.from(`user:${randomBytes(6).toString('hex')}`).toString('base64');
  const cookie = `session=${randomBytes(12).toString('hex')}`;
  const idempotencyKey = `key-${randomBytes(8).toString('hex')}`;
  const requests: { method: string; path: string; headers: Record<string, string>; status: number }[] = [
    {
      method: 'GET',
      path: '/v1/me',
      headers: { authorization: `Bearer ${reader.token}`, cookie },
      status: 200,
    },
    { method: 'GET', path: '/v1/me', headers: { authorization: `Bearer ${unknownToken}` }, status: 401 },
    { method: 'GET', path: '/v1/me', headers: { authorization: `Basic ${basic}` }, status: 401 },
    {
      method: 'GET',
      path: '/v1/me',
      headers: { authorization: `Bearer ${reader.token} extra` },
      status: 401,
    },
    {
      method: 'GET',
      path: '/v1/me?expand=all',
      headers: { authorization: `Bearer ${reader.token}` },
      status: 400,
    },
    {
      method: 'DELETE',
      path: '/v1/connection',
      headers: { authorization: `Bearer ${leaver.token}`, 'idempotency-key': idempotencyKey },
      status: 200,
    },
    { method: 'GET', path: '/v1/me', headers: { authorization: `Bearer ${leaver.token}` }, status: 401 },
  ];
  const answered: { method: string; path: string; status: number; id: string }[] = [];
  for (const request of requests) {
    const response = await fetch(`${service.url}${request.path}`, {
      method: request.method,
      headers: request.headers,
    });
    await response.arrayBuffer();
    assert.equal(response.status, request.status, `${request.method} ${request.path}`);
    const id = response.headers.get('x-request-id');
    assert.match(id ?? '', /^req_[0-9a-f]{24}$/);
    answered.push({ method: request.method, path: request.path, status: response.status, id: id as string });
  }
  assert.deepEqual(await service.stop(), { code: 0, signal: null });

  const output = service.stdout();
  const lines = output.split('\n').filter((line) => line !== '');
  for (const line of lines) {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    assert.equal(typeof parsed.level, 'number', line);
    assert.equal(typeof parsed.time, 'number', line);
    assert.equal(typeof parsed.msg, 'string', line);
  }
  const logs = service.logs();
  for (const request of answered) {
    const own = logs.filter((line) => line.reqId === request.id);
    const incoming = own.find((line) => line.msg === 'incoming request');
    assert.deepEqual(
      {
        method: (incoming?.req as { method?: string })?.method,
        url: (incoming?.req as { url?: string })?.url,
      },
      { method: request.method, url: request.path },
      `the incoming line of ${request.id}`,
    );
    const completed = own.find((line) => line.msg === 'request completed');
    assert.equal((completed?.res as { statusCode?: number })?.statusCode, request.status, request.id);
  }
  // Every line about a request says which one. (A line with only `err` may come from the job
  // runner, which serves no request: on a busy machine it logs a slow database connection.)
  for (const line of logs) {
    if ('req' in line || 'res' in line || 'responseTime' in line) {
      assert.match(String(line.reqId), /^req_[0-9a-f]{24}$/, JSON.stringify(line));
    }
  }
  // No secret of any request, answered or refused, is in the output.
  const everything = output + service.stderr();
  for (const secret of [reader.token, leaver.token, unknownToken, basic, cookie, idempotencyKey]) {
    assert.equal(everything.includes(secret), false, `the output has ${secret}`);
  }
  assert.doesNotMatch(everything, /svc_at_|Bearer |Basic /);
});
