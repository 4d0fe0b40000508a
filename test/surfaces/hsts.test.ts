import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { type Database, openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { TestClock } from '../harness.ts';

/*
 * Strict-Transport-Security on every answer when BASE_URL is https (docs/operators.md, HTTPS):
 * the API, its errors, the pages, the storefront, an unknown path; never when it is http.
 */

let database: Database;
const apps: FastifyInstance[] = [];
before(async () => {
  database = await openDatabase({ memory: true });
  await migrate(database);
});
after(async () => {
  for (const app of apps) await app.close();
  await database.close();
});

async function served(baseUrl: string): Promise<FastifyInstance> {
  const app = await buildApp({ config: { baseUrl }, db: database.db, clock: new TestClock() });
  apps.push(app);
  await app.ready();
  return app;
}

const answers = [
  { url: '/health' },
  { url: '/v1/me' },
  { url: '/v1/openapi.json' },
  { url: '/' },
  { url: '/dashboard/sign-in' },
  { url: '/s/no-such-restaurant' },
  { url: '/no-such-page' },
  { url: '/oauth/token', method: 'POST' as const, payload: 'grant_type=x' },
];

test('https: every answer carries Strict-Transport-Security', async () => {
  const app = await served('https://servery.test');
  for (const { url, method = 'GET', payload } of answers) {
    const res = await app.inject({
      method,
      url,
      payload,
      headers: payload ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
    });
    assert.equal(
      res.headers['strict-transport-security'],
      'max-age=31536000',
      `${method} ${url} → ${res.statusCode}`,
    );
  }
});

test('http: none', async () => {
  const app = await served('http://servery.test');
  for (const { url, method = 'GET' } of answers) {
    const res = await app.inject({ method, url });
    assert.equal(res.headers['strict-transport-security'], undefined, `${method} ${url}`);
  }
});
