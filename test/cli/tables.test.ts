import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Db } from '../../src/db/client.ts';
import { createAccount } from '../../src/domain/accounts/accounts.service.ts';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import { systemCtx } from '../../src/domain/shared/context.ts';
import { type CliDatabase, jsonOf, openCliDatabase } from './cli-runner.ts';

/* `servery table …` and `servery area …`: the real CLI in a child process, on this file's own database. */

let database: CliDatabase;
const servery = (...args: string[]) => database.run(...args);
const seeded = { slug: '', id: '', otherSlug: '' };

async function seed(db: Db): Promise<void> {
  const ctx = systemCtx(db);
  const owner = await createAccount(ctx, { email: 'owner@floor.test', password: 'correct horse battery' });
  const restaurant = await createRestaurant(ctx, {
    name: 'CLI Floor Bistro',
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    plan: 'starter',
    livemode: true,
    ownerIds: [owner.id],
  });
  Object.assign(seeded, { slug: restaurant.slug, id: restaurant.id });
  const other = await createRestaurant(ctx, {
    name: 'CLI Other Bistro',
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    plan: 'pro',
    livemode: true,
    ownerIds: [owner.id],
  });
  seeded.otherSlug = other.slug;
}

before(async () => {
  database = await openCliDatabase(seed);
});
after(() => database.close());

/** Every table and area row, as stored. */
const rows = () =>
  database.withDatabase(async (db) => ({
    areas: await db.selectFrom('store_areas').selectAll().orderBy('id').execute(),
    tables: await db.selectFrom('store_tables').selectAll().orderBy('id').execute(),
  }));

test('area and table commands add, list, change and remove a restaurant’s areas and tables', async () => {
  const terrace = jsonOf(
    await servery('area', 'add', seeded.slug, '--name', 'Terrace', '--bookable-online', 'false', '--json'),
  ).area;
  assert.deepEqual([terrace.name, terrace.bookable_online], ['Terrace', false]);
  const inside = await servery('area', 'add', seeded.id, '--name', 'Dining room');
  assert.equal(inside.code, 0, inside.stderr);
  assert.match(inside.stdout, /^added area [0-9a-f-]{36} "Dining room"\n$/);

  const patio = jsonOf(
    await servery(
      'table',
      'add',
      seeded.slug,
      '--label',
      'Patio 1',
      '--seats',
      '6',
      '--area',
      terrace.id,
      '--min-party',
      '4',
      '--bookable-online',
      'false',
      '--json',
    ),
  ).table;
  assert.deepEqual(
    [patio.label, patio.seats, patio.seats_is_default, patio.area_id, patio.min_party, patio.bookable_online],
    ['Patio 1', 6, false, terrace.id, 4, false],
  );
  assert.match(patio.qr_key, /^[\w-]{22}$/);
  const bar = await servery('table', 'add', seeded.slug, '--label', 'Bar');
  assert.equal(bar.code, 0, bar.stderr);
  assert.match(
    bar.stdout,
    /^added table [0-9a-f-]{36} "Bar": 4 seats \(default\), no area, QR key [\w-]{22}\n$/,
  );

  const listed = jsonOf(await servery('table', 'list', seeded.slug, '--json')).tables;
  assert.deepEqual(
    listed.map((table: { label: string }) => table.label),
    ['Patio 1', 'Bar'],
  );
  assert.deepEqual(listed[0], patio);

  const changed = jsonOf(
    await servery(
      'table',
      'set',
      seeded.slug,
      patio.id,
      '--seats',
      'default',
      '--area',
      'none',
      '--min-party',
      'none',
      '--label',
      'Patio 2',
      '--json',
    ),
  ).table;
  assert.deepEqual(
    [
      changed.label,
      changed.seats,
      changed.seats_is_default,
      changed.area_id,
      changed.min_party,
      changed.bookable_online,
    ],
    ['Patio 2', 4, true, null, null, false],
  );

  const renewed = jsonOf(await servery('table', 'qr-key', seeded.slug, patio.id, '--json')).table;
  assert.match(renewed.qr_key, /^[\w-]{22}$/);
  assert.notEqual(renewed.qr_key, patio.qr_key);
  const stored = await rows();
  assert.ok(!stored.tables.some((row) => row.qr_key === patio.qr_key));

  const areaChanged = jsonOf(
    await servery('area', 'set', seeded.slug, terrace.id, '--bookable-online', 'true', '--json'),
  ).area;
  assert.deepEqual([areaChanged.name, areaChanged.bookable_online], ['Terrace', true]);
  await servery('table', 'set', seeded.slug, patio.id, '--area', terrace.id);
  const removedArea = await servery('area', 'remove', seeded.slug, terrace.id);
  assert.equal(removedArea.code, 0, removedArea.stderr);
  assert.equal(
    jsonOf(await servery('table', 'list', seeded.slug, '--json')).tables[0].area_id,
    null,
    'the area’s tables stay, without an area',
  );
  assert.deepEqual(
    jsonOf(await servery('area', 'list', seeded.slug, '--json')).areas.map(
      (area: { name: string }) => area.name,
    ),
    ['Dining room'],
  );
  const removed = await servery('table', 'remove', seeded.slug, patio.id);
  assert.equal(removed.stdout, `removed table ${patio.id}\n`);
  assert.deepEqual(
    (await rows()).tables.map((row) => row.label),
    ['Bar'],
  );
});

test('bad input exits 2 and changes nothing', async () => {
  const area = jsonOf(await servery('area', 'add', seeded.slug, '--name', 'Inside', '--json')).area;
  const table = jsonOf(
    await servery('table', 'add', seeded.slug, '--label', 'Two-top', '--seats', '2', '--json'),
  ).table;
  const otherTable = jsonOf(
    await servery('table', 'add', seeded.otherSlug, '--label', 'Theirs', '--json'),
  ).table;
  const before = await rows();
  for (const args of [
    ['table', 'add', seeded.slug],
    ['table', 'add', seeded.slug, '--label', '   '],
    ['table', 'add', seeded.slug, '--label', 'A', '--seats', '0'],
    ['table', 'add', seeded.slug, '--label', 'A', '--seats', 'four'],
    ['table', 'add', seeded.slug, '--label', 'A', '--seats', 'default', '--min-party', '5'],
    ['table', 'add', seeded.slug, '--label', 'A', '--area', '0190a0a0-0000-7000-8000-000000000000'],
    ['table', 'add', seeded.slug, '--label', 'A', '--area', 'Inside'],
    ['table', 'add', seeded.slug, '--label', 'A', '--bookable-online', 'yes'],
    ['table', 'add', 'no-such-restaurant', '--label', 'A'],
    ['table', 'set', seeded.slug, table.id],
    ['table', 'set', seeded.slug, table.id, '--min-party', '3'],
    ['table', 'set', seeded.slug, otherTable.id, '--seats', '8'],
    ['table', 'remove', seeded.slug, otherTable.id],
    ['table', 'qr-key', seeded.slug, 'table-1'],
    ['table', 'frobnicate', seeded.slug],
    ['area', 'add', seeded.slug, '--name', ''],
    ['area', 'set', seeded.slug, area.id],
    ['area', 'remove', seeded.otherSlug, area.id],
    ['area', 'remove', seeded.slug, area.id, 'extra'],
  ]) {
    const run = await servery(...args);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, /^servery: /);
    assert.equal(run.stdout, '');
  }
  assert.deepEqual(await rows(), before);
});

test('help lists the table and area commands', async () => {
  const help = await servery('help');
  for (const command of ['area add', 'area list', 'area set', 'area remove'])
    assert.ok(help.stdout.includes(`  ${command} `));
  for (const command of ['table add', 'table list', 'table set', 'table remove', 'table qr-key'])
    assert.ok(help.stdout.includes(`  ${command} `), command);
});
