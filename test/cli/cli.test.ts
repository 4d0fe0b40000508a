import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../../src/db/client.ts';
import { createAccount } from '../../src/domain/accounts/accounts.service.ts';
import { verifyPassword } from '../../src/domain/accounts/password.ts';
import { createApp } from '../../src/domain/apps/apps.service.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { sha256 } from '../../src/domain/shared/ids.ts';
import { type CliDatabase, jsonOf, openCliDatabase } from './cli-runner.ts';

let database: CliDatabase;
const servery = (...args: string[]) => database.run(...args);
const withDatabase = <T>(work: (db: Db) => Promise<T>) => database.withDatabase(work);

/** Accounts and an app made before the tests, so that each test runs one CLI process. */
const seeded = {
  owner: 'owner@cli.test',
  developer: 'developer@cli.test',
  clientId: '',
  confidentialClientId: '',
  confidentialAppId: '',
};

before(async () => {
  database = await openCliDatabase(seed);
});
after(() => database.close());

async function seed(db: Db): Promise<void> {
  const ctx = systemCtx(db);
  await createAccount(ctx, { email: seeded.owner, password: 'correct horse battery' });
  const developer = await createAccount(ctx, {
    email: seeded.developer,
    password: 'correct horse battery',
    developer: true,
  });
  const { app } = await createApp(ctx, {
    developerId: developer.id,
    name: 'Seeded app',
    type: 'public',
    redirectUris: ['https://seeded.example.test/callback'],
    scopes: ['orders:read'],
  });
  seeded.clientId = app.clientId;
  const confidential = await createApp(ctx, {
    developerId: developer.id,
    name: 'Seeded server app',
    type: 'confidential',
    redirectUris: ['https://seeded.example.test/callback'],
    scopes: ['orders:read'],
  });
  seeded.confidentialClientId = confidential.app.clientId;
  seeded.confidentialAppId = confidential.app.id;
}

/** What the admin commands change: the rows of their tables, app statuses and subscriptions. */
async function snapshot(): Promise<Record<string, unknown>> {
  return withDatabase(async (db) => {
    const tables = ['accounts', 'restaurants', 'restaurant_members', 'apps', 'app_secrets'] as const;
    const state: Record<string, unknown> = {};
    for (const table of tables) {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      state[table] = Number(row.n);
    }
    state.appStatuses = await db.selectFrom('apps').select(['id', 'status']).orderBy('id').execute();
    state.subscriptions = await db
      .selectFrom('restaurants')
      .select(['id', 'subscription_active'])
      .orderBy('id')
      .execute();
    return state;
  });
}

test('help lists every command', async () => {
  const run = await servery('help');
  assert.equal(run.code, 0);
  for (const command of [
    'serve',
    'migrate',
    'owner create',
    'developer create',
    'restaurant create',
    'restaurant subscription',
    'app create',
    'app secret',
    'app approve',
    'app suspend',
    'app reject',
  ]) {
    assert.ok(run.stdout.includes(`  ${command}`), `help mentions ${command}`);
  }
  assert.equal((await servery('--help')).stdout, run.stdout);
});

test('owner create without --password prints a generated password once and stores only its hash', async () => {
  const result = jsonOf(await servery('owner', 'create', '--email', 'Giulia@Example.test', '--json'));
  assert.equal(result.account.email, 'Giulia@Example.test');
  assert.equal(result.account.developer, false);
  assert.match(result.generated_password, /^[\w-]{16}$/);
  const row = await withDatabase((db) =>
    db.selectFrom('accounts').selectAll().where('id', '=', result.account.id).executeTakeFirstOrThrow(),
  );
  assert.equal(row.email, 'Giulia@Example.test');
  assert.equal(row.name, null);
  assert.equal(row.developer, false);
  assert.ok(!row.password_hash.includes(result.generated_password));
  assert.equal(await verifyPassword(result.generated_password, row.password_hash), true);
});

test('owner create with --password and --name prints a readable line without a password', async () => {
  const run = await servery(
    'owner',
    'create',
    '--email',
    'marco@example.test',
    '--name',
    'Marco Bianchi',
    '--password',
    'a long enough password',
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^created owner marco@example\.test \(account [0-9a-f-]{36}\)\n$/);
  const row = await withDatabase((db) =>
    db.selectFrom('accounts').selectAll().where('email', '=', 'marco@example.test').executeTakeFirstOrThrow(),
  );
  assert.equal(row.name, 'Marco Bianchi');
  assert.equal(row.developer, false);
});

test('developer create makes a developer account and its test restaurant on the pro plan', async () => {
  const result = jsonOf(
    await servery(
      'developer',
      'create',
      '--email',
      'ada@dev.example.test',
      '--name',
      'Ada',
      '--password',
      'a long enough password',
      '--json',
    ),
  );
  assert.equal(result.generated_password, null);
  assert.equal(result.account.developer, true);
  const { account, restaurant, members } = await withDatabase(async (db) => ({
    account: await db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', result.account.id)
      .executeTakeFirstOrThrow(),
    restaurant: await db
      .selectFrom('restaurants')
      .selectAll()
      .where('id', '=', result.restaurant.id)
      .executeTakeFirstOrThrow(),
    members: await db
      .selectFrom('restaurant_members')
      .select(['account_id', 'role'])
      .where('tenant_id', '=', result.restaurant.id)
      .execute(),
  }));
  assert.equal(account.developer, true);
  assert.equal(account.name, 'Ada');
  assert.equal(restaurant.livemode, false);
  assert.equal(restaurant.plan, 'pro');
  assert.equal(restaurant.timezone, 'Europe/Berlin');
  assert.equal(restaurant.currency, 'EUR');
  assert.equal(restaurant.country, 'DE');
  assert.equal(restaurant.name, 'Ada Test Restaurant');
  assert.deepEqual(members, [{ account_id: account.id, role: 'owner' }]);
});

test('restaurant create with two owners, live, with slug and language', async () => {
  const result = jsonOf(
    await servery(
      'restaurant',
      'create',
      '--name',
      'Trattoria Uno',
      '--owner',
      seeded.owner,
      '--owner',
      seeded.developer.toUpperCase(),
      '--plan',
      'premium',
      '--live',
      '--timezone',
      'America/New_York',
      '--currency',
      'usd',
      '--country',
      'us',
      '--language',
      'it',
      '--slug',
      'uno',
      '--json',
    ),
  );
  assert.deepEqual(result.owners.map((owner: { email: string }) => owner.email).sort(), [
    seeded.developer,
    seeded.owner,
  ]);
  const { restaurant, members } = await withDatabase(async (db) => ({
    restaurant: await db
      .selectFrom('restaurants')
      .selectAll()
      .where('slug', '=', 'uno')
      .executeTakeFirstOrThrow(),
    members: await db
      .selectFrom('restaurant_members')
      .innerJoin('accounts', 'accounts.id', 'restaurant_members.account_id')
      .select(['accounts.email', 'restaurant_members.role'])
      .where('tenant_id', '=', result.restaurant.id)
      .orderBy('accounts.email')
      .execute(),
  }));
  assert.equal(restaurant.id, result.restaurant.id);
  assert.deepEqual(
    {
      name: restaurant.name,
      plan: restaurant.plan,
      livemode: restaurant.livemode,
      timezone: restaurant.timezone,
      currency: restaurant.currency,
      country: restaurant.country,
      language: restaurant.language,
      subscription_active: restaurant.subscription_active,
    },
    {
      name: 'Trattoria Uno',
      plan: 'premium',
      livemode: true,
      timezone: 'America/New_York',
      currency: 'USD',
      country: 'US',
      language: 'it',
      subscription_active: true,
    },
  );
  assert.deepEqual(members, [
    { email: seeded.developer, role: 'owner' },
    { email: seeded.owner, role: 'owner' },
  ]);
});

test('restaurant create --test derives the slug from the name and prints a line', async () => {
  const run = await servery(
    'restaurant',
    'create',
    '--name',
    'Café Zürich',
    '--owner',
    seeded.owner,
    '--plan',
    'starter',
    '--test',
    '--timezone',
    'UTC',
    '--currency',
    'CHF',
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    /^created restaurant "Café Zürich" \(slug cafe-zurich, id [0-9a-f-]{36}\), starter plan, test/,
  );
  const restaurant = await withDatabase((db) =>
    db.selectFrom('restaurants').selectAll().where('slug', '=', 'cafe-zurich').executeTakeFirstOrThrow(),
  );
  assert.equal(restaurant.livemode, false);
  assert.equal(restaurant.country, null);
  assert.equal(restaurant.language, 'en');
});

test('restaurant subscription turns a subscription off by slug and on by id', async () => {
  const off = jsonOf(await servery('restaurant', 'subscription', 'uno', '--active', 'false', '--json'));
  assert.equal(off.restaurant.slug, 'uno');
  assert.equal(off.restaurant.subscription_active, false);
  const activeOf = (id: string) =>
    withDatabase(async (db) => {
      const row = await db
        .selectFrom('restaurants')
        .select('subscription_active')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return row.subscription_active;
    });
  assert.equal(await activeOf(off.restaurant.id), false);
  const on = await servery('restaurant', 'subscription', off.restaurant.id, '--active', 'true');
  assert.equal(on.code, 0, on.stderr);
  assert.match(on.stdout, /subscription active\n$/);
  assert.equal(await activeOf(off.restaurant.id), true);
});

test('app create (confidential) prints the client secret once and stores only its SHA-256', async () => {
  const result = jsonOf(
    await servery(
      'app',
      'create',
      '--developer',
      seeded.developer,
      '--name',
      'Kitchen Display',
      '--type',
      'confidential',
      '--redirect-uri',
      'https://kds.example.test/callback',
      '--redirect-uri',
      'https://kds.example.test/other',
      '--scope',
      'orders:read, orders:write',
      '--scope',
      'menu:read store:read',
      '--website',
      'https://kds.example.test',
      '--json',
    ),
  );
  assert.match(result.app.client_id, /^svc_app_/);
  assert.match(result.client_secret, /^svc_cs_[\w-]{43}$/);
  assert.equal(result.app.status, 'pending');
  const { app, secrets } = await withDatabase(async (db) => ({
    app: await db
      .selectFrom('apps')
      .selectAll()
      .where('client_id', '=', result.app.client_id)
      .executeTakeFirstOrThrow(),
    secrets: await db.selectFrom('app_secrets').selectAll().execute(),
  }));
  assert.equal(app.name, 'Kitchen Display');
  assert.equal(app.type, 'confidential');
  assert.equal(app.status, 'pending');
  assert.equal(app.website, 'https://kds.example.test');
  assert.deepEqual(app.redirect_uris, [
    'https://kds.example.test/callback',
    'https://kds.example.test/other',
  ]);
  assert.deepEqual(app.scopes, ['orders:read', 'orders:write', 'menu:read', 'store:read']);
  const own = secrets.filter((secret) => secret.app_id === app.id);
  assert.equal(own.length, 1);
  assert.equal(own[0]?.secret_hash, sha256(result.client_secret));
  assert.ok(!JSON.stringify([app, secrets]).includes(result.client_secret), 'the plain secret is not stored');
});

test('app create (public) has no client secret', async () => {
  const result = jsonOf(
    await servery(
      'app',
      'create',
      '--developer',
      seeded.developer,
      '--name',
      'Waiter Phone',
      '--type',
      'public',
      '--redirect-uri',
      'com.example.waiter:/callback',
      '--scope',
      'orders:read',
      '--json',
    ),
  );
  assert.equal(result.client_secret, null);
  const secrets = await withDatabase((db) =>
    db.selectFrom('app_secrets').select('id').where('app_id', '=', result.app.id).execute(),
  );
  assert.deepEqual(secrets, []);
});

test('app secret prints a new client secret once, stores its SHA-256 and keeps the old one 24 hours', async () => {
  const started = Date.now();
  const result = jsonOf(await servery('app', 'secret', seeded.confidentialClientId, '--json'));
  const finished = Date.now();
  assert.equal(result.app.client_id, seeded.confidentialClientId);
  assert.match(result.client_secret, /^svc_cs_[\w-]{43}$/);
  const secrets = await withDatabase((db) =>
    db
      .selectFrom('app_secrets')
      .selectAll()
      .where('app_id', '=', seeded.confidentialAppId)
      .orderBy('created_at')
      .execute(),
  );
  assert.equal(secrets.length, 2);
  const [old, current] = secrets;
  const day = 24 * 60 * 60 * 1000;
  const expiry = old?.expires_at?.getTime() ?? 0;
  assert.ok(expiry >= started + day - 1000 && expiry <= finished + day, 'the old secret expires in 24 hours');
  assert.equal(result.previous_secret_expires_at, old?.expires_at?.toISOString());
  assert.equal(current?.secret_hash, sha256(result.client_secret));
  assert.equal(current?.expires_at, null);
  assert.ok(!JSON.stringify(secrets).includes(result.client_secret), 'the plain secret is not stored');

  const line = await servery('app', 'secret', seeded.confidentialClientId);
  assert.equal(line.code, 0, line.stderr);
  assert.ok(
    line.stdout.startsWith(
      `new client secret for app "Seeded server app" (${seeded.confidentialClientId}): `,
    ),
    line.stdout,
  );
  assert.match(
    line.stdout,
    /: svc_cs_[\w-]{43} \(shown this once\); the previous one stays valid until \d{4}-\d\d-\d\dT[\d:.]+Z\n$/,
  );
});

async function statusOfSeededApp(): Promise<string> {
  return withDatabase(async (db) => {
    const row = await db
      .selectFrom('apps')
      .select('status')
      .where('client_id', '=', seeded.clientId)
      .executeTakeFirstOrThrow();
    return row.status;
  });
}

test('app approve, suspend and reject change the app status', async () => {
  const approved = jsonOf(await servery('app', 'approve', seeded.clientId, '--json'));
  assert.equal(approved.app.status, 'approved');
  assert.equal(approved.app.client_id, seeded.clientId);
  assert.equal(await statusOfSeededApp(), 'approved');

  const suspended = await servery('app', 'suspend', seeded.clientId);
  assert.equal(suspended.code, 0, suspended.stderr);
  assert.equal(suspended.stdout, `app "Seeded app" (${seeded.clientId}) is now suspended\n`);
  assert.equal(await statusOfSeededApp(), 'suspended');

  jsonOf(await servery('app', 'reject', seeded.clientId, '--json'));
  assert.equal(await statusOfSeededApp(), 'rejected');
});

test('second-factor off turns an account’s second factor off and ends its sessions', async () => {
  const account = await withDatabase(async (db) => {
    const found = await db
      .selectFrom('accounts')
      .select('id')
      .where('email', '=', seeded.owner)
      .executeTakeFirstOrThrow();
    await db
      .updateTable('accounts')
      .set({ totp_secret: 'JBSWY3DPEHPK3PXP' })
      .where('id', '=', found.id)
      .execute();
    await db
      .insertInto('sessions')
      .values({
        id_hash: sha256('a session'),
        account_id: found.id,
        second_factor_pending: false,
        created_at: new Date(),
        expires_at: new Date(Date.now() + 3600_000),
      })
      .execute();
    return found;
  });
  const result = jsonOf(await servery('second-factor', 'off', '--email', 'OWNER@cli.test', '--json'));
  assert.deepEqual(result, { account_id: account.id, second_factor_was_on: true });
  const after = await withDatabase(async (db) => ({
    secret: (
      await db
        .selectFrom('accounts')
        .select('totp_secret')
        .where('id', '=', account.id)
        .executeTakeFirstOrThrow()
    ).totp_secret,
    sessions: await db
      .selectFrom('sessions')
      .select('id_hash')
      .where('account_id', '=', account.id)
      .execute(),
  }));
  assert.deepEqual(after, { secret: null, sessions: [] });
  const again = await servery('second-factor', 'off', '--email', seeded.owner);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /had no second factor/);
});

describe('bad input', () => {
  /** The state before; a refused command changes none of it. */
  let unchanged: Record<string, unknown>;
  before(async () => {
    unchanged = await snapshot();
  });

  /** Exit code 2, one `servery: …` line on stderr matching `message`, nothing on stdout, no row changed. */
  async function refused(args: string[], message: RegExp): Promise<void> {
    const run = await servery(...args);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^servery: [^\n]+\n$/);
    assert.match(run.stderr, message);
    assert.deepEqual(await snapshot(), unchanged);
  }

  test('second-factor off for an unknown e-mail is refused', async () => {
    await refused(
      ['second-factor', 'off', '--email', 'nobody@example.test'],
      /no account with the e-mail address/,
    );
  });

  test('an unknown command is refused', async () => {
    await refused(['frobnicate'], /unknown command "frobnicate"/);
  });

  test('an unknown option is refused', async () => {
    await refused(['owner', 'create', '--email', 'x@example.test', '--admin'], /unknown option --admin/);
  });

  test('owner create without --email is refused', async () => {
    await refused(['owner', 'create', '--name', 'Nobody'], /--email is required/);
  });

  const restaurantArgs = (overrides: Record<string, string>) =>
    Object.entries({
      name: 'Refused Restaurant',
      owner: seeded.owner,
      plan: 'pro',
      timezone: 'Europe/Rome',
      currency: 'EUR',
      ...overrides,
    }).flatMap(([option, value]) => [`--${option}`, value]);

  test('restaurant create with an unknown plan is refused', async () => {
    await refused(
      ['restaurant', 'create', '--live', ...restaurantArgs({ plan: 'gold' })],
      /plan must be one of/,
    );
  });

  test('restaurant create with an unknown time zone is refused', async () => {
    await refused(
      ['restaurant', 'create', '--test', ...restaurantArgs({ timezone: 'Europe/Atlantis' })],
      /unknown IANA time zone: "Europe\/Atlantis"/,
    );
  });

  test('restaurant create with an unknown owner e-mail is refused', async () => {
    await refused(
      ['restaurant', 'create', '--live', ...restaurantArgs({}), '--owner', 'nobody@example.test'],
      /no account with the e-mail nobody@example\.test/,
    );
  });

  test('developer create rolls the account back when its test restaurant is refused', async () => {
    await refused(
      ['developer', 'create', '--email', 'grace@dev.example.test', '--timezone', 'Mars/Olympus'],
      /unknown IANA time zone/,
    );
  });

  test('app secret for a public app is refused', async () => {
    await refused(['app', 'secret', seeded.clientId], /a public app has no client secret/);
  });

  test('app approve with an unknown client id is refused', async () => {
    await refused(['app', 'approve', 'svc_app_doesnotexist'], /no app with client id svc_app_doesnotexist/);
  });
});
