import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import {
  bearer,
  cliPath,
  freePort,
  killServices,
  migratedDatabase,
  type Service,
  type ServiceDatabase,
  startService,
} from '../operations/service.ts';
import { eventually, hangCatcherMs } from '../waiting.ts';
import { type CliRun, jsonOf, openCliDatabase } from './cli-runner.ts';

/*
 * `servery demo token` and `servery demo guests` beside a running service, as a newcomer runs
 * them in a second terminal: the service's first start created the demo data; the commands find
 * the database (on PGlite through the service's socket) and the service (PORT, BASE_URL, --url)
 * from the same settings as the service.
 */

let database: ServiceDatabase | null = null;
let service: Service;
let client = { id: '', secret: '' };

before(async () => {
  database = await migratedDatabase();
  // Any port but the default 3000: the commands must find the service where the settings say.
  let port = await freePort();
  while (port === 3000) port = await freePort();
  service = await startService({ database, port });
  await service.ready();
  const printed = service.stdout();
  client = {
    id: /client_id (svc_app_\S+)/.exec(printed)?.[1] ?? '',
    secret: /client_secret (svc_cs_\S+)/.exec(printed)?.[1] ?? '',
  };
  assert.ok(client.id && client.secret, printed);
});
after(async () => {
  await killServices();
  await database?.remove();
});

/** `servery <args>` in a second terminal: the service's database settings, and `env`. */
function servery(env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent' };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'PORT', 'BASE_URL'])
    delete childEnv[name];
  Object.assign(childEnv, database?.env, env);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cliPath, ...args],
      { env: childEnv, timeout: hangCatcherMs },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

async function me(token: string): Promise<{ status: number; slug: string | undefined }> {
  const response = await fetch(`${service.url}/v1/me`, { headers: bearer(token) });
  const body = (await response.json()) as { tenant?: { slug: string } };
  return { status: response.status, slug: body.tenant?.slug };
}

async function refresh(refreshToken: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${service.url}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('servery demo token', { timeout: hangCatcherMs }, () => {
  test('prints a fresh pair for the restaurant named, which the API and the token endpoint accept', async () => {
    const { app, tokens } = jsonOf(
      await servery({}, 'demo', 'token', '--restaurant', 'trattoria-demo', '--json'),
    );
    assert.deepEqual(app, { client_id: client.id, name: 'Demo POS' });
    assert.equal(tokens.length, 1);
    const [pair] = tokens;
    assert.deepEqual(
      { ...pair.restaurant, id: undefined },
      { id: undefined, name: 'Trattoria Demo', slug: 'trattoria-demo', livemode: true },
    );
    assert.equal(pair.token_type, 'Bearer');
    assert.equal(pair.expires_in, 3600);
    assert.deepEqual(await me(pair.access_token), { status: 200, slug: 'trattoria-demo' });

    const refreshed = await refresh(pair.refresh_token);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.equal((refreshed.body.tenant as { slug: string }).slug, 'trattoria-demo');
    assert.equal(refreshed.body.connection_id, pair.connection_id);
    assert.deepEqual(await me(refreshed.body.access_token as string), {
      status: 200,
      slug: 'trattoria-demo',
    });
  });

  test('without --restaurant: a pair for each restaurant, labelled by what it is to the demo', async () => {
    const run = await servery({}, 'demo', 'token');
    assert.equal(run.stderr, '');
    assert.equal(run.code, 0);
    const pairs = [
      ...run.stdout.matchAll(
        /^ {2}"([^"]+)" \(([a-z0-9-]+), (live|test)\): (.+)\n {4}access_token +(svc_at_\S+)\n {4}refresh_token +(svc_rt_\S+)$/gm,
      ),
    ].map(([, name, slug, mode, label, access, refreshToken]) => ({
      name,
      slug,
      mode,
      label,
      access,
      refreshToken,
    }));
    assert.deepEqual(
      pairs.map(({ name, slug, mode }) => [name, slug, mode]),
      [
        ['Trattoria Demo', 'trattoria-demo', 'live'],
        ['Demo Developer Test Restaurant', 'demo-developer-test-restaurant', 'test'],
      ],
      run.stdout,
    );
    assert.match(
      pairs[0]?.label ?? '',
      /the demo’s guest orders arrive here \(npm run servery -- demo guests\)/,
    );
    assert.match(pairs[1]?.label ?? '', /the developer’s test restaurant/);
    for (const pair of pairs) {
      assert.deepEqual(await me(pair.access ?? ''), { status: 200, slug: pair.slug });
      assert.equal((await refresh(pair.refreshToken ?? '')).status, 200);
    }
    assert.match(run.stdout, new RegExp(`try: curl -H 'Authorization: Bearer ${pairs[0]?.access}' `));
  });

  test('refuses a restaurant that does not exist, and a database without demo data', async () => {
    const unknown = await servery({}, 'demo', 'token', '--restaurant', 'no-such-place');
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stdout, '');
    assert.equal(unknown.stderr, 'servery: no restaurant with the slug "no-such-place"\n');

    const empty = await openCliDatabase(async () => {});
    try {
      const none = await empty.run('demo', 'token');
      assert.equal(none.code, 2);
      assert.match(none.stderr, /^servery: this database has no demo data/);
    } finally {
      await empty.close();
    }
  });
});

describe('servery demo guests', { timeout: hangCatcherMs }, () => {
  const storeRequests = () =>
    service
      .logs()
      .filter(
        (line) =>
          line.msg === 'incoming request' &&
          (line.req as { url?: string } | undefined)?.url === '/s/trattoria-demo/api/store',
      ).length;

  test('finds the service at PORT, as the service itself does', async () => {
    const before = storeRequests();
    const run = await servery({ PORT: String(service.port) }, 'demo', 'guests', '--orders', '1');
    assert.equal(run.code, 0, run.stderr);
    const [target, order] = run.stdout.split('\n');
    assert.equal(target, `guests order at http://localhost:${service.port}/s/trattoria-demo`);
    // Placed or refused, the line is the service's answer.
    assert.match(order ?? '', /^order 1\/1: /);
    await eventually('the service’s log of the guests’ request', () => storeRequests() > before);
  });

  test('BASE_URL wins over PORT, and --url over both', async () => {
    const nothing = await freePort();
    const viaBase = await servery(
      { PORT: String(nothing), BASE_URL: `http://127.0.0.1:${service.port}` },
      ...['demo', 'guests', '--orders', '1', '--json'],
    );
    assert.deepEqual(Object.keys(jsonOf(viaBase)), ['placed']);

    const viaUrl = await servery(
      { PORT: String(nothing), BASE_URL: `http://127.0.0.1:${nothing}` },
      ...['demo', 'guests', '--orders', '1', '--url', `http://127.0.0.1:${service.port}/`],
    );
    assert.equal(viaUrl.code, 0, viaUrl.stderr);
    assert.match(
      viaUrl.stdout,
      new RegExp(`^guests order at http://127\\.0\\.0\\.1:${service.port}/s/trattoria-demo\\norder 1/1: `),
    );
  });

  test('says where it looked when nothing answers there', async () => {
    const nothing = await freePort();
    const run = await servery({ PORT: String(nothing) }, 'demo', 'guests', '--orders', '1');
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      new RegExp(`^servery: demo guests: nothing answers at http://localhost:${nothing} \\(ECONNREFUSED\\)`),
    );
  });
});
