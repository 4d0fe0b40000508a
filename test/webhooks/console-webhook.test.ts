import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { createApp } from '../../src/domain/apps/apps.service.ts';
import { withSecondFactor } from '../accounts/second-factor-helpers.ts';
import { buildTestApp, call, json, newAccount, password, signInTo, type TestApp } from '../harness.ts';

let t: TestApp;
let developer: { id: string; email: string };
let cookie: string;
before(async () => {
  t = await buildTestApp({ config: { webhooksAllowInsecure: false } });
  developer = await newAccount(t, true);
  cookie = await signInTo(t.app, 'console', developer.email);
});
after(() => t.close());

async function newApp(developerId = developer.id): Promise<string> {
  const { app } = await createApp(t.ctx, {
    developerId,
    name: 'Webhook app',
    type: 'confidential',
    redirectUris: ['https://app.example.test/callback'],
    scopes: ['orders:read'],
  });
  return app.clientId;
}

const webhookUrl = (clientId: string) => `/console/api/apps/${clientId}/webhook`;
const body = { url: 'https://93.184.216.34/hooks', events: ['order.*', 'app.connected'] };

const stored = async (clientId: string) => {
  const app = await t.database.db
    .selectFrom('apps')
    .select('id')
    .where('client_id', '=', clientId)
    .executeTakeFirstOrThrow();
  const webhook = await t.database.db
    .selectFrom('webhooks')
    .selectAll()
    .where('app_id', '=', app.id)
    .executeTakeFirst();
  return {
    webhook,
    secrets: await t.database.db
      .selectFrom('webhook_secrets')
      .selectAll()
      .where('webhook_id', '=', webhook?.id ?? app.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  };
};

test('sign-in: developer accounts only; the cookie is HttpOnly, SameSite=Strict, for /console', async () => {
  const response = await call(t.app, 'POST', '/console/api/sessions', null, {
    email: developer.email,
    password,
  });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(json(response), {
    object: 'session',
    email: developer.email,
    second_factor_required: false,
  });
  const setCookie = String(response.headers['set-cookie']);
  assert.match(setCookie, /^servery_console_session=/);
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Strict/);
  assert.match(setCookie, /Path=\/console/);

  const wrong = await call(t.app, 'POST', '/console/api/sessions', null, {
    email: developer.email,
    password: 'nope',
  });
  assert.equal(wrong.statusCode, 401);
  assert.equal(json(wrong).error.code, 'unauthorized');
  const owner = await newAccount(t, false);
  const notDeveloper = await call(t.app, 'POST', '/console/api/sessions', null, {
    email: owner.email,
    password,
  });
  assert.equal(notDeveloper.statusCode, 401);
  assert.equal(notDeveloper.headers['set-cookie'], undefined);
  const unknownField = await call(t.app, 'POST', '/console/api/sessions', null, {
    email: developer.email,
    password,
    remember: true,
  });
  assert.equal(unknownField.statusCode, 400);
  assert.equal(json(unknownField).error.param, 'remember');
});

test('with a second factor, the session works only after the right code; sign-out ends it', async () => {
  const clientId = await newApp();
  const { secret } = await withSecondFactor(t.ctx, developer.id);
  const response = await call(t.app, 'POST', '/console/api/sessions', null, {
    email: developer.email,
    password,
  });
  assert.equal(json(response).second_factor_required, true);
  const pending = `servery_console_session=${response.cookies[0]?.value}`;
  assert.equal((await call(t.app, 'GET', webhookUrl(clientId), pending)).statusCode, 401);

  const wrongCode = await call(t.app, 'POST', '/console/api/sessions/second-factor', pending, {
    code: '000000',
  });
  assert.equal(wrongCode.statusCode, 400);
  assert.equal(json(wrongCode).error.param, 'code');
  const totp = new TOTP({ secret: Secret.fromBase32(secret) });
  const code = totp.generate({ timestamp: t.clock.now().getTime() });
  const done = await call(t.app, 'POST', '/console/api/sessions/second-factor', pending, { code });
  assert.equal(done.statusCode, 200, done.body);
  assert.equal((await call(t.app, 'GET', webhookUrl(clientId), pending)).statusCode, 404); // signed in: no webhook yet

  const out = await call(t.app, 'DELETE', '/console/api/sessions', pending);
  assert.equal(out.statusCode, 204);
  assert.equal((await call(t.app, 'GET', webhookUrl(clientId), pending)).statusCode, 401);
  await t.database.db
    .updateTable('accounts')
    .set({ totp_secret: null })
    .where('id', '=', developer.id)
    .execute();
});

test('without a session every webhook operation is 401', async () => {
  const clientId = await newApp();
  for (const [method, path] of [
    ['GET', ''],
    ['PUT', ''],
    ['DELETE', ''],
    ['GET', '/secret'],
    ['POST', '/secret/rotate'],
    ['POST', '/enable'],
  ] as const) {
    const response = await call(
      t.app,
      method,
      webhookUrl(clientId) + path,
      'servery_console_session=forged',
      method === 'PUT' ? body : undefined,
    );
    assert.equal(response.statusCode, 401, `${method} ${path}`);
    assert.equal(json(response).error.code, 'unauthorized');
  }
});

test('PUT creates the webhook with a signing secret shown again later, stored as it is; PUT again changes it', async () => {
  const clientId = await newApp();
  const created = await call(t.app, 'PUT', webhookUrl(clientId), cookie, body);
  assert.equal(created.statusCode, 201, created.body);
  assert.deepEqual(json(created), {
    object: 'webhook',
    url: 'https://93.184.216.34/hooks',
    events: ['order.*', 'app.connected'],
    enabled: true,
    disabled_at: null,
    disabled_reason: null,
    created_at: t.clock.now().toISOString(),
    updated_at: t.clock.now().toISOString(),
  });
  const secrets = json(await call(t.app, 'GET', `${webhookUrl(clientId)}/secret`, cookie));
  assert.equal(secrets.data.length, 1);
  assert.match(secrets.data[0].secret, /^whsec_[\w-]{43}$/);
  assert.equal(secrets.data[0].expires_at, null);
  assert.equal((await stored(clientId)).secrets[0]?.secret, secrets.data[0].secret);

  t.clock.advance(1000);
  const changed = await call(t.app, 'PUT', webhookUrl(clientId), cookie, {
    url: 'https://[2606:4700::1]/x',
    events: ['*'],
  });
  assert.equal(changed.statusCode, 200);
  assert.equal(json(changed).url, 'https://[2606:4700::1]/x');
  assert.deepEqual(json(changed).events, ['*']);
  assert.equal(json(changed).updated_at, t.clock.now().toISOString());
  assert.deepEqual(json(await call(t.app, 'GET', `${webhookUrl(clientId)}/secret`, cookie)), secrets);
  assert.deepEqual(json(await call(t.app, 'GET', webhookUrl(clientId), cookie)), json(changed));
});

test('bad input is a 400 with param and changes nothing', async () => {
  const clientId = await newApp();
  await call(t.app, 'PUT', webhookUrl(clientId), cookie, body);
  const before = await stored(clientId);
  for (const [input, param] of [
    [{ ...body, url: 'http://93.184.216.34/hooks' }, 'url'],
    [{ ...body, url: 'https://127.0.0.1/hooks' }, 'url'],
    [{ ...body, url: 'https://localhost/hooks' }, 'url'],
    [{ ...body, url: 'https://10.0.0.8/hooks' }, 'url'],
    [{ ...body, url: `https://93.184.216.34/${'a'.repeat(480)}` }, 'url'],
    [{ ...body, events: ['order.*', 'order.shipped'] }, 'events[1]'],
    [{ ...body, events: [] }, 'events'],
    [{ ...body, secret: 'whsec_mine' }, 'secret'],
    [{ url: body.url }, 'events'],
  ] as const) {
    const response = await call(t.app, 'PUT', webhookUrl(clientId), cookie, input);
    assert.equal(response.statusCode, 400, JSON.stringify(input));
    assert.equal(json(response).error.code, 'invalid_request');
    assert.equal(json(response).error.param, param);
  }
  const query = await call(t.app, 'GET', `${webhookUrl(clientId)}?verbose=1`, cookie);
  assert.equal(query.statusCode, 400);
  assert.equal(json(query).error.param, 'verbose');
  const extra = await call(t.app, 'POST', `${webhookUrl(clientId)}/secret/rotate`, cookie, {
    keep_old: false,
  });
  assert.equal(json(extra).error.param, 'keep_old');
  assert.deepEqual(await stored(clientId), before);
});

test('another developer’s app is not found, and nothing of it changes', async () => {
  const other = await newAccount(t, true);
  const clientId = await newApp(other.id);
  const otherCookie = await signInTo(t.app, 'console', other.email);
  await call(t.app, 'PUT', webhookUrl(clientId), otherCookie, body);
  const before = await stored(clientId);
  for (const [method, path] of [
    ['GET', ''],
    ['PUT', ''],
    ['DELETE', ''],
    ['GET', '/secret'],
    ['POST', '/secret/rotate'],
    ['POST', '/enable'],
  ] as const) {
    const response = await call(
      t.app,
      method,
      webhookUrl(clientId) + path,
      cookie,
      method === 'PUT' ? body : undefined,
    );
    assert.equal(response.statusCode, 404, `${method} ${path}`);
    assert.equal(json(response).error.code, 'not_found');
    assert.doesNotMatch(response.body, /whsec_/);
  }
  assert.equal((await call(t.app, 'GET', webhookUrl('svc_app_unknown'), cookie)).statusCode, 404);
  assert.deepEqual(await stored(clientId), before);
});

test('rotation: the new secret and the old one both sign for 24 hours, newest first', async () => {
  const clientId = await newApp();
  await call(t.app, 'PUT', webhookUrl(clientId), cookie, body);
  const [first] = json(await call(t.app, 'GET', `${webhookUrl(clientId)}/secret`, cookie)).data;
  t.clock.advance(60_000);
  const rotated = await call(t.app, 'POST', `${webhookUrl(clientId)}/secret/rotate`, cookie);
  assert.equal(rotated.statusCode, 200, rotated.body);
  const expiry = new Date(t.clock.now().getTime() + 24 * 3600_000).toISOString();
  assert.equal(json(rotated).previous_secret_expires_at, expiry);
  assert.match(json(rotated).secret, /^whsec_/);
  assert.notEqual(json(rotated).secret, first.secret);

  const both = json(await call(t.app, 'GET', `${webhookUrl(clientId)}/secret`, cookie)).data;
  assert.deepEqual(
    both.map((s: { secret: string; expires_at: string | null }) => [s.secret, s.expires_at]),
    [
      [json(rotated).secret, null],
      [first.secret, expiry],
    ],
  );
  t.clock.advance(24 * 3600_000);
  cookie = await signInTo(t.app, 'console', developer.email); // a session lasts 12 hours
  const after = json(await call(t.app, 'GET', `${webhookUrl(clientId)}/secret`, cookie)).data;
  assert.deepEqual(
    after.map((s: { secret: string }) => s.secret),
    [json(rotated).secret],
  );
  const rows = (await stored(clientId)).secrets;
  assert.equal(rows.filter((row) => row.expires_at === null).length, 1);
});

test('a switched-off webhook is enabled again; DELETE removes it with its secrets', async () => {
  const clientId = await newApp();
  await call(t.app, 'PUT', webhookUrl(clientId), cookie, body);
  const { webhook } = await stored(clientId);
  await t.database.db
    .updateTable('webhooks')
    .set({ enabled: false, disabled_at: t.clock.now(), disabled_reason: 'failing for 24 hours' })
    .where('id', '=', webhook?.id ?? '')
    .execute();
  assert.equal(json(await call(t.app, 'GET', webhookUrl(clientId), cookie)).enabled, false);
  t.clock.advance(1000);
  const enabled = await call(t.app, 'POST', `${webhookUrl(clientId)}/enable`, cookie);
  assert.equal(enabled.statusCode, 200);
  assert.equal(json(enabled).enabled, true);
  assert.equal(json(enabled).disabled_at, null);
  assert.equal(json(enabled).disabled_reason, null);

  const deleted = await call(t.app, 'DELETE', webhookUrl(clientId), cookie);
  assert.equal(deleted.statusCode, 204);
  assert.deepEqual(await stored(clientId), { webhook: undefined, secrets: [] });
  assert.equal((await call(t.app, 'GET', webhookUrl(clientId), cookie)).statusCode, 404);
  assert.equal((await call(t.app, 'DELETE', webhookUrl(clientId), cookie)).statusCode, 404);
});

test('CSRF: a cross-site form post (or text/plain, or no content type) changes nothing', async () => {
  const clientId = await newApp();
  await call(t.app, 'PUT', webhookUrl(clientId), cookie, body);
  const before = await stored(clientId);
  for (const [method, path, contentType, payload] of [
    ['POST', '/secret/rotate', 'application/x-www-form-urlencoded', ''],
    ['POST', '/enable', 'multipart/form-data; boundary=x', '--x--\r\n'],
    ['POST', '/secret/rotate', 'text/plain', '{}'],
    ['PUT', '', 'text/plain', JSON.stringify({ url: 'https://93.184.216.35/evil', events: ['*'] })],
    ['DELETE', '', undefined, undefined],
  ] as const) {
    const response = await t.app.inject({
      method,
      url: webhookUrl(clientId) + path,
      headers: { cookie, ...(contentType ? { 'content-type': contentType } : {}) },
      payload,
    });
    assert.equal(response.statusCode, 400, `${method} ${path} ${contentType}`);
    assert.equal(json(response).error.code, 'invalid_request');
  }
  assert.deepEqual(await stored(clientId), before);
});
