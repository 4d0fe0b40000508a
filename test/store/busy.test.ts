import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clearEndedBusyPeriods, leadMinutes } from '../../src/domain/store/store.service.ts';
import {
  bearer,
  buildTestApp,
  call as dashboardCall,
  developerSession,
  json,
  makeTenant,
  type Tenant,
  type TestApp,
} from '../harness.ts';

/*
 * Busy mode (decisions.md, Additions beyond the spec): `busy` {extra_minutes 5..120, until} or
 * null, set by PATCH /store and the dashboard, over at `until` and cleared by the worker with
 * store.updated. The test clock starts at 2026-11-02T10:00:00Z and every test puts it back.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const minute = 60 * 1000;
const hour = 60 * minute;

function call(tenant: Tenant, method: 'GET' | 'PATCH', body?: unknown) {
  return t.app.inject({
    method,
    url: '/v1/store',
    headers: {
      ...bearer(tenant.token),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** An instant `ms` from the test clock's now, as sent and shown (UTC, milliseconds). */
const inMs = (ms: number) => new Date(t.clock.now().getTime() + ms).toISOString();

interface UpdatedEvent {
  object: { busy: unknown };
  changed: string[];
  previous: Record<string, unknown>;
  actor: unknown;
}

/** The restaurant's store.updated events, oldest first, with who made each change. */
async function updatedEvents(tenant: Tenant): Promise<UpdatedEvent[]> {
  const rows = await t.database.db
    .selectFrom('events')
    .select(['data', 'actor'])
    .where('tenant_id', '=', tenant.restaurantId)
    .where('type', '=', 'store.updated')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...(row.data as Omit<UpdatedEvent, 'actor'>), actor: row.actor }));
}

async function busyRow(tenant: Tenant) {
  return t.database.db
    .selectFrom('stores')
    .select(['busy_extra_minutes', 'busy_until'])
    .where('tenant_id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
}

async function storeRow(tenant: Tenant) {
  return t.database.db
    .selectFrom('stores')
    .selectAll()
    .where('tenant_id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
}

/** Runs `work` with the clock moved `ms` ahead, then puts it back. */
async function later<T>(ms: number, work: () => Promise<T>): Promise<T> {
  t.clock.advance(ms);
  try {
    return await work();
  } finally {
    t.clock.advance(-ms);
  }
}

describe('PATCH /v1/store busy', () => {
  test('sets busy mode: the answer and GET /store show it; store.updated with changed and previous', async () => {
    const tenant = await makeTenant(t.ctx);
    const until = inMs(2 * hour);
    const res = await call(tenant, 'PATCH', { busy: { extra_minutes: 15, until } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().busy, { extra_minutes: 15, until });
    assert.deepEqual(
      res.json().lead_times,
      { pickup_minutes: 20, delivery_minutes: 45 },
      'the usual lead times stay as they are',
    );
    const shown = (await call(tenant, 'GET')).json();
    assert.deepEqual(shown, res.json());
    assert.deepEqual(Object.keys(shown).slice(13, 15), ['lead_times', 'busy'], 'busy right after lead_times');
    assert.deepEqual(await busyRow(tenant), { busy_extra_minutes: 15, busy_until: new Date(until) });

    const [set, ...more] = await updatedEvents(tenant);
    assert.equal(more.length, 0);
    assert.deepEqual(set?.changed, ['busy']);
    assert.deepEqual(set?.previous, { busy: null });
    assert.deepEqual(set?.object, res.json());

    // A new period replaces the one before (an offset is read as the instant it names: 3 hours ahead).
    const offsetUntil = new Date(Date.parse(until) + 2 * hour).toISOString().replace('Z', '+01:00');
    const replaced = await call(tenant, 'PATCH', {
      busy: { extra_minutes: 30, until: offsetUntil },
      preorders: true,
    });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.deepEqual(replaced.json().busy, { extra_minutes: 30, until: inMs(3 * hour) });
    const events = await updatedEvents(tenant);
    assert.equal(events.length, 2);
    assert.deepEqual(events[1]?.changed, ['preorders', 'busy']);
    assert.deepEqual(events[1]?.previous, { preorders: false, busy: { extra_minutes: 15, until } });

    const same = await call(tenant, 'PATCH', { busy: { extra_minutes: 30, until: inMs(3 * hour) } });
    assert.equal(same.statusCode, 200);
    assert.equal((await updatedEvents(tenant)).length, 2, 'nothing changed: no event');
  });

  test('extra_minutes 5 and 120 are accepted; 4, 121, a fraction or missing: 400 on busy.extra_minutes', async () => {
    const tenant = await makeTenant(t.ctx);
    const until = inMs(hour);
    const before = await storeRow(tenant);
    const cases: Array<[unknown, string]> = [
      [{ extra_minutes: 4, until }, 'busy.extra_minutes'],
      [{ extra_minutes: 121, until }, 'busy.extra_minutes'],
      [{ extra_minutes: 10.5, until }, 'busy.extra_minutes'],
      [{ extra_minutes: '10', until }, 'busy.extra_minutes'],
      [{ until }, 'busy.extra_minutes'],
      [{ extra_minutes: 10 }, 'busy.until'],
      [{ extra_minutes: 10, until, note: 'rush' }, 'busy.note'],
    ];
    for (const [busy, param] of cases) {
      const res = await call(tenant, 'PATCH', { busy });
      assert.equal(res.statusCode, 400, JSON.stringify(busy));
      assert.equal(res.json().error.code, 'invalid_request');
      assert.equal(res.json().error.param, param, JSON.stringify(busy));
    }
    assert.deepEqual(await storeRow(tenant), before, 'nothing changed');
    assert.deepEqual(await updatedEvents(tenant), []);
    for (const extra of [5, 120]) {
      const res = await call(tenant, 'PATCH', { busy: { extra_minutes: extra, until } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().busy.extra_minutes, extra);
    }
  });

  test('until in the past, now, over 24 hours ahead, without a zone or no instant: 400 on busy.until', async () => {
    const tenant = await makeTenant(t.ctx);
    const before = await storeRow(tenant);
    const cases = [
      inMs(-minute),
      inMs(0),
      inMs(24 * hour + 1000),
      inMs(48 * hour),
      inMs(hour).replace('Z', ''),
      '2026-11-02T12:00:00',
      'tonight',
    ];
    for (const until of cases) {
      const res = await call(tenant, 'PATCH', { busy: { extra_minutes: 10, until } });
      assert.equal(res.statusCode, 400, until);
      assert.equal(res.json().error.code, 'invalid_request');
      assert.equal(res.json().error.param, 'busy.until', until);
    }
    assert.deepEqual(await storeRow(tenant), before, 'nothing changed');
    assert.deepEqual(await updatedEvents(tenant), []);
    const edges = [inMs(1000), inMs(24 * hour)];
    for (const until of edges) {
      const res = await call(tenant, 'PATCH', { busy: { extra_minutes: 10, until } });
      assert.equal(res.statusCode, 200, `${until}: ${res.body}`);
      assert.equal(res.json().busy.until, until);
    }
  });

  test('a failed PATCH changes nothing, busy mode included', async () => {
    const tenant = await makeTenant(t.ctx, { plan: 'starter' });
    const before = await storeRow(tenant);
    // Refused by the busy rule: the other fields sent stay unchanged too.
    const late = await call(tenant, 'PATCH', {
      preorders: true,
      lead_times: { pickup_minutes: 5 },
      busy: { extra_minutes: 10, until: inMs(25 * hour) },
    });
    assert.equal(late.statusCode, 400);
    assert.equal(late.json().error.param, 'busy.until');
    // Refused after the busy rule passed (dine_in needs Pro): the busy period is not kept.
    const plan = await call(tenant, 'PATCH', {
      busy: { extra_minutes: 10, until: inMs(hour) },
      order_types: { dine_in: true },
    });
    assert.equal(plan.statusCode, 403);
    assert.equal(plan.json().error.code, 'plan_required');
    assert.deepEqual(await storeRow(tenant), before);
    assert.equal((await call(tenant, 'GET')).json().busy, null);
    assert.deepEqual(await updatedEvents(tenant), []);
  });

  test('null ends busy mode at once with store.updated; null while not busy changes nothing', async () => {
    const tenant = await makeTenant(t.ctx);
    const idle = await call(tenant, 'PATCH', { busy: null });
    assert.equal(idle.statusCode, 200, idle.body);
    assert.equal(idle.json().busy, null);
    assert.deepEqual(await updatedEvents(tenant), [], 'not busy before: no event');

    const until = inMs(2 * hour);
    await call(tenant, 'PATCH', { busy: { extra_minutes: 20, until } });
    const ended = await call(tenant, 'PATCH', { busy: null });
    assert.equal(ended.statusCode, 200, ended.body);
    assert.equal(ended.json().busy, null);
    assert.equal((await call(tenant, 'GET')).json().busy, null);
    assert.deepEqual(await busyRow(tenant), { busy_extra_minutes: null, busy_until: null });
    const events = await updatedEvents(tenant);
    assert.equal(events.length, 2);
    assert.deepEqual(events[1]?.changed, ['busy']);
    assert.deepEqual(events[1]?.previous, { busy: { extra_minutes: 20, until } });
    assert.equal(events[1]?.object.busy, null);
  });

  test('the dashboard’s settings PATCH sets and ends busy mode the same way', async () => {
    const tenant = await makeTenant(t.ctx);
    const cookie = await developerSession(t, tenant, 'dashboard');
    const url = `/dashboard/api/restaurants/${tenant.restaurantId}/store`;
    const until = inMs(90 * minute);
    const res = await dashboardCall(t.app, 'PATCH', url, cookie, { busy: { extra_minutes: 25, until } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(json(res).busy, { extra_minutes: 25, until });
    const bad = await dashboardCall(t.app, 'PATCH', url, cookie, { busy: { extra_minutes: 121, until } });
    assert.equal(bad.statusCode, 400);
    assert.equal(json(bad).error.param, 'busy.extra_minutes');
    const ended = await dashboardCall(t.app, 'PATCH', url, cookie, { busy: null });
    assert.equal(json(ended).busy, null);
    assert.deepEqual(
      (await updatedEvents(tenant)).map((event) => event.changed),
      [['busy'], ['busy']],
    );
  });
});

describe('busy mode ends by itself', () => {
  test('over at until (even before the worker); the job clears it once with store.updated, actor system', async () => {
    const tenant = await makeTenant(t.ctx);
    const until = inMs(30 * minute);
    await call(tenant, 'PATCH', { busy: { extra_minutes: 10, until } });
    // Busy longer: the job leaves it alone.
    const other = await makeTenant(t.ctx);
    const otherUntil = inMs(30 * minute + 1000);
    await call(other, 'PATCH', { busy: { extra_minutes: 10, until: otherUntil } });

    await later(30 * minute - 1, async () => {
      assert.deepEqual((await call(tenant, 'GET')).json().busy, { extra_minutes: 10, until });
      assert.equal(await clearEndedBusyPeriods(t.database.db, t.clock), 0, 'not over yet');
    });
    await later(30 * minute, async () => {
      assert.equal((await call(tenant, 'GET')).json().busy, null, 'over at until, before the job runs');
      assert.deepEqual(await busyRow(tenant), { busy_extra_minutes: 10, busy_until: new Date(until) });
      assert.equal(await clearEndedBusyPeriods(t.database.db, t.clock), 1);
      assert.deepEqual(await busyRow(tenant), { busy_extra_minutes: null, busy_until: null });
      assert.deepEqual(
        (await call(other, 'GET')).json().busy,
        { extra_minutes: 10, until: otherUntil },
        'a period still running is kept',
      );
      const [, ended, ...more] = await updatedEvents(tenant);
      assert.equal(more.length, 0);
      assert.deepEqual(ended?.changed, ['busy']);
      assert.deepEqual(ended?.previous, { busy: { extra_minutes: 10, until } });
      assert.equal(ended?.object.busy, null);
      assert.deepEqual(ended?.actor, { kind: 'system' });
      assert.equal(await clearEndedBusyPeriods(t.database.db, t.clock), 0, 'ended once');
      assert.equal((await updatedEvents(tenant)).length, 2);
      assert.equal((await updatedEvents(other)).length, 1, 'the running period recorded nothing');
    });
  });

  test('a new period sent after one ended, before the job: the end is reported first, then the new one', async () => {
    const tenant = await makeTenant(t.ctx);
    const until = inMs(20 * minute);
    await call(tenant, 'PATCH', { busy: { extra_minutes: 10, until } });
    await later(21 * minute, async () => {
      const next = inMs(hour);
      const res = await call(tenant, 'PATCH', { busy: { extra_minutes: 40, until: next } });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().busy, { extra_minutes: 40, until: next });
      const [, ended, started, ...more] = await updatedEvents(tenant);
      assert.equal(more.length, 0);
      assert.deepEqual(ended?.changed, ['busy']);
      assert.deepEqual(ended?.previous, { busy: { extra_minutes: 10, until } });
      assert.equal(ended?.object.busy, null);
      assert.deepEqual(ended?.actor, { kind: 'system' }, 'it ended by itself');
      assert.deepEqual(started?.changed, ['busy']);
      assert.deepEqual(started?.actor, { kind: 'connection', id: tenant.connectionId });
      assert.deepEqual(started?.previous, { busy: null });
      await clearEndedBusyPeriods(t.database.db, t.clock);
      assert.equal((await updatedEvents(tenant)).length, 3, 'the job finds nothing more to end');
    });
  });
});

test('the table keeps a busy period whole and within 5 to 120 minutes', async () => {
  const tenant = await makeTenant(t.ctx);
  const until = new Date(inMs(hour));
  for (const values of [
    { busy_extra_minutes: 10, busy_until: null },
    { busy_extra_minutes: null, busy_until: until },
    { busy_extra_minutes: 4, busy_until: until },
    { busy_extra_minutes: 121, busy_until: until },
  ]) {
    await assert.rejects(
      t.database.db.updateTable('stores').set(values).where('tenant_id', '=', tenant.restaurantId).execute(),
      /check constraint/,
      JSON.stringify(values),
    );
  }
  await t.database.db
    .updateTable('stores')
    .set({ busy_extra_minutes: 120, busy_until: until })
    .where('tenant_id', '=', tenant.restaurantId)
    .execute();
  assert.deepEqual(await busyRow(tenant), { busy_extra_minutes: 120, busy_until: until });
});

describe('leadMinutes', () => {
  test('the type’s lead time (dine-in none) plus the extra minutes while busy, not after', async () => {
    const tenant = await makeTenant(t.ctx);
    const idle = (
      await call(tenant, 'PATCH', { lead_times: { pickup_minutes: 10, delivery_minutes: 30 } })
    ).json();
    assert.deepEqual(
      [leadMinutes(idle, 'pickup'), leadMinutes(idle, 'delivery'), leadMinutes(idle, 'dine_in')],
      [10, 30, 0],
    );
    const until = inMs(30 * minute);
    const busy = (await call(tenant, 'PATCH', { busy: { extra_minutes: 15, until } })).json();
    assert.deepEqual(
      [leadMinutes(busy, 'pickup'), leadMinutes(busy, 'delivery'), leadMinutes(busy, 'dine_in')],
      [25, 45, 15],
    );
    const over = await later(30 * minute, async () => (await call(tenant, 'GET')).json());
    assert.deepEqual(
      [leadMinutes(over, 'pickup'), leadMinutes(over, 'delivery'), leadMinutes(over, 'dine_in')],
      [10, 30, 0],
    );
  });
});
