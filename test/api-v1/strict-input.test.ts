import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import {
  bearer,
  buildTestApp,
  call,
  makeTenant,
  newAccount,
  signInTo,
  type Tenant,
  type TestApp,
  tokenFor,
} from '../harness.ts';

/*
 * The rules every surface applies to what it is sent (spec: Conventions, "JSON, UTF-8", Errors
 * invalid_request; RFC 9110 and RFC 6750 for the Authorization header): bad input is a 400 in the
 * error shape with `param` where a field is at fault, never a 500, and changes nothing.
 */

let t: TestApp;
let tenant: Tenant;
before(async () => {
  t = await buildTestApp();
  tenant = await makeTenant(t.ctx);
});
after(() => t.close());

type Response = Awaited<ReturnType<TestApp['app']['inject']>>;

const send = (method: string, url: string, payload?: string | Buffer, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: method as 'GET',
    url: `/v1${url}`,
    headers: {
      ...bearer(tenant.token),
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(payload === undefined ? {} : { payload }),
  });

function assertError(res: Response, status: number, code: string, param?: string): void {
  assert.equal(res.statusCode, status, `${res.statusCode} ${res.body}`);
  const body = res.json() as { error: { code: string; request_id: string; param?: string } };
  assert.equal(body.error.code, code, res.body);
  assert.equal(body.error.request_id, res.headers['x-request-id']);
  assert.equal(body.error.param, param, res.body);
}

/** What a refused request must have left as it was: the store and the restaurant's events. */
async function snapshot(): Promise<string> {
  const store = (await send('GET', '/store')).json();
  const events = await t.database.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('tenant_id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
  return JSON.stringify({ store, events: Number(events.n) });
}

async function dashboardOwner(): Promise<{ cookie: string; restaurantId: string }> {
  const owner = await newAccount(t, false);
  const restaurant = await createRestaurant(t.ctx, {
    name: `Strict input ${process.pid}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    country: 'DE',
    plan: 'pro',
    livemode: true,
    ownerIds: [owner.id],
  });
  return { cookie: await signInTo(t.app, 'dashboard', owner.email), restaurantId: restaurant.id };
}

describe('text', () => {
  test('a NUL character in any string → 400 invalid_request naming it, nothing changed', async () => {
    const before = await snapshot();
    assertError(
      await send('POST', '/store/pause', JSON.stringify({ note: 'a\u0000b' })),
      400,
      'invalid_request',
      'note',
    );
    const closure = { date: '2030-12-24', closed: true, note: 'x\u0000' };
    assertError(
      await send('POST', '/store/closures', JSON.stringify(closure)),
      400,
      'invalid_request',
      'note',
    );
    assertError(await send('GET', '/events?types=order.created%00'), 400, 'invalid_request', 'types');
    assertError(await send('DELETE', '/store/closures/2030-12-2%00'), 400, 'invalid_request', 'date');
    assertError(await send('GET', '/events/evt_%00'), 400, 'invalid_request', 'id');
    assert.equal(await snapshot(), before);
  });

  test('the same rule on the dashboard, the console and the OAuth endpoints: 400, never 500', async () => {
    const { cookie, restaurantId } = await dashboardOwner();
    const pause = await call(
      t.app,
      'POST',
      `/dashboard/api/restaurants/${restaurantId}/store/pause`,
      cookie,
      {
        note: 'a\u0000b',
      },
    );
    assertError(pause, 400, 'invalid_request', 'note');
    const signIn = await call(t.app, 'POST', '/console/api/sessions', null, {
      email: 'a\u0000@x.test',
      password: 'p',
    });
    assertError(signIn, 400, 'invalid_request', 'email');
    for (const url of ['/oauth/token', '/oauth/revoke']) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=refresh_token&token=x&refresh_token=x&client_id=svc_app_%00',
      });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.equal(res.json().error, 'invalid_request');
      // Bytes that are no UTF-8 are refused too, never read as U+FFFD.
      const latin1 = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'token=%FF&client_id=x',
      });
      assert.equal(latin1.statusCode, 400, `${url}: ${latin1.body}`);
      assert.equal(latin1.json().error, 'invalid_request');
    }
    const consent = await t.app.inject({ method: 'GET', url: '/oauth/authorize?client_id=svc_app_%00' });
    assert.equal(consent.statusCode, 400);
    assert.match(String(consent.headers['content-type']), /^text\/html/);
  });

  test('lengths count characters: a pause note of 140 emoji is taken, 141 are refused', async () => {
    const note = '😀'.repeat(140);
    const taken = await send('POST', '/store/pause', JSON.stringify({ note }));
    assert.equal(taken.statusCode, 200, taken.body);
    assert.equal(taken.json().pause_note, note);
    const before = await snapshot();
    assertError(
      await send('POST', '/store/pause', JSON.stringify({ note: `${note}😀` })),
      400,
      'invalid_request',
      'note',
    );
    assert.equal(await snapshot(), before);
    assert.equal((await send('DELETE', '/store/pause')).statusCode, 200);
  });

  test('bodies are UTF-8: lone surrogates, invalid bytes and other charsets → 400, never U+FFFD', async () => {
    const before = await snapshot();
    assertError(await send('POST', '/store/pause', '{"note":"\\ud800"}'), 400, 'invalid_request', 'note');
    assertError(await send('POST', '/store/pause', '{"note":"a\\udc00b"}'), 400, 'invalid_request', 'note');
    const invalidBytes = [Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xed, 0xa0, 0x80])];
    for (const bytes of invalidBytes) {
      const payload = Buffer.concat([Buffer.from('{"note":"'), bytes, Buffer.from('"}')]);
      assertError(await send('POST', '/store/pause', payload), 400, 'invalid_request');
    }
    for (const type of ['application/json; charset=iso-8859-1', 'application/json; charset=utf-16']) {
      assertError(await send('POST', '/store/pause', '{}', { 'content-type': type }), 400, 'invalid_request');
    }
    assert.equal(await snapshot(), before);
    // The media type and the charset compare case-insensitively.
    for (const type of [
      'APPLICATION/JSON',
      'Application/Json; Charset="UTF-8"',
      'application/json;charset=utf8',
    ]) {
      const res = await send('POST', '/store/pause', '{"note":"ü"}', { 'content-type': type });
      assert.equal(res.statusCode, 200, `${type}: ${res.body}`);
      assert.equal(res.json().pause_note, 'ü');
    }
    assert.equal((await send('DELETE', '/store/pause')).statusCode, 200);
    // The dashboard reads its bodies the same way.
    const { cookie, restaurantId } = await dashboardOwner();
    const dashboard = await t.app.inject({
      method: 'POST',
      url: `/dashboard/api/restaurants/${restaurantId}/store/pause`,
      headers: { cookie, 'content-type': 'application/json' },
      payload: Buffer.from([0x7b, 0x22, 0x6e, 0x6f, 0x74, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
    });
    assertError(dashboard, 400, 'invalid_request');
  });
});

describe('timestamps', () => {
  test('a timestamp must name an instant with a zone: leap seconds, impossible dates → 400, nothing changed', async () => {
    const before = await snapshot();
    const refused = [
      '2030-06-30T23:59:60Z',
      '2030-02-30T10:00:00Z',
      '2030-06-30T24:00:00Z',
      '2030-06-30T10:61:00Z',
      '2030-06-30T10:00:00+24:00',
      '2030-06-30T10:00:00',
      '2030-06-30 10:00:00Z',
      '2030-06-30T10:00Z',
      '2030-06-30',
    ];
    for (const until of refused) {
      assertError(
        await send('POST', '/store/pause', JSON.stringify({ until })),
        400,
        'invalid_request',
        'until',
      );
    }
    assert.equal(await snapshot(), before);
    const { cookie, restaurantId } = await dashboardOwner();
    const dashboard = await call(
      t.app,
      'POST',
      `/dashboard/api/restaurants/${restaurantId}/store/pause`,
      cookie,
      {
        until: '2030-06-30T23:59:60Z',
      },
    );
    assertError(dashboard, 400, 'invalid_request', 'until');
  });

  test('offsets in every RFC 3339 form are read as the instant they name', async () => {
    const taken: Record<string, string> = {
      '2030-06-30T10:00:00.5+02:00': '2030-06-30T08:00:00.500Z',
      '2030-06-30T10:00:00+0200': '2030-06-30T08:00:00.000Z',
      '2030-06-30T10:00:00-03': '2030-06-30T13:00:00.000Z',
      '2030-06-30t10:00:00z': '2030-06-30T10:00:00.000Z',
    };
    for (const [until, instant] of Object.entries(taken)) {
      const res = await send('POST', '/store/pause', JSON.stringify({ until }));
      assert.equal(res.statusCode, 200, `${until}: ${res.body}`);
      assert.equal(res.json().paused_until, instant, until);
    }
    assert.equal((await send('DELETE', '/store/pause')).statusCode, 200);
  });
});

describe('the Authorization header', () => {
  test('the scheme is case-insensitive, followed by one or more spaces', async () => {
    for (const header of [`bearer ${tenant.token}`, `BEARER ${tenant.token}`, `Bearer   ${tenant.token}`]) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: header } });
      assert.equal(res.statusCode, 200, header);
    }
    for (const header of [
      `Bearer${tenant.token}`,
      `Basic ${tenant.token}`,
      'Bearer ',
      `Bearer ${tenant.token} x`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: header } });
      assertError(res, 401, 'unauthorized');
    }
  });

  /** The challenges of an answer, as an independent client (oauth4webapi) reads WWW-Authenticate. */
  async function challengesOf(res: Response): Promise<unknown> {
    const response = new Response(res.body, {
      status: res.statusCode,
      headers: { 'www-authenticate': String(res.headers['www-authenticate']) },
    });
    try {
      await oauth.protectedResourceRequest(
        'x',
        'GET',
        new URL('https://servery.test/v1/me'),
        undefined,
        undefined,
        {
          [oauth.customFetch]: async () => response,
        },
      );
    } catch (error) {
      if (error instanceof oauth.WWWAuthenticateChallengeError) return error.cause;
      throw error;
    }
    assert.fail(`no challenge could be read from ${res.headers['www-authenticate']}`);
  }

  test('WWW-Authenticate holds valid quoted-strings that a client reads back exactly', async () => {
    const noToken = await t.app.inject({ method: 'GET', url: '/v1/me' });
    assert.deepEqual(await challengesOf(noToken), [{ scheme: 'bearer', parameters: { realm: 'servery' } }]);
    for (const authorization of ['Token x', 'Bearer svc_at_unknown']) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization } });
      const [challenge] = (await challengesOf(res)) as Array<{ parameters: Record<string, string> }>;
      assert.deepEqual(Object.keys(challenge?.parameters ?? {}), ['realm', 'error', 'error_description']);
      assert.equal(challenge?.parameters.error, 'invalid_token');
      // RFC 6750 §3: no `"` or `\` in the description; it says what the error body says.
      assert.match(challenge?.parameters.error_description ?? '', /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
      assert.equal(challenge?.parameters.error_description, res.json().error.message);
    }
    const narrow = await tokenFor(t.ctx, tenant, ['orders:read']);
    const scope = await t.app.inject({ method: 'GET', url: '/v1/tables', headers: bearer(narrow) });
    assert.deepEqual(await challengesOf(scope), [
      {
        scheme: 'bearer',
        parameters: { realm: 'servery', error: 'insufficient_scope', scope: 'store:read reservations:read' },
      },
    ]);
  });
});

describe('strict parsing', () => {
  test('query integers are decimal digits only', async () => {
    for (const limit of ['0x10', '1e1', '%201', '1%20', '%2B1', '1.0', '1_0', '']) {
      assertError(await send('GET', `/tables?limit=${limit}`), 400, 'invalid_request', 'limit');
    }
    for (const limit of ['1', '010', '100']) {
      assert.equal((await send('GET', `/tables?limit=${limit}`)).statusCode, 200, limit);
    }
  });

  test('a body on an operation that takes none → 400', async () => {
    assertError(await send('GET', '/me', '{"a":1}'), 400, 'invalid_request');
    assertError(await send('GET', '/store', '{}'), 400, 'invalid_request');
    assertError(await send('GET', '/nowhere', '{}'), 404, 'not_found');
    for (const body of ['[]', 'null', '"x"']) {
      assertError(await send('DELETE', '/connection', body), 400, 'invalid_request');
    }
    assert.equal((await send('GET', '/me')).statusCode, 200);
    assertError(await send('DELETE', '/store/pause', '{"a":1}'), 400, 'invalid_request', 'a');
    // However large: the 400 of any body, never the 413 of the operations that take one (the spec
    // lists 400, 401, 429 and 500 alone for DELETE /connection).
    const large = JSON.stringify({ note: 'x'.repeat(70 * 1024) });
    for (const [method, path] of [
      ['DELETE', '/connection'],
      ['DELETE', '/store/pause'],
      ['GET', '/store'],
    ])
      assertError(await send(method as string, path as string, large), 400, 'invalid_request');
    assert.equal((await send('GET', '/me')).statusCode, 200, 'the connection was not ended');
    assertError(await send('PATCH', '/store', large), 413, 'payload_too_large');
  });

  test('a key twice in a JSON body: the last one counts', async () => {
    for (const last of [true, false]) {
      const res = await send('PATCH', '/store', `{"preorders": ${!last}, "preorders": ${last}}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().preorders, last);
    }
  });

  /** Sends raw bytes to the listening service and reads the whole answer. */
  async function rawRequest(port: number, bytes: string): Promise<{ head: string; body: string }> {
    const socket = connect(port, '127.0.0.1');
    socket.write(Buffer.from(bytes, 'latin1'));
    const chunks: Buffer[] = [];
    for await (const chunk of socket) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const split = text.indexOf('\r\n\r\n');
    return { head: text.slice(0, split), body: text.slice(split + 4) };
  }

  test('requests the HTTP parser refuses get the error shape, X-Request-Id and Service-Api-Version; too large ones 431', async () => {
    const app = await buildTestApp();
    try {
      await app.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.app.server.address() as { port: number };
      const requests: [string, number][] = [
        ['GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Note: a\x01b\r\n\r\n', 400],
        [`GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
        // An over-long request line, far past the limit: the answer arrives, not a reset.
        [`GET /v1/me?q=${'a'.repeat(400_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
        ['GET /v1/me HTTP/9.9 garbage\r\n\r\n', 400],
      ];
      for (const [request, status] of requests) {
        const { head, body } = await rawRequest(port, request);
        assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `));
        const requestId = /\r\nX-Request-Id: (req_[0-9a-f]{24})\r\n/i.exec(head)?.[1];
        assert.ok(requestId, head);
        assert.match(head, /\r\nService-Api-Version: 2026-10-08\r\n/i);
        assert.match(head, /\r\nContent-Type: application\/json; charset=utf-8\r\n/i);
        const error = JSON.parse(body) as { error: { code: string; request_id: string } };
        assert.equal(error.error.code, 'invalid_request');
        assert.equal(error.error.request_id, requestId);
      }
    } finally {
      await app.close();
    }
  });

  test('a path that is not percent-encoded UTF-8, or a part over 100 characters → 400 in the error shape', async () => {
    for (const url of [
      '/events/%FF',
      '/events/a%E0%A4%A',
      '/store/closures/%ED%A0%80',
      `/events/evt_${'0'.repeat(120)}`,
    ]) {
      const res = await send(url.includes('closures') ? 'DELETE' : 'GET', url);
      assertError(res, 400, 'invalid_request');
      assert.equal(res.headers['service-api-version'], '2026-10-08');
    }
  });

  test('idempotency compares bodies by value: another key order is the same request', async () => {
    const key = { 'idempotency-key': `order-${process.pid}` };
    const first = await send(
      'POST',
      '/store/closures',
      '{"date":"2030-12-25","closed":true,"note":"X"}',
      key,
    );
    assert.equal(first.statusCode, 201, first.body);
    const reordered = await send(
      'POST',
      '/store/closures',
      '{ "note": "X", "closed": true, "date": "2030-12-25" }',
      key,
    );
    assert.equal(reordered.statusCode, 201);
    assert.equal(reordered.headers['idempotent-replayed'], 'true');
    assert.equal(reordered.body, first.body);
    const changed = await send(
      'POST',
      '/store/closures',
      '{"note":"Y","closed":true,"date":"2030-12-25"}',
      key,
    );
    assertError(changed, 422, 'idempotency_key_reused');
  });

  test('a local date is a real date on every route: 400 on the field, not 404', async () => {
    for (const date of ['9999-99-99', '2030-02-29', '2030-13-01', '2030-1-01']) {
      assertError(await send('DELETE', `/store/closures/${date}`), 400, 'invalid_request', 'date');
      const body = JSON.stringify({ date, closed: true });
      assertError(await send('POST', '/store/closures', body), 400, 'invalid_request', 'date');
    }
    assert.equal(
      (await send('POST', '/store/closures', '{"date":"2032-02-29","closed":true}')).statusCode,
      201,
    );
    const { cookie, restaurantId } = await dashboardOwner();
    const dashboard = await call(
      t.app,
      'DELETE',
      `/dashboard/api/restaurants/${restaurantId}/store/closures/9999-99-99`,
      cookie,
    );
    assertError(dashboard, 400, 'invalid_request', 'date');
  });
});
