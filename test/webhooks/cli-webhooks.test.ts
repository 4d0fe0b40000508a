import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Db } from '../../src/db/client.ts';
import { createAccount } from '../../src/domain/accounts/accounts.service.ts';
import { createApp } from '../../src/domain/apps/apps.service.ts';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { type CliDatabase, jsonOf, openCliDatabase } from '../cli/cli-runner.ts';

/* The real `servery` CLI in a child process, on this file's own database (as test/cli/cli.test.ts). */

let database: CliDatabase;
const servery = (...args: string[]) => database.run(...args);
const seeded = { clientId: '', slug: '' };

async function seed(db: Db): Promise<void> {
  const ctx = systemCtx(db);
  const developer = await createAccount(ctx, {
    email: 'dev@webhooks.test',
    password: 'correct horse battery',
    developer: true,
  });
  const { app } = await createApp(ctx, {
    developerId: developer.id,
    name: 'CLI webhook app',
    type: 'public',
    redirectUris: ['https://app.example.test/callback'],
    scopes: ['orders:read'],
  });
  seeded.clientId = app.clientId;
  const restaurant = await createRestaurant(ctx, {
    name: 'CLI Webhook Bistro',
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    country: 'DE',
    plan: 'pro',
    livemode: true,
    ownerIds: [developer.id],
  });
  seeded.slug = restaurant.slug;
}

before(async () => {
  database = await openCliDatabase(seed);
});
after(() => database.close());

test('webhook set, show and rotate-secret manage the app’s webhook', async () => {
  const set = jsonOf(
    await servery(
      'webhook',
      'set',
      seeded.clientId,
      '--url',
      'https://93.184.216.34/hooks',
      '--events',
      'order.*,app.*',
      '--json',
    ),
  );
  assert.deepEqual(set.webhook.events, ['order.*', 'app.*']);
  assert.match(set.secret, /^whsec_/);
  const rotated = jsonOf(await servery('webhook', 'rotate-secret', seeded.clientId, '--json'));
  assert.match(rotated.secret, /^whsec_/);
  const shown = jsonOf(await servery('webhook', 'show', seeded.clientId, '--json'));
  assert.equal(shown.webhook.url, 'https://93.184.216.34/hooks');
  assert.deepEqual(
    shown.secrets.map((s: { secret: string }) => s.secret),
    [rotated.secret, set.secret],
  );
});

test('bad input exits 2 and changes nothing', async () => {
  for (const args of [
    ['webhook', 'set', seeded.clientId, '--url', 'http://93.184.216.34/hooks', '--events', '*'],
    ['webhook', 'set', seeded.clientId, '--url', 'https://127.0.0.1/hooks', '--events', '*'],
    ['webhook', 'set', seeded.clientId, '--url', 'https://93.184.216.34/x', '--events', 'order.shipped'],
    ['webhook', 'set', seeded.clientId, '--url', 'https://93.184.216.34/x'],
    ['webhook', 'show', 'svc_app_nobody'],
    ['restaurant', 'webhook', 'add', seeded.slug, '--url', 'https://93.184.216.34/x', '--events', 'app.*'],
    [
      'restaurant',
      'webhook',
      'add',
      'no-such-restaurant',
      '--url',
      'https://93.184.216.34/x',
      '--events',
      '*',
    ],
    ['restaurant', 'webhook', 'remove', seeded.slug, '0190a0a0-0000-7000-8000-000000000000'],
    ['restaurant', 'webhook', 'frobnicate', seeded.slug],
  ]) {
    const run = await servery(...args);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, /^servery: /);
  }
  const shown = jsonOf(await servery('webhook', 'show', seeded.clientId, '--json'));
  assert.equal(shown.webhook.url, 'https://93.184.216.34/hooks');
  assert.deepEqual(
    jsonOf(await servery('restaurant', 'webhook', 'list', seeded.slug, '--json')).webhooks,
    [],
  );
});

test('restaurant webhook add, list and remove manage a restaurant’s own webhooks', async () => {
  const added = jsonOf(
    await servery(
      'restaurant',
      'webhook',
      'add',
      seeded.slug,
      '--url',
      'https://93.184.216.34/own',
      '--events',
      'menu.*',
      '--json',
    ),
  );
  assert.match(added.secret, /^whsec_/);
  const list = jsonOf(await servery('restaurant', 'webhook', 'list', seeded.slug, '--json'));
  assert.deepEqual(
    list.webhooks.map((w: { id: string; url: string }) => [w.id, w.url]),
    [[added.webhook.id, 'https://93.184.216.34/own']],
  );
  const removed = await servery('restaurant', 'webhook', 'remove', seeded.slug, added.webhook.id);
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(removed.stdout, `removed webhook ${added.webhook.id}\n`);
  assert.deepEqual(
    jsonOf(await servery('restaurant', 'webhook', 'list', seeded.slug, '--json')).webhooks,
    [],
  );
});
