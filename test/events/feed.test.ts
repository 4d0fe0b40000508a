import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, makeTenant, type TestApp, tokenFor } from '../harness.ts';
import { connectAnotherApp, feed, feedAll, fetchEvents, idFor, record } from './events-helpers.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const day = 24 * 3600 * 1000;
const zeros = `evt_${'0'.repeat(32)}`;

function getEvent(token: string, id: string) {
  return t.app.inject({ method: 'GET', url: `/v1/events/${id}`, headers: bearer(token) });
}

describe('the envelope', () => {
  test('has exactly the spec’s fields; per-app values are null, also nested', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const object = {
      object: 'order',
      id: 'o-1',
      status: 'new',
      external_id: 'POS-7',
      acknowledged_at: '2026-11-02T09:00:00.000Z',
      items: [{ product_id: 'p', external_id: 'SKU-1' }],
    };
    const outboxId = await record(t, tenant, 'order.status_changed', { object, previous_status: 'pending' });
    const page = await feed(t, tenant.token, '?types=order.*');
    assert.deepEqual(page, {
      object: 'list',
      data: [
        {
          id: await idFor(t, tenant, outboxId),
          object: 'event',
          type: 'order.status_changed',
          created_at: '2026-11-02T10:00:00.000Z',
          api_version: '2026-10-08',
          livemode: true,
          tenant_id: tenant.restaurantId,
          connection_id: tenant.connectionId,
          data: {
            object: {
              ...object,
              external_id: null,
              acknowledged_at: null,
              items: [{ product_id: 'p', external_id: null }],
            },
            previous_status: 'pending',
          },
        },
      ],
      has_more: false,
      next_after: page.data[0]?.id,
      gap: false,
    });
    assert.match(page.next_after, /^evt_[0-9a-f]{32}$/);
    assert.deepEqual(Object.keys(page), ['object', 'data', 'has_more', 'next_after', 'gap']);
  });

  test('events created before 8 October 2026 keep api_version 2026-10-04', async () => {
    const tenant = await makeTenant(t.ctx);
    t.clock.advance(-(26 * day)); // 2026-10-07T10:00Z
    await record(t, tenant, 'menu.synced');
    t.clock.advance(14 * 3600 * 1000 - 1); // 2026-10-07T23:59:59.999Z
    await record(t, tenant, 'menu.synced');
    t.clock.advance(1);
    await record(t, tenant, 'menu.synced');
    t.clock.advance(26 * day - 14 * 3600 * 1000);
    const page = await feed(t, tenant.token, '?types=menu.synced');
    assert.deepEqual(
      page.data.map((event) => [event.created_at, event.api_version]),
      [
        ['2026-10-07T10:00:00.000Z', '2026-10-04'],
        ['2026-10-07T23:59:59.999Z', '2026-10-04'],
        ['2026-10-08T00:00:00.000Z', '2026-10-08'],
      ],
    );
  });

  test('is frozen at first read: every later read, list or single, is byte-identical', async () => {
    const tenant = await makeTenant(t.ctx);
    const outboxId = await record(t, tenant, 'store.updated', {
      object: { object: 'store', name: 'Before', nested: { b: 1, a: 2 } },
      changed: ['name'],
    });
    const first = await fetchEvents(t, tenant.token, '?types=store.*');
    const id = await idFor(t, tenant, outboxId);
    // The recorded data changes afterwards (it never should): the envelope does not.
    await t.database.db
      .updateTable('events')
      .set({ data: JSON.stringify({ object: { object: 'store', name: 'After' } }) })
      .where('id', '=', outboxId)
      .execute();
    const second = await fetchEvents(t, tenant.token, '?types=store.*');
    assert.equal(second.body, first.body);
    const single = await getEvent(tenant.token, id);
    assert.equal(single.statusCode, 200);
    assert.match(String(single.headers['content-type']), /^application\/json/);
    assert.ok(first.body.includes(single.body), 'the list carries the same bytes as the single read');
    assert.equal((await getEvent(tenant.token, id)).body, single.body);
    assert.equal(single.json().data.object.name, 'Before');
  });
});

describe('visibility', () => {
  test('a token sees the restaurant’s events its read scopes allow', async () => {
    const tenant = await makeTenant(t.ctx);
    for (const type of [
      'order.created',
      'menu.product.updated',
      'store.paused',
      'reservation.created',
    ] as const) {
      await record(t, tenant, type);
    }
    const typesSeenWith = async (scopes: Parameters<typeof tokenFor>[2]) =>
      (await feed(t, await tokenFor(t.ctx, tenant, scopes))).data.map((event) => event.type);
    assert.deepEqual(await typesSeenWith(['orders:read']), ['app.connected', 'order.created']);
    assert.deepEqual(await typesSeenWith(['menu:read']), ['app.connected', 'menu.product.updated']);
    assert.deepEqual(await typesSeenWith(['store:read']), ['app.connected', 'store.paused']);
    assert.deepEqual(await typesSeenWith(['reservations:read']), ['app.connected', 'reservation.created']);
    // Write scopes and reports:read show no restaurant events; app.* of the connection needs none.
    assert.deepEqual(await typesSeenWith(['orders:write', 'menu:write', 'reports:read']), ['app.connected']);
    assert.deepEqual(await typesSeenWith(['orders:read', 'store:read']), [
      'app.connected',
      'order.created',
      'store.paused',
    ]);
  });

  test('app.* events only of the own connection; app.disconnected never; test events never', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await connectAnotherApp(t.ctx, tenant);
    await record(t, tenant, 'app.scopes_changed', undefined, { connectionId: tenant.connectionId });
    const disconnected = await record(t, tenant, 'app.disconnected', undefined, {
      connectionId: tenant.connectionId,
    });
    const testEvent = await record(t, tenant, 'order.created', { object: { object: 'order' }, test: true });
    const ping = await record(t, tenant, 'ping', { object: {}, test: true });
    const mine = await feedAll(t, tenant.token);
    assert.deepEqual(
      mine.map((event) => event.type),
      ['app.connected', 'app.scopes_changed'],
    );
    assert.equal(mine[0]?.data.object.id, tenant.connectionId);
    const theirs = await feedAll(t, other.token);
    assert.deepEqual(
      theirs.map((event) => [event.type, event.data.object.id]),
      [['app.connected', other.connectionId]],
    );
    for (const outboxId of [disconnected, testEvent, ping]) {
      const res = await getEvent(tenant.token, await idFor(t, tenant, outboxId));
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().error.code, 'not_found');
    }
  });

  test('a new connection sees the restaurant’s events from before it was made', async () => {
    const tenant = await makeTenant(t.ctx);
    await record(t, tenant, 'order.created');
    t.clock.advance(1000);
    const later = await connectAnotherApp(t.ctx, tenant, ['orders:read']);
    const types = (await feedAll(t, later.token)).map((event) => event.type);
    assert.deepEqual(types, ['order.created', 'app.connected']);
  });

  test('two connections see one change under different ids; the other’s id is not found', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await connectAnotherApp(t.ctx, tenant);
    const outboxId = await record(t, tenant, 'order.created');
    const [mine] = (await feed(t, tenant.token, '?types=order.created')).data;
    const [theirs] = (await feed(t, other.token, '?types=order.created')).data;
    assert.ok(mine && theirs);
    assert.notEqual(mine.id, theirs.id);
    assert.equal(mine.id.slice(0, 20), theirs.id.slice(0, 20), 'same change, same position part');
    assert.equal(mine.id, await idFor(t, tenant, outboxId));
    assert.equal(mine.connection_id, tenant.connectionId);
    assert.equal(theirs.connection_id, other.connectionId);
    assert.equal((await getEvent(tenant.token, mine.id)).statusCode, 200);
    const res = await getEvent(tenant.token, theirs.id);
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, 'not_found');
    // Another restaurant's connection finds neither.
    const stranger = await makeTenant(t.ctx);
    assert.equal((await getEvent(stranger.token, mine.id)).statusCode, 404);
  });

  test('GET /events/{id} of an event outside the token’s scopes → 404', async () => {
    const tenant = await makeTenant(t.ctx);
    const id = await idFor(t, tenant, await record(t, tenant, 'order.created'));
    await feed(t, tenant.token); // stamps
    assert.equal((await getEvent(tenant.token, id)).statusCode, 200);
    const menuOnly = await tokenFor(t.ctx, tenant, ['menu:read']);
    const res = await getEvent(menuOnly, id);
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, 'not_found');
  });
});

describe('retention: 30 days', () => {
  test('an event exactly 30 days old is gone from the feed and GET by id; one a millisecond younger is there', async () => {
    const tenant = await makeTenant(t.ctx);
    t.clock.advance(1000);
    const older = await record(t, tenant, 'order.created');
    t.clock.advance(1);
    const younger = await record(t, tenant, 'order.created');
    await feed(t, tenant.token);
    const olderId = await idFor(t, tenant, older);
    const youngerId = await idFor(t, tenant, younger);
    t.clock.advance(30 * day - 1);
    const token = await tokenFor(t.ctx, tenant, ['orders:read']);
    const ids = (await feed(t, token, '?types=order.*')).data.map((event) => event.id);
    assert.deepEqual(ids, [youngerId]);
    assert.equal((await getEvent(token, olderId)).statusCode, 404);
    assert.equal((await getEvent(token, youngerId)).statusCode, 200);
    t.clock.advance(1);
    assert.deepEqual((await feed(t, token, '?types=order.*')).data, []);
    assert.equal((await getEvent(token, youngerId)).statusCode, 404);
    t.clock.advance(-(30 * day + 1001));
  });

  test('an after no longer kept continues with the oldest kept event and gap: true', async () => {
    const tenant = await makeTenant(t.ctx);
    const old = await record(t, tenant, 'order.created');
    await feed(t, tenant.token);
    const oldId = await idFor(t, tenant, old);
    t.clock.advance(20 * day);
    const kept = await record(t, tenant, 'order.created');
    t.clock.advance(10 * day);
    const keptId = await idFor(t, tenant, kept);
    const token = await tokenFor(t.ctx, tenant, ['orders:read']);
    const page = await feed(t, token, `?after=${oldId}&types=order.*`);
    assert.deepEqual(
      { ids: page.data.map((event) => event.id), gap: page.gap, next_after: page.next_after },
      { ids: [keptId], gap: true, next_after: keptId },
    );
    // A kept after: no gap, and nothing after it.
    const next = await feed(t, token, `?after=${keptId}`);
    assert.deepEqual(
      { data: next.data, gap: next.gap, next_after: next.next_after },
      {
        data: [],
        gap: false,
        next_after: keptId,
      },
    );
    t.clock.advance(-30 * day);
  });

  test('an unknown after, or another connection’s, is a gap too (no error)', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await connectAnotherApp(t.ctx, tenant);
    await record(t, tenant, 'order.created');
    const [theirs] = (await feed(t, other.token, '?types=order.*')).data;
    assert.ok(theirs);
    for (const after of [theirs.id, `evt_7fffffffffffffff${theirs.id.slice(20)}`, `evt_${'f'.repeat(32)}`]) {
      const page = await feed(t, tenant.token, `?after=${after}&types=order.*`);
      assert.equal(page.gap, true, after);
      assert.deepEqual(
        page.data.map((event) => event.type),
        ['order.created'],
      );
    }
  });
});

describe('paging', () => {
  test('next_after is evt_ and 32 zeros before any event, and continues from there', async () => {
    const tenant = await makeTenant(t.ctx);
    const empty = await feed(t, tenant.token, '?types=order.*');
    assert.deepEqual(empty, { object: 'list', data: [], has_more: false, next_after: zeros, gap: false });
    await record(t, tenant, 'order.created');
    const page = await feed(t, tenant.token, `?types=order.*&after=${zeros}`);
    assert.deepEqual([page.data.length, page.gap], [1, false]);
  });

  test('after=latest: no events and next_after at the newest visible one; then only newer ones', async () => {
    const tenant = await makeTenant(t.ctx);
    await record(t, tenant, 'order.created');
    const newest = await idFor(t, tenant, await record(t, tenant, 'order.paid'));
    await record(t, tenant, 'menu.synced');
    const token = await tokenFor(t.ctx, tenant, ['orders:read']);
    const latest = await feed(t, token, '?after=latest');
    assert.deepEqual(latest, { object: 'list', data: [], has_more: false, next_after: newest, gap: false });
    const fresh = await record(t, tenant, 'order.cancelled');
    const next = await feed(t, token, `?after=${latest.next_after}`);
    assert.deepEqual(
      next.data.map((event) => event.id),
      [await idFor(t, tenant, fresh)],
    );
    const none = await makeTenant(t.ctx);
    assert.equal((await feed(t, none.token, '?after=latest&types=order.*')).next_after, zeros);
  });

  test('limit defaults to 50, goes 1 to 100, and pages oldest first without loss', async () => {
    const tenant = await makeTenant(t.ctx);
    const recorded: string[] = [];
    for (let i = 0; i < 51; i++) {
      t.clock.advance(1);
      recorded.push(await record(t, tenant, 'order.created'));
    }
    const first = await feed(t, tenant.token, '?types=order.created');
    assert.equal(first.data.length, 50);
    assert.equal(first.has_more, true);
    const stamped = await Promise.all(recorded.map((outboxId) => idFor(t, tenant, outboxId)));
    assert.deepEqual(
      first.data.map((event) => event.id),
      stamped.slice(0, 50),
    );
    assert.deepEqual([...stamped].sort(), stamped, 'ids sort in feed order');
    const rest = await feed(t, tenant.token, `?types=order.created&after=${first.next_after}`);
    assert.deepEqual(
      rest.data.map((event) => event.id),
      stamped.slice(50),
    );
    assert.equal(rest.has_more, false);
    const small = await feed(t, tenant.token, '?types=order.created&limit=1');
    assert.deepEqual([small.data.length, small.has_more, small.next_after], [1, true, stamped[0]]);
    assert.equal((await feed(t, tenant.token, '?types=order.created&limit=100')).data.length, 51);
    for (const limit of ['0', '101', 'x', '1.5']) {
      const res = await fetchEvents(t, tenant.token, `?limit=${limit}`);
      assert.equal(res.statusCode, 400, limit);
      assert.equal(res.json().error.param, 'limit');
    }
  });

  test('types takes types and groups; an unknown one → 400 on types', async () => {
    const tenant = await makeTenant(t.ctx);
    for (const type of [
      'order.created',
      'order.paid',
      'menu.product.created',
      'menu.category.deleted',
    ] as const) {
      await record(t, tenant, type);
    }
    const typesOf = async (types: string) =>
      (await feed(t, tenant.token, `?types=${types}`)).data.map((event) => event.type);
    assert.deepEqual(await typesOf('order.paid'), ['order.paid']);
    assert.deepEqual(await typesOf('order.*'), ['order.created', 'order.paid']);
    assert.deepEqual(await typesOf('order.created,menu.*'), [
      'order.created',
      'menu.product.created',
      'menu.category.deleted',
    ]);
    assert.deepEqual(await typesOf('menu.product.*,app.*'), ['app.connected', 'menu.product.created']);
    for (const types of ['order.shipped', 'foo.*', 'order.', 'order.created,', '*', 'ORDER.created']) {
      const res = await fetchEvents(t, tenant.token, `?types=${encodeURIComponent(types)}`);
      assert.equal(res.statusCode, 400, types);
      assert.deepEqual([res.json().error.code, res.json().error.param], ['invalid_request', 'types']);
    }
  });
});

describe('bad input', () => {
  test('a malformed event id → 400 on id; a well-formed unknown one → 404', async () => {
    const tenant = await makeTenant(t.ctx);
    for (const id of [
      'evt_123',
      `evt_${'A'.repeat(32)}`,
      `evt_${'0'.repeat(33)}`,
      crypto.randomUUID(),
      'latest',
    ]) {
      const res = await getEvent(tenant.token, id);
      assert.equal(res.statusCode, 400, id);
      assert.deepEqual([res.json().error.code, res.json().error.param], ['invalid_request', 'id']);
    }
    for (const id of [zeros, `evt_${'1'.repeat(32)}`]) {
      assert.equal((await getEvent(tenant.token, id)).statusCode, 404, id);
    }
  });

  test('a malformed after, or a repeated parameter → 400 naming it', async () => {
    const tenant = await makeTenant(t.ctx);
    for (const after of ['evt_12', 'LATEST', `evt_${'g'.repeat(32)}`, '']) {
      const res = await fetchEvents(t, tenant.token, `?after=${after}`);
      assert.equal(res.statusCode, 400, after);
      assert.equal(res.json().error.param, 'after');
    }
    const res = await fetchEvents(t, tenant.token, '?types=order.*&types=menu.*');
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.param, 'types');
  });
});
