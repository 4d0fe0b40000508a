import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { setPasswordHashCost } from '../../src/domain/accounts/password.ts';
import { buildTestApp, newAccount, signInTo, type TestApp } from '../harness.ts';

/*
 * Passwords are hashed with scrypt at OWASP's cost unless PASSWORD_HASH_COST says `minimum`, which
 * the tests use and production refuses. A stored hash names its parameters, so an account keeps
 * signing in whichever cost the process hashes new passwords with.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(async () => {
  setPasswordHashCost(loadConfig().passwordHashCost);
  await t.close();
});

const storedHash = async (id: string) =>
  (
    await t.database.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).password_hash;

test('PASSWORD_HASH_COST: standard by default, minimum only outside production mode', () => {
  assert.equal(loadConfig({}).passwordHashCost, 'standard');
  assert.equal(loadConfig({ PASSWORD_HASH_COST: 'standard' }).passwordHashCost, 'standard');
  assert.equal(loadConfig({ PASSWORD_HASH_COST: 'minimum' }).passwordHashCost, 'minimum');
  assert.throws(
    () => loadConfig({ PASSWORD_HASH_COST: 'minimum', NODE_ENV: 'production' }),
    (error) => error instanceof ConfigError && /cannot be set in production mode/.test(error.message),
  );
  assert.equal(loadConfig({ NODE_ENV: 'production' }).passwordHashCost, 'standard');
  assert.throws(() => loadConfig({ PASSWORD_HASH_COST: 'low' }), ConfigError);
});

test('the standard cost is scrypt N=2^17, r=8, p=1; accounts of either cost sign in', async () => {
  setPasswordHashCost('minimum');
  const cheap = await newAccount(t, false);
  assert.match(await storedHash(cheap.id), /^scrypt\$1024\$8\$1\$/);

  setPasswordHashCost('standard');
  const standard = await newAccount(t, false);
  assert.match(
    await storedHash(standard.id),
    /^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/,
  );
  for (const account of [standard, cheap]) await signInTo(t.app, 'dashboard', account.email);
});
