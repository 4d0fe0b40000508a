import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { availability } from '../../src/domain/reservations/availability.ts';
import { updateReservationSettings } from '../../src/domain/reservations/reservation-settings.service.ts';
import { createArea, updateArea } from '../../src/domain/store/areas.service.ts';
import { putStoreHours, updateStore } from '../../src/domain/store/store.service.ts';
import { deleteTable, updateTable } from '../../src/domain/store/tables.service.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { addTable, type BookingTenant, bookingTenant, setClock, specialDay } from './reservation-helpers.ts';

/*
 * A process keeps what it computed for a restaurant's date while the restaurant's floor version
 * stands still (migration 0025). Each case reads the availability first, so that it is kept, then
 * changes one thing it is computed from, in the way the service changes it: the next read must
 * show the change. A source the version did not count would fail its case here.
 */

const date = '2026-11-03';
const free = (body: { slots: { starts_at: string; available: boolean }[] }) =>
  body.slots.filter((s) => s.available).map((s) => s.starts_at);

describe('availability kept per process', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t?.close());

  const read = (tenant: BookingTenant, party = 2) =>
    ok(t, tenant.token, 'GET', `/reservations/availability?date=${date}&party_size=${party}`);

  /** A restaurant open 12:00–22:00 with one table of 4, its availability read (and kept). */
  async function keptTenant(): Promise<{ tenant: BookingTenant; table: string; before: string[] }> {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    const table = await addTable(tenant, { seats: 4 });
    const body = await read(tenant);
    assert.equal(free(body).length, 35);
    assert.deepEqual(free(await read(tenant)), free(body), 'a second read answers the same');
    return { tenant, table, before: free(body) };
  }

  it('a new reservation, then its cancellation', async () => {
    const { tenant } = await keptTenant();
    const reservation = await ok(t, tenant.token, 'POST', '/reservations', {
      starts_at: '2026-11-03T12:00:00.000Z',
      party_size: 2,
      guest_name: 'Ada',
    });
    const taken = free(await read(tenant));
    assert.ok(!taken.includes('2026-11-03T12:00:00.000Z'));
    assert.ok(taken.length < 35);
    await ok(t, tenant.token, 'PATCH', `/reservations/${reservation.id}`, { status: 'cancelled' });
    assert.equal(free(await read(tenant)).length, 35);
  });

  it('a table added, changed and deleted', async () => {
    const { tenant, table } = await keptTenant();
    assert.deepEqual(free(await read(tenant, 6)), []);
    const big = await addTable(tenant, { seats: 6 });
    assert.equal(free(await read(tenant, 6)).length, 35);
    await updateTable(tenant.ctx, big, { seats: 2 });
    assert.deepEqual(free(await read(tenant, 6)), []);
    await deleteTable(tenant.ctx, table);
    assert.deepEqual(free(await read(tenant, 4)), []);
  });

  it('an area no longer bookable online, for guests', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    const area = await createArea(tenant.ctx, { name: 'Terrace' });
    await addTable(tenant, { seats: 4 });
    await updateTable(tenant.ctx, (await addTable(tenant, { seats: 4 })) as string, { area_id: area.id });
    const guest = () => availability(tenant.ctx, { date, party_size: 2, guest: true });
    const countFree = async () => (await guest()).slots.filter((s) => s.available).length;
    const before = await countFree();
    assert.ok(before > 0);
    await ok(t, tenant.token, 'POST', '/reservations', {
      starts_at: '2026-11-03T12:00:00.000Z',
      party_size: 2,
      guest_name: 'Ada',
    });
    assert.equal(await countFree(), before, 'the terrace still seats a second party');
    await updateArea(tenant.ctx, area.id, { bookable_online: false });
    // 90 minutes from 12:00Z: the times from 11:00Z to 13:15Z have no table online any more.
    assert.equal(await countFree(), before - 10, 'nothing free online around 12:00 without the terrace');
  });

  it('the reservation settings and the combinations', async () => {
    const { tenant, table } = await keptTenant();
    await updateReservationSettings(tenant.ctx, { slot_minutes: 30 });
    assert.equal(free(await read(tenant)).length, 18);
    const second = await addTable(tenant, { seats: 4 });
    assert.deepEqual(free(await read(tenant, 8)), []);
    await updateReservationSettings(tenant.ctx, { combinations: [[table, second]] });
    assert.equal(free(await read(tenant, 8)).length, 18);
  });

  it('a special day, the weekly hours and the default table size', async () => {
    const { tenant } = await keptTenant();
    await specialDay(tenant, date, [{ open: '18:00', close: '22:00' }]);
    assert.equal(free(await read(tenant)).length, 11);
    await specialDay(tenant, date, 'closed');
    assert.deepEqual((await read(tenant)).slots, []);

    const other = await keptTenant();
    await putStoreHours(other.tenant.ctx, {
      opening_hours: [0, 1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, open: '17:00', close: '22:00' })),
    });
    assert.equal(free(await read(other.tenant)).length, 15);
    await addTable(other.tenant);
    assert.deepEqual(free(await read(other.tenant, 8)), []);
    await updateStore(other.tenant.ctx, { default_table_seats: 8 });
    assert.equal(free(await read(other.tenant, 8)).length, 15);
  });

  it('the restaurant’s time zone (an operator’s change, no trigger on restaurants since 0031)', async () => {
    const { tenant, before } = await keptTenant();
    const zone = await t.database.db
      .selectFrom('restaurants')
      .select('timezone')
      .where('id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();
    const later = zone.timezone === 'America/New_York' ? 'Europe/Berlin' : 'America/New_York';
    await t.database.db
      .updateTable('restaurants')
      .set({ timezone: later })
      .where('id', '=', tenant.restaurantId)
      .execute();
    const after = free(await read(tenant));
    assert.notDeepEqual(after, before, 'the slots move with the zone');
    assert.equal(after.length, 35);
  });
});
