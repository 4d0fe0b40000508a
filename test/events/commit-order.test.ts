import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordEvent } from '../../src/domain/events/events.store.ts';
import { stampEventPositions } from '../../src/domain/events/positions.ts';
import { buildTestApp, makeTenant, type Tenant, type TestApp, tokenFor } from '../harness.ts';
import { eventually } from '../waiting.ts';
import { feed } from './events-helpers.ts';

/*
 * The feed never skips an event (decisions.md, Events): its order is commit order. Writers that
 * take their ids in one order and commit in another must not make a poller that follows
 * next_after pass an event before it is visible. Needs concurrent transactions: PostgreSQL only.
 */
const skip = process.env.DATABASE_URL
  ? false
  : 'needs concurrent transactions: PGlite has one connection (run with DATABASE_URL)';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/**
 * Records an event in a transaction that commits only once `commit` resolves; `inserted` is
 * called once the event has its id and is inserted, uncommitted.
 */
function recordHeld(
  tenant: Tenant,
  commit: Promise<unknown>,
  label: string,
  inserted: () => void = () => {},
): Promise<string> {
  return t.database.db.transaction().execute(async (trx) => {
    const id = await recordEvent(
      { ...t.ctx, db: trx },
      {
        tenantId: tenant.restaurantId,
        type: 'order.created',
        connectionId: null,
        livemode: true,
        data: { object: { label } },
      },
    );
    inserted();
    await commit;
    return id;
  });
}

test('an event whose transaction commits after a later one is still delivered, after it', {
  skip,
}, async () => {
  const tenant = await makeTenant(t.ctx);
  const token = await tokenFor(t.ctx, tenant, ['orders:read']);
  let commitA!: () => void;
  let insertedA!: () => void;
  const aInserted = new Promise<void>((resolve) => (insertedA = resolve));
  const a = recordHeld(tenant, new Promise<void>((resolve) => (commitA = resolve)), 'A', insertedA);
  await aInserted; // A has taken its id and inserted, uncommitted
  await recordHeld(tenant, Promise.resolve(), 'B');
  const first = await feed(t, token, '?types=order.*');
  assert.deepEqual(
    first.data.map((event) => event.data.object.label),
    ['B'],
  );
  commitA();
  await a;
  const second = await feed(t, token, `?types=order.*&after=${first.next_after}`);
  assert.deepEqual(
    second.data.map((event) => event.data.object.label),
    ['A'],
    'A, allocated before B but committed after the poller passed B, still arrives',
  );
  assert.ok(second.data[0] && second.data[0].id > first.next_after, 'ids follow commit order');
});

test('concurrent writers and a poller following next_after: every event exactly once', { skip }, async () => {
  const tenant = await makeTenant(t.ctx);
  const token = await tokenFor(t.ctx, tenant, ['orders:read']);
  const writers = 6;
  const perWriter = 20;
  let writing = true;
  const seen: string[] = [];

  const write = async (writer: number) => {
    for (let i = 0; i < perWriter; i++) {
      // Each transaction holds its event for a random while: commits land out of id order
      // (spacing only: the held event below makes sure some do).
      await recordHeld(tenant, sleep(Math.random() * 25), `${writer}-${i}`);
    }
  };
  const poll = async () => {
    let after = '';
    // Polls until the writers are done and one more full pass found nothing new.
    for (let idle = false; ; ) {
      const page = await feed(t, token, `?types=order.*&limit=7${after}`);
      seen.push(...page.data.map((event) => String(event.data.object.label)));
      after = `&after=${page.next_after}`;
      if (page.has_more) continue;
      if (idle) return;
      if (!writing) idle = true;
      await sleep(40);
    }
  };
  // One event is surely overtaken: it takes its id before every writer's and commits only once
  // the poller has seen one of theirs.
  let insertedHeld!: () => void;
  const heldInserted = new Promise<void>((resolve) => (insertedHeld = resolve));
  const held = recordHeld(
    tenant,
    heldInserted.then(() => eventually('the poller seeing an event', () => seen.length > 0)),
    'held',
    insertedHeld,
  );
  await heldInserted;
  const poller = poll();
  // A second stamper, as the worker runs it, at the same time as the feed's own stamping.
  const stamper = (async () => {
    while (writing) {
      await stampEventPositions(t.database.db, tenant.restaurantId);
      await sleep(5);
    }
  })();
  await Promise.all([held, ...Array.from({ length: writers }, (_, writer) => write(writer))]);
  writing = false;
  await Promise.all([poller, stamper]);

  const expected = [
    'held',
    ...Array.from({ length: writers }, (_, writer) =>
      Array.from({ length: perWriter }, (_, i) => `${writer}-${i}`),
    ).flat(),
  ];
  assert.equal(seen.length, expected.length, 'no event twice, none missing');
  assert.deepEqual([...seen].sort(), [...expected].sort());
  // And the events really committed out of their id order (else the test proves nothing).
  const rows = await t.database.db
    .selectFrom('events')
    .select(['id', 'position'])
    .where('tenant_id', '=', tenant.restaurantId)
    .where('type', '=', 'order.created')
    .orderBy('id')
    .execute();
  const positions = rows.map((row) => Number(row.position));
  assert.notDeepEqual(
    positions,
    [...positions].sort((x, y) => x - y),
    'some commits overtook earlier ids',
  );
});
