import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  buildTestApp,
  call,
  developerSession,
  json,
  newAccount,
  signInTo,
  type TestApp,
} from '../harness.ts';
import { assertError, ok } from '../menu/menu-helpers.ts';
import { addTable, type BookingTenant, bookingTenant, setClock } from './reservation-helpers.ts';

/*
 * The dashboard's reservation settings: defaults for every restaurant, changes checked (400 with
 * param), owners only; and what they change in availability.
 */

describe('reservation settings (dashboard)', () => {
  let t: TestApp;
  let tenant: BookingTenant;
  let cookie: string;
  let url: string;
  before(async () => {
    t = await buildTestApp();
    setClock(t, '2026-11-02T10:00:00Z');
    tenant = await bookingTenant(t);
    cookie = await developerSession(t, tenant, 'dashboard');
    url = `/dashboard/api/restaurants/${tenant.restaurantId}/reservation-settings`;
  });
  after(() => t?.close());

  it('every restaurant starts with the defaults', async () => {
    const res = await call(t.app, 'GET', url, cookie);
    assert.equal(res.statusCode, 200, res.body);
    const { updated_at, ...settings } = json(res);
    assert.ok(updated_at);
    assert.deepEqual(settings, {
      object: 'reservation_settings',
      slot_minutes: 15,
      durations: [
        { max_party: 2, minutes: 90 },
        { max_party: 4, minutes: 120 },
        { max_party: null, minutes: 150 },
      ],
      last_seating_minutes: 90,
      guest_horizon_days: 60,
      guest_lead_minutes: 120,
      combinations: [],
    });
  });

  it('changes what is sent; availability follows', async () => {
    const a = await addTable(tenant, { seats: 4 });
    const b = await addTable(tenant, { seats: 4 });
    const res = await call(t.app, 'PATCH', url, cookie, {
      slot_minutes: 30,
      durations: [
        { max_party: 6, minutes: 100 },
        { max_party: null, minutes: 200 },
      ],
      last_seating_minutes: 120,
      combinations: [[a, b]],
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = json(res);
    assert.equal(body.slot_minutes, 30);
    assert.equal(body.guest_lead_minutes, 120);
    assert.deepEqual(body.combinations, [[a, b]]);
    const day = await ok(t, tenant.token, 'GET', '/reservations/availability?date=2026-11-03&party_size=8');
    assert.equal(day.duration_minutes, 200);
    // 12:00–22:00 CET every 30 minutes up to 20:00 local (19:00Z): 17 times; the combination seats 8.
    assert.equal(day.slots.length, 17);
    assert.equal(day.slots.at(-1).starts_at, '2026-11-03T19:00:00.000Z');
    assert.ok(day.slots.every((s: { available: boolean }) => s.available));
    // Replacing the combinations with none: no table seats eight.
    assert.equal((await call(t.app, 'PATCH', url, cookie, { combinations: [] })).statusCode, 200);
    const none = await ok(t, tenant.token, 'GET', '/reservations/availability?date=2026-11-03&party_size=8');
    assert.ok(none.slots.every((s: { available: boolean }) => !s.available));
  });

  it('refuses bad settings with 400 and param, changing nothing', async () => {
    const before = json(await call(t.app, 'GET', url, cookie));
    const table = await addTable(tenant);
    const cases: [Record<string, unknown>, string | undefined][] = [
      [{ slot_minutes: 4 }, 'slot_minutes'],
      [{ slot_minutes: 121 }, 'slot_minutes'],
      [{ last_seating_minutes: -1 }, 'last_seating_minutes'],
      [{ guest_horizon_days: 0 }, 'guest_horizon_days'],
      [{ guest_lead_minutes: 10081 }, 'guest_lead_minutes'],
      [{ durations: [] }, 'durations'],
      [{ durations: [{ max_party: 2, minutes: 90 }] }, 'durations[0].max_party'],
      [
        {
          durations: [
            { max_party: 4, minutes: 90 },
            { max_party: 2, minutes: 90 },
            { max_party: null, minutes: 90 },
          ],
        },
        'durations[1].max_party',
      ],
      [
        {
          durations: [
            { max_party: null, minutes: 90 },
            { max_party: null, minutes: 90 },
          ],
        },
        'durations[0].max_party',
      ],
      [{ durations: [{ max_party: null, minutes: 10 }] }, 'durations[0].minutes'],
      [{ combinations: [[table]] }, 'combinations[0]'],
      [{ combinations: [[table, table]] }, 'combinations[0]'],
      [{ combinations: [[table, crypto.randomUUID()]] }, 'combinations[0]'],
      [{ unknown: 1 }, 'unknown'],
    ];
    for (const [body, param] of cases) {
      const res = await call(t.app, 'PATCH', url, cookie, { slot_minutes: 20, ...body });
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
      assert.equal(json(res).error.param, param, res.body);
    }
    assert.deepEqual(json(await call(t.app, 'GET', url, cookie)), before);
  });

  it('owners only: staff and strangers get 404', async () => {
    const staff = await newAccount(t, false);
    await t.database.db
      .insertInto('restaurant_members')
      .values({
        tenant_id: tenant.restaurantId,
        account_id: staff.id,
        role: 'staff',
        created_at: t.clock.now(),
      })
      .execute();
    const theirs = await signInTo(t.app, 'dashboard', staff.email);
    assert.equal((await call(t.app, 'GET', url, theirs)).statusCode, 404);
    assert.equal((await call(t.app, 'PATCH', url, theirs, { slot_minutes: 30 })).statusCode, 404);
    const other = await bookingTenant(t);
    const otherUrl = `/dashboard/api/restaurants/${other.restaurantId}/reservation-settings`;
    assertError(
      await call(t.app, 'GET', otherUrl, await signInTo(t.app, 'dashboard', staff.email)),
      404,
      'not_found',
    );
  });
});
