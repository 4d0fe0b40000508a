import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { issueAccessToken } from '../../src/domain/connections/access-tokens.ts';
import type { Scope } from '../../src/domain/shared/scopes.ts';
import { liftEndedPauses } from '../../src/domain/store/store.service.ts';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp } from '../harness.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const hour = 3600 * 1000;

function call(
  tenant: Tenant,
  method: 'GET' | 'PATCH' | 'PUT' | 'POST' | 'DELETE',
  url: string,
  body?: unknown,
) {
  return t.app.inject({
    method,
    url: `/v1${url}`,
    headers: {
      ...bearer(tenant.token),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The tenant with a new token of every scope (access tokens live an hour; some tests move the clock further). */
async function renewed(tenant: Tenant): Promise<Tenant> {
  const { token } = await issueAccessToken(t.ctx, {
    tenantId: tenant.restaurantId,
    connectionId: tenant.connectionId,
    scopes: ['store:read', 'store:write'],
  });
  return { ...tenant, token };
}

/** The restaurant's events of a type, oldest first, as recorded (data as stored). */
async function eventsOf(tenant: Tenant, type: string): Promise<Array<Record<string, unknown>>> {
  const rows = await t.database.db
    .selectFrom('events')
    .select(['data', 'connection_id'])
    .where('tenant_id', '=', tenant.restaurantId)
    .where('type', '=', type)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...(row.data as Record<string, unknown>), connection_id: row.connection_id }));
}

async function storeRow(tenant: Tenant) {
  return t.database.db
    .selectFrom('stores')
    .selectAll()
    .where('tenant_id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
}

describe('GET /v1/store', () => {
  test('every field of the Store, in the spec’s order', async () => {
    const tenant = await makeTenant(t.ctx);
    await t.database.db
      .updateTable('stores')
      .set({
        phone: '+49 30 1234567',
        email: 'hello@example.test',
        website: null,
        address_line: '10115 Berlin, Torstraße 1',
        lat: 52.53,
        lon: 13.4,
        min_order: 1500,
      })
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    const res = await call(tenant, 'GET', '/store');
    assert.equal(res.statusCode, 200, res.body);
    const store = res.json();
    assert.deepEqual(Object.keys(store), [
      'object',
      'id',
      'name',
      'slug',
      'timezone',
      'currency',
      'status',
      'paused_until',
      'pause_note',
      'next_opening_at',
      'preorders',
      'order_types',
      'order_statuses',
      'lead_times',
      'busy',
      'min_order',
      'always_open',
      'opening_hours',
      'delivery_hours',
      'closures',
      'contact',
      'address',
      'location',
      'delivery_zones',
    ]);
    assert.equal(store.object, 'store');
    assert.equal(store.id, tenant.restaurantId);
    assert.equal(store.timezone, 'Europe/Berlin');
    assert.equal(store.currency, 'EUR');
    assert.equal(store.status, 'closed', 'no hours: closed');
    assert.deepEqual(store.order_types, { pickup: true, delivery: false, dine_in: false });
    assert.deepEqual(store.order_statuses, [
      'pending',
      'confirmed',
      'preparing',
      'ready',
      'completed',
      'cancelled',
    ]);
    assert.deepEqual(store.lead_times, { pickup_minutes: 20, delivery_minutes: 45 });
    assert.equal(store.busy, null);
    assert.equal(store.min_order, 1500);
    assert.deepEqual(store.contact, { phone: '+49 30 1234567', email: 'hello@example.test', website: null });
    assert.deepEqual(store.address, {
      line: '10115 Berlin, Torstraße 1',
      postal_code: '10115',
      city: 'Berlin',
      country: 'DE',
    });
    assert.deepEqual(store.location, { lat: 52.53, lon: 13.4 });
  });

  test('postal code and city are split out only when the line starts with a postal code', async () => {
    const tenant = await makeTenant(t.ctx);
    await t.database.db
      .updateTable('stores')
      .set({ address_line: 'Torstraße 1, 10115 Berlin' })
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    const { address, location } = (await call(tenant, 'GET', '/store')).json();
    assert.deepEqual(address, {
      line: 'Torstraße 1, 10115 Berlin',
      postal_code: null,
      city: null,
      country: 'DE',
    });
    assert.equal(location, null);
  });

  test('requests arriving together (read in one query): each gets its own store, as it is now', async () => {
    const [a, b] = [await makeTenant(t.ctx), await makeTenant(t.ctx)];
    await t.database.db
      .updateTable('stores')
      .set({ min_order: 700 })
      .where('tenant_id', '=', b.restaurantId)
      .execute();
    const stores = (await Promise.all([a, b, a, b].map((tenant) => call(tenant, 'GET', '/store')))).map(
      (res) => res.json(),
    );
    assert.deepEqual(
      stores.map((store) => [store.id, store.min_order]),
      [a, b, a, b].map((tenant) => [tenant.restaurantId, tenant === b ? 700 : 0]),
    );
    // Nothing is kept between requests: a change is seen by the next one.
    await t.database.db
      .updateTable('stores')
      .set({ min_order: 900 })
      .where('tenant_id', '=', a.restaurantId)
      .execute();
    assert.equal((await call(a, 'GET', '/store')).json().min_order, 900);
  });

  test('needs store:read; another restaurant’s store is never seen', async () => {
    const tenant = await makeTenant(t.ctx, { scopes: ['orders:read'] as Scope[] });
    const res = await call(tenant, 'GET', '/store');
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'insufficient_scope');
    const other = await makeTenant(t.ctx);
    assert.equal((await call(other, 'GET', '/store')).json().id, other.restaurantId);
  });
});

describe('PATCH /v1/store', () => {
  test('changes only the sent fields and records store.updated with changed and previous', async () => {
    const tenant = await makeTenant(t.ctx, { plan: 'pro' });
    const res = await call(tenant, 'PATCH', '/store', {
      lead_times: { pickup_minutes: 30 },
      order_types: { dine_in: true },
      preorders: true,
    });
    assert.equal(res.statusCode, 200, res.body);
    const store = res.json();
    assert.deepEqual(store.lead_times, { pickup_minutes: 30, delivery_minutes: 45 });
    assert.deepEqual(store.order_types, { pickup: true, delivery: false, dine_in: true });
    assert.equal(store.preorders, true);
    const [event, ...more] = await eventsOf(tenant, 'store.updated');
    assert.equal(more.length, 0);
    assert.deepEqual(event?.changed, ['preorders', 'order_types', 'lead_times']);
    assert.deepEqual(event?.previous, {
      preorders: false,
      order_types: { pickup: true, delivery: false, dine_in: false },
      lead_times: { pickup_minutes: 20, delivery_minutes: 45 },
    });
    assert.deepEqual(event?.object, store);
    assert.equal(event?.connection_id, null);

    const same = await call(tenant, 'PATCH', '/store', { preorders: true });
    assert.equal(same.statusCode, 200);
    assert.equal((await eventsOf(tenant, 'store.updated')).length, 1, 'nothing changed: no event');
  });

  test('switching dine_in on needs Pro: 403 plan_required with param; switching off is allowed', async () => {
    const tenant = await makeTenant(t.ctx, { plan: 'starter' });
    const before = await storeRow(tenant);
    const res = await call(tenant, 'PATCH', '/store', { order_types: { dine_in: true }, preorders: true });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'plan_required');
    assert.equal(res.json().error.param, 'order_types.dine_in');
    assert.deepEqual(await storeRow(tenant), before, 'nothing changed');
    const delivery = await call(tenant, 'PATCH', '/store', {
      order_types: { delivery: true, pickup: false },
    });
    assert.equal(delivery.statusCode, 200);
    assert.deepEqual(delivery.json().order_types, { pickup: false, delivery: true, dine_in: false });
    await t.database.db
      .updateTable('stores')
      .set({ dine_in: true })
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    const off = await call(tenant, 'PATCH', '/store', { order_types: { dine_in: false } });
    assert.equal(off.statusCode, 200);
  });

  test('bad input is a 400 with param and changes nothing', async () => {
    const tenant = await makeTenant(t.ctx);
    const before = await storeRow(tenant);
    const cases: Array<[unknown, string]> = [
      [{ lead_times: { pickup_minutes: 241 } }, 'lead_times.pickup_minutes'],
      [{ lead_times: { delivery_minutes: 361 } }, 'lead_times.delivery_minutes'],
      [{ lead_times: { pickup_minutes: -1 } }, 'lead_times.pickup_minutes'],
      [{ lead_times: { pickup_minutes: 10.5 } }, 'lead_times.pickup_minutes'],
      [{ order_types: { takeaway: true } }, 'order_types.takeaway'],
      [{ preorders: 'yes' }, 'preorders'],
      [{ name: 'New name' }, 'name'],
    ];
    for (const [body, param] of cases) {
      const res = await call(tenant, 'PATCH', '/store', body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().error.code, 'invalid_request');
      assert.equal(res.json().error.param, param, JSON.stringify(body));
    }
    assert.deepEqual(await storeRow(tenant), before);
    assert.deepEqual(await eventsOf(tenant, 'store.updated'), []);
    const edges = await call(tenant, 'PATCH', '/store', {
      lead_times: { pickup_minutes: 240, delivery_minutes: 0 },
    });
    assert.deepEqual(edges.json().lead_times, { pickup_minutes: 240, delivery_minutes: 0 });
  });

  test('needs store:write', async () => {
    const tenant = await makeTenant(t.ctx, { scopes: ['store:read'] as Scope[] });
    const res = await call(tenant, 'PATCH', '/store', { preorders: true });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'insufficient_scope');
  });
});

describe('/v1/store/hours', () => {
  const week = [
    { weekday: 4, open: '18:00', close: '02:00' },
    { weekday: 0, open: '11:30', close: '14:30' },
    { weekday: 0, open: '17:30', close: '22:00' },
  ];

  test('PUT replaces the sent parts, sorted; GET reads them; store.updated reports the change', async () => {
    const tenant = await makeTenant(t.ctx);
    const res = await call(tenant, 'PUT', '/store/hours', { opening_hours: week });
    assert.equal(res.statusCode, 200, res.body);
    const sorted = [week[1], week[2], week[0]];
    assert.deepEqual(res.json(), {
      object: 'store_hours',
      always_open: false,
      opening_hours: sorted,
      delivery_hours: [],
    });
    assert.deepEqual((await call(tenant, 'GET', '/store/hours')).json(), res.json());
    const delivery = await call(tenant, 'PUT', '/store/hours', {
      delivery_hours: [{ weekday: 0, open: '18:00', close: '21:30' }],
    });
    assert.deepEqual(delivery.json().opening_hours, sorted, 'opening hours untouched');
    const events = await eventsOf(tenant, 'store.updated');
    assert.equal(events.length, 2);
    assert.deepEqual(events[0]?.changed, ['opening_hours']);
    assert.deepEqual(events[0]?.previous, { opening_hours: [] });
    assert.deepEqual(events[1]?.changed, ['delivery_hours']);
  });

  test('always_open clears the weekly schedule; with opening hours in the same request it is a 400', async () => {
    const tenant = await makeTenant(t.ctx);
    await call(tenant, 'PUT', '/store/hours', { opening_hours: week });
    const both = await call(tenant, 'PUT', '/store/hours', { always_open: true, opening_hours: week });
    assert.equal(both.statusCode, 400);
    assert.equal(both.json().error.param, 'opening_hours');
    const res = await call(tenant, 'PUT', '/store/hours', { always_open: true });
    assert.deepEqual(res.json().opening_hours, []);
    assert.equal(res.json().always_open, true);
    assert.equal((await call(tenant, 'GET', '/store')).json().status, 'open');
  });

  test('malformed times, weekday 7 and unknown fields are 400 with param; nothing changes', async () => {
    const tenant = await makeTenant(t.ctx);
    await call(tenant, 'PUT', '/store/hours', { opening_hours: week });
    const before = await storeRow(tenant);
    const cases: Array<[unknown, string]> = [
      [{ opening_hours: [{ weekday: 0, open: '24:00', close: '02:00' }] }, 'opening_hours[0].open'],
      [{ opening_hours: [{ weekday: 0, open: '07:00', close: '7:5' }] }, 'opening_hours[0].close'],
      [
        { opening_hours: [week[0], { weekday: 7, open: '10:00', close: '12:00' }] },
        'opening_hours[1].weekday',
      ],
      [{ delivery_hours: [{ weekday: -1, open: '10:00', close: '12:00' }] }, 'delivery_hours[0].weekday'],
      [{ opening_hours: [{ weekday: 0, open: '10:00' }] }, 'opening_hours[0].close'],
      [
        { opening_hours: [{ weekday: 0, open: '10:00', close: '12:00', note: 'x' }] },
        'opening_hours[0].note',
      ],
      [{ hours: [] }, 'hours'],
    ];
    for (const [body, param] of cases) {
      const res = await call(tenant, 'PUT', '/store/hours', body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().error.param, param, JSON.stringify(body));
    }
    assert.deepEqual(await storeRow(tenant), before);
  });
});

describe('/v1/store/closures', () => {
  test('upsert by date: 201 new, 200 replaced; listed upcoming only; DELETE; store.updated each time', async () => {
    const tenant = await makeTenant(t.ctx);
    const christmas = {
      date: '2026-12-24',
      closed: false,
      hours: [{ open: '11:00', close: '14:00' }],
      note: 'Christmas Eve',
    };
    const created = await call(tenant, 'POST', '/store/closures', christmas);
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual(created.json(), { object: 'closure', ...christmas });
    const replaced = await call(tenant, 'POST', '/store/closures', { date: '2026-12-24', closed: true });
    assert.equal(replaced.statusCode, 200);
    assert.deepEqual(replaced.json(), {
      object: 'closure',
      date: '2026-12-24',
      closed: true,
      hours: [],
      note: null,
    });
    await call(tenant, 'POST', '/store/closures', { date: '2026-11-02', closed: true });
    const list = (await call(tenant, 'GET', '/store/closures')).json();
    assert.deepEqual(
      list.data.map((c: { date: string }) => c.date),
      ['2026-11-02', '2026-12-24'],
    );
    assert.deepEqual((await call(tenant, 'GET', '/store')).json().closures, list.data);

    // Two days later the 2nd of November is past: no longer shown, nor deletable.
    t.clock.advance(48 * hour);
    try {
      const later = await renewed(tenant);
      assert.deepEqual(
        (await call(later, 'GET', '/store/closures')).json().data.map((c: { date: string }) => c.date),
        ['2026-12-24'],
      );
      assert.equal((await call(later, 'DELETE', '/store/closures/2026-11-02')).statusCode, 404);
    } finally {
      t.clock.advance(-48 * hour);
    }
    const deleted = await call(tenant, 'DELETE', '/store/closures/2026-12-24');
    assert.deepEqual(deleted.json(), { object: 'closure', date: '2026-12-24', deleted: true });
    assert.equal((await call(tenant, 'DELETE', '/store/closures/2026-12-24')).statusCode, 404);
    const events = await eventsOf(tenant, 'store.updated');
    assert.equal(events.length, 4);
    assert.ok(events.every((e) => (e.changed as string[]).includes('closures')));
    assert.equal((events[3]?.previous as { closures: unknown[] } | undefined)?.closures.length, 2);
  });

  test('bad days: past, not a date, three windows, closed with hours, open without: 400 with param', async () => {
    const tenant = await makeTenant(t.ctx);
    const w = { open: '10:00', close: '12:00' };
    const cases: Array<[unknown, string]> = [
      [{ date: '2026-11-01', closed: true }, 'date'],
      [{ date: '2026-02-30', closed: true }, 'date'],
      [{ date: '2026-12-1', closed: true }, 'date'],
      [{ date: '2026-12-01', closed: false, hours: [w, w, w] }, 'hours'],
      [{ date: '2026-12-01', closed: true, hours: [w] }, 'hours'],
      [{ date: '2026-12-01', closed: false }, 'hours'],
      [{ date: '2026-12-01', closed: false, hours: [{ open: '24:00', close: '12:00' }] }, 'hours[0].open'],
      [{ date: '2026-12-01', closed: true, note: 'x'.repeat(201) }, 'note'],
      [{ date: '2026-12-01' }, 'closed'],
      [{ date: '2026-12-01', closed: true, reason: 'x' }, 'reason'],
    ];
    for (const [body, param] of cases) {
      const res = await call(tenant, 'POST', '/store/closures', body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().error.param, param, JSON.stringify(body));
    }
    const bad = await call(tenant, 'DELETE', '/store/closures/tomorrow');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.param, 'date');
    assert.deepEqual((await call(tenant, 'GET', '/store/closures')).json().data, []);
  });

  test('at most 60 special days: the 61st is 422 limit_exceeded; replacing one is fine', async () => {
    const tenant = await makeTenant(t.ctx);
    const start = Date.parse('2026-11-03T00:00:00Z');
    const dates = Array.from({ length: 61 }, (_, i) =>
      new Date(start + i * 24 * hour).toISOString().slice(0, 10),
    );
    await t.database.db
      .insertInto('store_closures')
      .values(
        dates.slice(0, 60).map((date) => ({
          tenant_id: tenant.restaurantId,
          date,
          closed: true,
          hours: '[]',
          note: null,
          created_at: t.clock.now(),
          updated_at: t.clock.now(),
        })),
      )
      .execute();
    const over = await call(tenant, 'POST', '/store/closures', { date: dates[60], closed: true });
    assert.equal(over.statusCode, 422);
    assert.equal(over.json().error.code, 'limit_exceeded');
    const again = await call(tenant, 'POST', '/store/closures', {
      date: dates[0],
      closed: true,
      note: 'Inventory',
    });
    assert.equal(again.statusCode, 200);
  });
});

describe('/v1/store/pause', () => {
  test('a pause with until: paused, store.paused; it ends by itself with store.resumed', async () => {
    const tenant = await makeTenant(t.ctx);
    await call(tenant, 'PUT', '/store/hours', { always_open: true });
    const until = new Date(t.clock.now().getTime() + 2 * hour);
    const res = await call(tenant, 'POST', '/store/pause', {
      until: until.toISOString(),
      note: 'Kitchen full',
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status, 'paused');
    assert.equal(res.json().paused_until, until.toISOString());
    assert.equal(res.json().pause_note, 'Kitchen full');
    assert.equal(res.json().next_opening_at, until.toISOString());
    const [paused] = await eventsOf(tenant, 'store.paused');
    assert.deepEqual(paused?.object, res.json());

    t.clock.advance(2 * hour);
    try {
      const store = (await call(await renewed(tenant), 'GET', '/store')).json();
      assert.equal(store.status, 'open', 'never stale, even before the worker lifts the pause');
      assert.equal(store.paused_until, null);
      assert.equal(await liftEndedPauses(t.database.db, t.clock), 1);
      const [resumed, ...more] = await eventsOf(tenant, 'store.resumed');
      assert.equal(more.length, 0);
      assert.equal((resumed?.object as { status: string } | undefined)?.status, 'open');
      assert.equal(await liftEndedPauses(t.database.db, t.clock), 0);
    } finally {
      t.clock.advance(-2 * hour);
    }
  });

  test('an indefinite pause until lifted; changing it is store.updated; DELETE resumes once', async () => {
    const tenant = await makeTenant(t.ctx);
    const res = await call(tenant, 'POST', '/store/pause', {});
    assert.equal(res.json().status, 'paused');
    assert.equal(res.json().paused_until, null);
    assert.equal(res.json().next_opening_at, null);
    const noted = await call(tenant, 'POST', '/store/pause', { note: 'Back soon' });
    assert.equal(noted.json().pause_note, 'Back soon');
    const [updated] = await eventsOf(tenant, 'store.updated');
    assert.deepEqual(updated?.changed, ['pause_note']);
    assert.deepEqual(updated?.previous, { pause_note: null });
    const resumed = await call(tenant, 'DELETE', '/store/pause');
    assert.equal(resumed.statusCode, 200);
    assert.equal(resumed.json().status, 'closed');
    assert.equal((await call(tenant, 'DELETE', '/store/pause')).statusCode, 200);
    assert.equal((await eventsOf(tenant, 'store.paused')).length, 1);
    assert.equal((await eventsOf(tenant, 'store.resumed')).length, 1);
  });

  test('over-long note, until without a zone or in the past: 400, never truncated, nothing changed', async () => {
    const tenant = await makeTenant(t.ctx);
    const future = new Date(t.clock.now().getTime() + hour).toISOString();
    const cases: Array<[unknown, string]> = [
      [{ note: 'x'.repeat(141) }, 'note'],
      [{ until: future.replace('Z', '') }, 'until'],
      [{ until: '2026-11-02T09:00:00Z' }, 'until'],
      [{ until: 'soon' }, 'until'],
      [{ minutes: 30 }, 'minutes'],
    ];
    for (const [body, param] of cases) {
      const res = await call(tenant, 'POST', '/store/pause', body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().error.param, param, JSON.stringify(body));
    }
    assert.equal((await storeRow(tenant)).paused, false);
    const exact = await call(tenant, 'POST', '/store/pause', {
      note: 'x'.repeat(140),
      until: future.replace('Z', '+00:00'),
    });
    assert.equal(exact.statusCode, 200);
    assert.equal(exact.json().pause_note, 'x'.repeat(140));
  });
});

test('colliding writes on PostgreSQL: retried, and 409 conflict with Retry-After after three in a row', {
  skip: !process.env.DATABASE_URL,
}, async () => {
  const tenant = await makeTenant(t.ctx);
  // Twenty writers at once: each either lands (retried past collisions) or answers 409; none is lost.
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      call(tenant, 'PATCH', '/store', { lead_times: { pickup_minutes: i + 1 } }),
    ),
  );
  const ok = results.filter((r) => r.statusCode === 200);
  const conflicts = results.filter((r) => r.statusCode === 409);
  assert.equal(ok.length + conflicts.length, 20);
  for (const r of conflicts) {
    assert.equal(r.json().error.code, 'conflict');
    assert.equal(r.headers['retry-after'], '1');
  }
  assert.equal((await eventsOf(tenant, 'store.updated')).length, ok.length, 'one event per landed write');

  // A change that holds the store's row: every try collides, three in a row answer 409 and change nothing.
  const { token } = await issueAccessToken(t.ctx, {
    tenantId: tenant.restaurantId,
    connectionId: tenant.connectionId,
    scopes: ['store:write'],
  });
  const blocked = { ...tenant, token };
  const before = await storeRow(tenant);
  await t.database.db.transaction().execute(async (trx) => {
    await trx
      .selectFrom('stores')
      .select('tenant_id')
      .where('tenant_id', '=', tenant.restaurantId)
      .forUpdate()
      .execute();
    const res = await call(blocked, 'PATCH', '/store', { preorders: !before.preorders });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().error.code, 'conflict');
    assert.equal(res.headers['retry-after'], '1');
  });
  assert.equal((await storeRow(tenant)).preorders, before.preorders);
  const later = await call(blocked, 'PATCH', '/store', { preorders: !before.preorders });
  assert.equal(later.statusCode, 200);
});
