import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { hangCatcherMs } from '../waiting.ts';
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

/** The app's token pairs the first start prints, by restaurant slug, each with its label. */
function printedPairs(output: string): Map<string, { label: string; access: string; refresh: string }> {
  const pairs = new Map<string, { label: string; access: string; refresh: string }>();
  const pair =
    /^ +"[^"]+" \(([a-z0-9-]+), (?:live|test)\): (.+)\n +access_token +(svc_at_\S+)\n +refresh_token +(svc_rt_\S+)$/gm;
  for (const [, slug = '', label = '', access = '', refresh = ''] of output.matchAll(pair))
    pairs.set(slug, { label, access, refresh });
  return pairs;
}

test('serve on an empty database migrates it, creates the demo data once, and keeps it', {
  timeout: hangCatcherMs,
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

  // A token pair for each restaurant, labelled: where the demo's guest orders arrive, and the
  // developer's test restaurant. Each access token is the named restaurant's.
  const pairs = printedPairs(first.stdout());
  assert.deepEqual([...pairs.keys()], ['trattoria-demo', 'demo-developer-test-restaurant'], first.stdout());
  const live = pairs.get('trattoria-demo') as { label: string; access: string; refresh: string };
  assert.match(live.label, /guest orders arrive here \(npm run servery -- demo guests\)/);
  assert.match(pairs.get('demo-developer-test-restaurant')?.label ?? '', /the developer’s test restaurant/);
  assert.equal(
    pairs.get('demo-developer-test-restaurant')?.access,
    token,
    'the API examples are the test restaurant’s',
  );
  for (const [slug, { access }] of pairs)
    assert.equal(((await me(first.url, access)).body.tenant as { slug: string }).slug, slug);
  assert.match(
    first.stdout(),
    new RegExp(`Bearer ${live.access}' \\S+/v1/orders`),
    'orders are followed in the demo restaurant',
  );
  assert.match(first.stdout(), /npm run servery -- demo token --restaurant trattoria-demo\n/);
  // The refresh token works at the token endpoint, with the app's printed client credentials.
  const clientId = /client_id (svc_app_\S+)/.exec(first.stdout())?.[1] ?? '';
  const clientSecret = /client_secret (svc_cs_\S+)/.exec(first.stdout())?.[1] ?? '';
  assert.ok(
    first
      .stdout()
      .includes(
        `curl -u '${clientId}:${clientSecret}' -d grant_type=refresh_token -d refresh_token=${live.refresh} `,
      ),
  );
  const refreshed = await fetch(`${first.url}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: live.refresh }),
  });
  const grant = (await refreshed.json()) as {
    access_token: string;
    refresh_token: string;
    tenant: { slug: string };
  };
  assert.equal(refreshed.status, 200, JSON.stringify(grant));
  assert.equal(grant.tenant.slug, 'trattoria-demo');
  assert.match(grant.refresh_token, /^svc_rt_/);
  assert.equal((await me(first.url, grant.access_token)).status, 200);
  assert.deepEqual(await first.stop(), { code: 0, signal: null });

  const second = await startService({ database });
  await second.ready();
  assert.doesNotMatch(second.stdout(), /Demo data created|svc_at_|svc_rt_|svc_cs_|password/);
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
