import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  bearer,
  demoToken,
  emptyDatabase,
  killServices,
  type ServiceDatabase,
  startService,
} from './service.ts';

let database: ServiceDatabase | null = null;
after(async () => {
  await killServices();
  await database?.remove();
});

async function me(url: string, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/v1/me`, { headers: bearer(token) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test('serve on an empty database migrates it, creates the demo data once, and keeps it', {
  timeout: 180_000,
}, async () => {
  database = await emptyDatabase();

  const first = await startService({ database });
  await first.ready();
  const migrated = first.logs().find((line) => line.msg === 'migrations applied');
  assert.ok(migrated, `no "migrations applied" line in:\n${first.stdout()}`);
  assert.ok((migrated.migrations as string[]).includes('0001_foundation.sql'));
  assert.equal(first.stdout().split('Demo data created.').length - 1, 1, 'the demo data is described once');
  assert.match(first.stdout(), /Restaurant owner +owner@demo\.servery\.test +password \S+/);
  assert.match(first.stdout(), /client_secret svc_cs_\S+/);
  const token = demoToken(first.stdout());
  const answer = await me(first.url, token);
  assert.equal(answer.status, 200);
  assert.equal((answer.body.tenant as { name: string }).name, 'Demo Developer Test Restaurant');
  assert.equal((answer.body.app as { name: string }).name, 'Demo POS');
  const store = (await (await fetch(`${first.url}/v1/store`, { headers: bearer(token) })).json()) as {
    opening_hours: Array<{ weekday: number }>;
    closures: Array<{ date: string; closed: boolean }>;
    order_types: Record<string, boolean>;
    address: { city: string };
  };
  assert.deepEqual(
    [...new Set(store.opening_hours.map((w) => w.weekday))],
    [1, 2, 3, 4, 5, 6],
    'Monday closed',
  );
  assert.deepEqual(
    store.closures.map((c) => [c.date.slice(5), c.closed]),
    [
      ['12-24', false],
      ['12-25', true],
    ],
  );
  assert.deepEqual(store.order_types, { pickup: true, delivery: true, dine_in: false });
  assert.equal(store.address.city, 'Berlin');
  const tables = (await (await fetch(`${first.url}/v1/tables`, { headers: bearer(token) })).json()) as {
    data: unknown[];
  };
  assert.equal(tables.data.length, 10);
  assert.deepEqual(await first.stop(), { code: 0, signal: null });

  const second = await startService({ database });
  await second.ready();
  assert.doesNotMatch(second.stdout(), /Demo data created|svc_at_|svc_cs_|password/);
  assert.equal(
    second.logs().find((line) => line.msg === 'migrations applied'),
    undefined,
    'nothing is left to migrate',
  );
  // Every line of a start without demo data is JSON.
  for (const line of second.stdout().split('\n').filter(Boolean))
    assert.doesNotThrow(() => JSON.parse(line), line);
  const again = await me(second.url, token);
  assert.equal(again.status, 200, 'the token of the first start still works: the data was kept');
  assert.equal(again.body.id, answer.body.id);
  assert.deepEqual(await second.stop(), { code: 0, signal: null });
});
