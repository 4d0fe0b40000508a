/*
 * Issue 17, "many processes": `servery serve --role api` twice and `--role worker` twice on one
 * PostgreSQL database (and Redis for the rate limits), as docs/operators.md describes. What one
 * process does, the other sees at once: the rate limit counts across both, an Idempotency-Key has
 * one effect whichever process it reaches, the refresh grace rule holds across them, two workers
 * deliver each webhook event once, and orders, menu and store read the same on both.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { issueAuthorizationCode } from '../../src/domain/oauth/authorization-codes.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { newId, newSecret, sha256 } from '../../src/domain/shared/ids.ts';
import { setAppWebhook } from '../../src/domain/webhooks/app-webhook.service.ts';
import { citusUrl } from '../citus-cluster.ts';
import { makeTenant, type Tenant } from '../harness.ts';
import { pkce, redirectUri } from '../oauth/oauth-helpers.ts';
import { eventually } from '../waiting.ts';
import {
  bearer,
  killServices,
  migratedDatabase,
  postgresUrl,
  type Service,
  type ServiceDatabase,
  startService,
  withDatabase,
} from './service.ts';

const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const skip =
  postgresUrl || citusUrl
    ? false
    : 'needs PostgreSQL (DATABASE_URL or CITUS_URL): a PGlite directory is open in one process only';

let database: ServiceDatabase;
let api: [Service, Service];
let workers: Service[];
let receiver: Receiver;

before(async () => {
  if (skip) return;
  database = await migratedDatabase();
  receiver = await startReceiver();
  const start = (role: 'api' | 'worker') =>
    startService({
      database,
      args: ['serve', '--role', role],
      env: { DEMO_DATA: 'false', REDIS_URL: redisUrl, WEBHOOKS_ALLOW_INSECURE: 'true' },
    });
  api = [await start('api'), await start('api')];
  workers = [await start('worker'), await start('worker')];
  await Promise.all(api.map((service) => service.ready()));
  await Promise.all(workers.map((worker) => worker.waitForLog((line) => line.msg === 'Servery started')));
});
after(async () => {
  await killServices();
  await receiver?.close();
  await database?.remove();
});

/** What the workers logged as warnings or errors, for a failure's message. */
function workersWarned(): string {
  const lines = workers.flatMap((worker) => worker.logs().filter((line) => Number(line.level) >= 40));
  return lines.length > 0 ? `; the workers warned: ${JSON.stringify(lines)}` : '';
}

/** A restaurant with a connected app, made in the database as the harness does. */
function tenant(options: Parameters<typeof makeTenant>[1] = {}): Promise<Tenant> {
  return withDatabase(database, ({ db }) => makeTenant(systemCtx(db), options));
}

interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
  body: any;
}

async function call(
  service: Service,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      ...bearer(token),
      ...headers,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

async function ok(service: Service, token: string, method: string, path: string, body?: unknown) {
  const answer = await call(service, token, method, path, body);
  assert.ok(
    answer.status === 200 || answer.status === 201,
    `${method} ${path}: ${JSON.stringify(answer.body)}`,
  );
  return answer.body;
}

describe('2 API and 2 worker processes on one PostgreSQL', { skip }, () => {
  test('the rate limit counts requests to both API processes together (Redis)', async () => {
    await assertLimitAcrossProcesses(api);
  });

  test('the rate limit counts across processes in PostgreSQL too (no REDIS_URL)', async () => {
    const start = () =>
      startService({ database, args: ['serve', '--role', 'api'], env: { DEMO_DATA: 'false' } });
    const pair: [Service, Service] = [await start(), await start()];
    try {
      await Promise.all(pair.map((service) => service.ready()));
      await assertLimitAcrossProcesses(pair);
    } finally {
      await Promise.all(pair.map((service) => service.stop()));
    }
  });

  test('one Idempotency-Key sent to both processes at once and then again: one effect, one answer', async () => {
    const { token, restaurantId } = await tenant();
    const rounds = 10;
    for (let round = 0; round < rounds; round++) {
      const key = `many-${round}-${randomBytes(4).toString('hex')}`;
      const body = { date: `2031-01-${String(round + 1).padStart(2, '0')}`, closed: true, note: key };
      const send = (service: Service) =>
        call(service, token, 'POST', '/v1/store/closures', body, { 'idempotency-key': key });
      // At once: one runs, the other replays it or is told it is still running (and retries).
      const answers = await Promise.all(api.map((service) => untilNotInProgress(() => send(service))));
      // Then in sequence, on each process.
      for (const service of api) answers.push(await send(service));
      for (const answer of answers) {
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        assert.deepEqual(answer.body, answers[0]?.body);
      }
      const replayed = answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true');
      assert.equal(replayed.length, answers.length - 1, 'every answer but one is a replay');
    }
    await withDatabase(database, async ({ db }) => {
      const closures = await db
        .selectFrom('store_closures')
        .select('date')
        .where('tenant_id', '=', restaurantId)
        .execute();
      assert.equal(closures.length, rounds);
      const events = await db
        .selectFrom('events')
        .select('id')
        .where('tenant_id', '=', restaurantId)
        .where('type', '=', 'store.updated')
        .execute();
      assert.equal(events.length, rounds, 'one store.updated per key');
    });
  });

  test('the refresh grace rule holds across processes', async () => {
    const client = await oauthClient();
    const [one, two] = api;
    // In sequence: a refresh on one process, the old token again on the other within 60 s.
    const first = await firstPair(one, client);
    const next = await refresh(one, client, first.refresh_token);
    assert.equal(next.status, 200, JSON.stringify(next.body));
    const grace = await refresh(two, client, first.refresh_token);
    assert.equal(grace.status, 200, 'the grace rule on the other process');
    assert.equal(await meStatus(one, next.body.access_token), 401, 'the first answer’s pair is revoked');
    assert.equal(await meStatus(two, grace.body.access_token), 200);
    assert.equal((await refresh(one, client, next.body.refresh_token)).status, 400, 'a revoked token');

    // At once, both processes: one rotation, the rest under the grace rule; one pair stays live.
    for (let round = 0; round < 5; round++) {
      const pair = await firstPair(one, client);
      const answers = await Promise.all(
        [one, two, one, two].map((service) => refresh(service, client, pair.refresh_token)),
      );
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [200, 200, 200, 200],
        JSON.stringify(answers.map((answer) => answer.body)),
      );
      const live = await liveRefreshTokens(pair.refresh_token);
      assert.equal(live.length, 1, 'exactly one unused, unrevoked refresh token');
      const winner = answers.find((answer) => live.includes(sha256(answer.body.refresh_token)));
      assert.ok(winner);
      for (const answer of answers)
        assert.equal(await meStatus(two, answer.body.access_token), answer === winner ? 200 : 401);
    }

    // Outside the grace rule (the newest token already used), a reuse on the other process
    // revokes the whole family.
    const family = await firstPair(one, client);
    const second = (await refresh(one, client, family.refresh_token)).body;
    const third = (await refresh(two, client, second.refresh_token)).body;
    assert.equal((await refresh(one, client, family.refresh_token)).status, 400);
    assert.equal(await meStatus(two, third.access_token), 401, 'the family is revoked');
  });

  test('two workers deliver every event of several restaurants once', async () => {
    // Three restaurants, each with its app's webhook: a claim and a batch of outcomes span them
    // (on Citus their rows lie on different nodes).
    const restaurants: Tenant[] = [];
    for (let n = 0; n < 3; n++) restaurants.push(await tenant({ livemode: false }));
    const paths = new Map<string, string>();
    for (const test of restaurants) {
      const path = `/hooks/${randomBytes(4).toString('hex')}`;
      paths.set(test.restaurantId, path);
      await withDatabase(database, ({ db }) =>
        setAppWebhook(systemCtx(db), {
          clientId: test.clientId,
          developerId: null,
          url: `${receiver.url}${path}`,
          events: ['store.*'],
          rules: { allowInsecure: true },
        }),
      );
    }
    const events = 20;
    // Written through both API processes, each restaurant's at the same time.
    for (let i = 0; i < events; i += 2)
      await Promise.all(
        restaurants.flatMap((test) =>
          api.map((service, n) =>
            ok(service, test.token, 'POST', '/v1/store/closures', {
              date: new Date(Date.UTC(2032, 0, 1 + i + n)).toISOString().slice(0, 10),
              closed: true,
            }),
          ),
        ),
      );
    for (const test of restaurants) {
      const feed: string[] = [];
      for (let after = ''; ; ) {
        const page = await ok(api[1], test.token, 'GET', `/v1/events?types=store.*&limit=100${after}`);
        feed.push(...page.data.map((event: { id: string }) => event.id));
        if (!page.has_more) break;
        after = `&after=${page.next_after}`;
      }
      assert.equal(feed.length, events);

      const arrived = () =>
        receiver.arrivals.filter((arrival) => arrival.path === paths.get(test.restaurantId));
      await eventually('every event arrived', () => new Set(arrived().map((a) => a.eventId)).size >= events, {
        describe: workersWarned,
      });
      // Every delivery is finished in the database: nothing more is on its way.
      await withDatabase(database, ({ db }) =>
        eventually(
          'every delivery finished',
          async () => {
            const open = await db
              .selectFrom('webhook_deliveries')
              .select('id')
              .where('tenant_id', '=', test.restaurantId)
              .where('delivered_at', 'is', null)
              .execute();
            return open.length === 0;
          },
          { describe: workersWarned },
        ),
      );
      const ids = arrived().map((arrival) => arrival.eventId);
      assert.deepEqual(
        [...ids].sort(),
        [...feed].sort(),
        `each event arrived exactly once${workersWarned()}`,
      );
    }
    for (const worker of workers) assert.equal(worker.child.exitCode, null);
  });

  test('an order placed through one process is listed at once by the other, also after a product is deleted', async () => {
    const restaurant = await tenant();
    const { token } = restaurant;
    const [one, two] = api;
    await ok(one, token, 'PUT', '/v1/store/hours', { always_open: true });
    await ok(one, token, 'PATCH', '/v1/store', { order_types: { pickup: true } });
    const pizza = await ok(one, token, 'POST', '/v1/menu/products', { name: 'Pizza', price: 1200 });
    const lemonade = await ok(one, token, 'POST', '/v1/menu/products', { name: 'Lemonade', price: 350 });
    const slug = await withDatabase(
      database,
      async ({ db }) =>
        (
          await db
            .selectFrom('restaurants')
            .select('slug')
            .where('id', '=', restaurant.restaurantId)
            .executeTakeFirstOrThrow()
        ).slug,
    );
    /** A guest's pickup order on the storefront's JSON API of `service`. */
    const order = (service: Service, items: { product_id: string; quantity: number }[]) =>
      fetch(`${service.url}/s/${slug}/api/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'pickup',
          items: items.map((item) => ({ ...item, option_ids: [] })),
          customer: { name: 'Alex Guest', phone: '+49 30 5550100' },
          payment_method: 'on_site',
        }),
      });

    // Each process lists the orders once first, so whatever it keeps is warm.
    for (const service of api) await ok(service, token, 'GET', '/v1/orders');
    const placed = await order(one, [
      { product_id: pizza.id, quantity: 1 },
      { product_id: lemonade.id, quantity: 2 },
    ]);
    assert.equal(placed.status, 201);
    const { order: first } = (await placed.json()) as { order: { id: string } };
    const listed = await ok(two, token, 'GET', '/v1/orders');
    assert.deepEqual(
      listed.data.map((o: { id: string }) => o.id),
      [first.id],
    );
    const productIds = (o: { items: { product_id: string | null }[] }) =>
      o.items.map((item) => item.product_id);
    assert.deepEqual(productIds(listed.data[0]), [pizza.id, lemonade.id]);

    // A product deleted on one process: the other's list shows its lines without product_id.
    await ok(one, token, 'DELETE', `/v1/menu/products/${pizza.id}`);
    const afterDeletion = await ok(two, token, 'GET', '/v1/orders');
    assert.deepEqual(productIds(afterDeletion.data[0]), [null, lemonade.id]);
    assert.deepEqual(productIds(await ok(two, token, 'GET', `/v1/orders/${first.id}`)), [null, lemonade.id]);
    assert.equal((await ok(two, token, 'GET', `/v1/menu/products/${lemonade.id}`)).id, lemonade.id);
    assert.equal((await call(two, token, 'GET', `/v1/menu/products/${pizza.id}`)).status, 404);

    // A change on the other process is seen by the first at once: a status move, a new order.
    await ok(two, token, 'POST', `/v1/orders/${first.id}/accept`, {});
    assert.notEqual((await ok(one, token, 'GET', `/v1/orders/${first.id}`)).status, 'pending');
    const refused = await order(two, [{ product_id: pizza.id, quantity: 1 }]);
    assert.equal(refused.status, 400, 'the deleted product cannot be ordered on the other process');
    const { error } = (await refused.json()) as { error: { param: string } };
    assert.equal(error.param, 'items[0].product_id');
    assert.equal((await order(two, [{ product_id: lemonade.id, quantity: 1 }])).status, 201);
    assert.equal((await ok(one, token, 'GET', '/v1/orders')).data.length, 2);

    // The store: paused on one process, the other's storefront takes no order and shows it paused.
    await ok(one, token, 'POST', '/v1/store/pause', { note: 'Back soon' });
    assert.equal((await ok(two, token, 'GET', '/v1/store')).status, 'paused');
    const paused = await order(two, [{ product_id: lemonade.id, quantity: 1 }]);
    assert.notEqual(paused.status, 201, 'a paused store takes no order on any process');
    await ok(two, token, 'DELETE', '/v1/store/pause');
    assert.notEqual((await ok(one, token, 'GET', '/v1/store')).status, 'paused');
  });
});

/**
 * Requests of a new connection alternating between the two processes: 120 pass, the 121st is
 * refused, on either. The window is a minute of real time: should the machine be so busy that
 * the requests took longer, they prove nothing, and a fresh connection tries again.
 */
async function assertLimitAcrossProcesses(pair: readonly [Service, Service]) {
  const statuses: number[] = [];
  const remaining: (string | null)[] = [];
  await eventually('126 requests within one window', async () => {
    const { token } = await tenant();
    statuses.length = 0;
    remaining.length = 0;
    const since = Date.now();
    for (let i = 0; i < 126; i++) {
      const response = await fetch(`${pair[i % 2]?.url}/v1/me`, { headers: bearer(token) });
      await response.arrayBuffer();
      statuses.push(response.status);
      remaining.push(response.headers.get('ratelimit-remaining'));
      if (response.status === 429) {
        assert.ok(Number(response.headers.get('retry-after')) > 0);
      }
    }
    return Date.now() - since < 60_000;
  });
  assert.deepEqual(
    statuses,
    [...Array(120).fill(200), ...Array(6).fill(429)],
    'the limit is 120 per connection, not 120 per process',
  );
  assert.deepEqual(
    remaining.slice(0, 120),
    Array.from({ length: 120 }, (_, i) => String(119 - i)),
  );
}

/** Sends again while the answer is 409 idempotency_in_progress (the spec: retry briefly). */
function untilNotInProgress(send: () => Promise<Answer>): Promise<Answer> {
  return eventually('an answer other than idempotency_in_progress', async () => {
    const answer = await send();
    return (answer.status !== 409 || answer.body?.error?.code !== 'idempotency_in_progress') && answer;
  });
}

// OAuth through the running processes: a client with a known secret and codes minted in the database.

interface Client extends Tenant {
  secret: string;
}

async function oauthClient(): Promise<Client> {
  const client = await tenant();
  const secret = newSecret('svc_cs_');
  await withDatabase(database, ({ db }) =>
    db
      .insertInto('app_secrets')
      .values({
        id: newId(),
        app_id: client.appId,
        secret_hash: sha256(secret),
        created_at: new Date(),
        expires_at: null,
      })
      .execute(),
  );
  return { ...client, secret };
}

async function token(service: Service, client: Client, form: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${service.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form, client_id: client.clientId, client_secret: client.secret }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function firstPair(service: Service, client: Client) {
  const { verifier, challenge } = pkce();
  const code = await withDatabase(database, ({ db }) =>
    issueAuthorizationCode(systemCtx(db), {
      tenantId: client.restaurantId,
      connectionId: client.connectionId,
      appId: client.appId,
      scopes: ['orders:read', 'store:read'],
      redirectUri,
      codeChallenge: challenge,
    }),
  );
  const answer = await token(service, client, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body as { access_token: string; refresh_token: string };
}

const refresh = (service: Service, client: Client, refreshToken: string) =>
  token(service, client, { grant_type: 'refresh_token', refresh_token: refreshToken });

async function meStatus(service: Service, accessToken: string): Promise<number> {
  const response = await fetch(`${service.url}/v1/me`, { headers: bearer(accessToken) });
  await response.arrayBuffer();
  return response.status;
}

/** The refresh tokens of the family that are neither used nor revoked. */
function liveRefreshTokens(refreshToken: string): Promise<string[]> {
  return withDatabase(database, async ({ db }) => {
    const { family_id } = await db
      .selectFrom('refresh_tokens')
      .select('family_id')
      .where('token_hash', '=', sha256(refreshToken))
      .executeTakeFirstOrThrow();
    const rows = await db
      .selectFrom('refresh_tokens')
      .select('token_hash')
      .where('family_id', '=', family_id)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .execute();
    return rows.map((row) => row.token_hash);
  });
}

// A webhook receiver on a loopback port: answers 200 at once and records the event id of each POST.

interface Receiver {
  url: string;
  arrivals: { path: string; eventId: string }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals: Receiver['arrivals'] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push({ path: req.url ?? '', eventId: String(req.headers['service-event-id']) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
