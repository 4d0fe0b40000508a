import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClientSecret, replacedSecretValidMs } from '../../src/domain/apps/apps.service.ts';
import { type Ctx, systemCtx } from '../../src/domain/shared/context.ts';
import { InputError } from '../../src/domain/shared/errors.ts';
import { sha256 } from '../../src/domain/shared/ids.ts';
import { makeTenant, openTestDatabase, TestClock } from '../harness.ts';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let clock: TestClock;
let ctx: Ctx;
before(async () => {
  database = await openTestDatabase();
  clock = new TestClock();
  ctx = systemCtx(database.db, clock);
});
after(() => database.close());

/** A new client secret in one transaction, as the CLI and the console make it. */
const rotate = (clientId: string) =>
  database.db.transaction().execute((trx) => createClientSecret(systemCtx(trx, clock), clientId));

const secretsOf = (appId: string) =>
  database.db
    .selectFrom('app_secrets')
    .selectAll()
    .where('app_id', '=', appId)
    .orderBy('created_at')
    .execute();

const hoursLater = (hours: number) => new Date(clock.now().getTime() + hours * 60 * 60 * 1000);

test('a new client secret is returned once, stored hashed; the current one stays valid 24 more hours', async () => {
  const tenant = await makeTenant(ctx);
  const [first] = await secretsOf(tenant.appId);
  assert.equal(first?.expires_at, null);

  clock.advance(60 * 60 * 1000);
  const { app, clientSecret, previousExpiresAt } = await rotate(tenant.clientId);
  assert.equal(app.clientId, tenant.clientId);
  assert.match(clientSecret, /^svc_cs_[\w-]{43}$/);
  assert.deepEqual(previousExpiresAt, hoursLater(24));
  assert.equal(replacedSecretValidMs, 24 * 60 * 60 * 1000);

  const secrets = await secretsOf(tenant.appId);
  assert.equal(secrets.length, 2);
  assert.equal(secrets[0]?.id, first?.id);
  assert.deepEqual(secrets[0]?.expires_at, hoursLater(24));
  assert.equal(secrets[1]?.secret_hash, sha256(clientSecret));
  assert.equal(secrets[1]?.expires_at, null);
  assert.deepEqual(secrets[1]?.created_at, clock.now());
  assert.ok(!JSON.stringify(secrets).includes(clientSecret), 'the plain secret is not stored');
});

test('a third secret replaces the second; the first keeps its earlier expiry', async () => {
  const tenant = await makeTenant(ctx);
  await rotate(tenant.clientId);
  const firstExpiry = hoursLater(24);
  clock.advance(6 * 60 * 60 * 1000);
  const third = await rotate(tenant.clientId);

  const secrets = await secretsOf(tenant.appId);
  assert.deepEqual(
    secrets.map((secret) => secret.expires_at),
    [firstExpiry, hoursLater(24), null],
  );
  assert.equal(secrets[2]?.secret_hash, sha256(third.clientSecret));
  assert.equal(new Set(secrets.map((secret) => secret.secret_hash)).size, 3);
});

test('secrets made at the same time leave the app exactly one current secret', async () => {
  const tenant = await makeTenant(ctx);
  const made = await Promise.all([rotate(tenant.clientId), rotate(tenant.clientId), rotate(tenant.clientId)]);
  const secrets = await secretsOf(tenant.appId);
  assert.equal(secrets.length, 4);
  const current = secrets.filter((secret) => secret.expires_at === null);
  assert.equal(current.length, 1);
  assert.ok(made.some((result) => sha256(result.clientSecret) === current[0]?.secret_hash));
});

test('a public app has no client secret', async () => {
  const tenant = await makeTenant(ctx, { appType: 'public' });
  await assert.rejects(rotate(tenant.clientId), (error: Error) => {
    assert.ok(error instanceof InputError);
    assert.match(error.message, /a public app has no client secret/);
    return true;
  });
  assert.deepEqual(await secretsOf(tenant.appId), []);
});

test('an unknown client id is refused', async () => {
  await assert.rejects(rotate('svc_app_doesnotexist'), /no app with client id svc_app_doesnotexist/);
});
