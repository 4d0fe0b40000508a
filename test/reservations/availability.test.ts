import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { availability } from '../../src/domain/reservations/availability.ts';
import { updateTable } from '../../src/domain/store/tables.service.ts';
import { buildTestApp, type TestApp, tokenFor } from '../harness.ts';
import { assertError, ok, request } from '../menu/menu-helpers.ts';
import { addTable, bookingTenant, setClock, specialDay } from './reservation-helpers.ts';

/*
 * GET /reservations/availability: times from each opening every slot interval up to the last
 * seating, in the restaurant's zone across DST changes (Europe/Berlin: 2026-03-29 02:00 → 03:00,
 * 2026-10-25 03:00 → 02:00) and overnight ranges; available = not past and a table free.
 */

const times = (body: { slots: { starts_at: string }[] }) => body.slots.map((s) => s.starts_at);
const free = (body: { slots: { starts_at: string; available: boolean }[] }) =>
  body.slots.filter((s) => s.available).map((s) => s.starts_at);

describe('reservation availability', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t?.close());

  it('offers every 15 minutes from opening to closing − 90 minutes, with the default duration', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    await addTable(tenant, { seats: 4 });
    const body = await ok(t, tenant.token, 'GET', '/reservations/availability?date=2026-11-03&party_size=2');
    assert.equal(body.object, 'availability');
    assert.equal(body.date, '2026-11-03');
    assert.equal(body.party_size, 2);
    assert.equal(body.duration_minutes, 90);
    assert.equal(body.timezone, 'Europe/Berlin');
    // 12:00–22:00 CET = 11:00–21:00Z; last seating 20:30 local = 19:30Z.
    assert.equal(body.slots.length, 35);
    assert.equal(body.slots[0].starts_at, '2026-11-03T11:00:00.000Z');
    assert.equal(body.slots.at(-1).starts_at, '2026-11-03T19:30:00.000Z');
    assert.ok(body.slots.every((s: { available: boolean }) => s.available));
    const bigger = await ok(
      t,
      tenant.token,
      'GET',
      '/reservations/availability?date=2026-11-03&party_size=5',
    );
    assert.equal(bigger.duration_minutes, 150);
    // No table seats five.
    assert.deepEqual(free(bigger), []);
  });

  it('past times are not available; today still lists them', async () => {
    setClock(t, '2026-11-03T14:05:00Z');
    const tenant = await bookingTenant(t);
    await addTable(tenant);
    const body = await ok(t, tenant.token, 'GET', '/reservations/availability?date=2026-11-03&party_size=2');
    assert.equal(body.slots.length, 35);
    assert.equal(free(body)[0], '2026-11-03T14:15:00.000Z');
    const yesterday = await ok(
      t,
      tenant.token,
      'GET',
      '/reservations/availability?date=2026-11-02&party_size=2',
    );
    assert.equal(yesterday.slots.length, 35);
    assert.deepEqual(free(yesterday), []);
  });

  it('refuses dates before yesterday or over a year ahead, and bad party sizes', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    const get = (query: string) => request(t, tenant.token, 'GET', `/reservations/availability?${query}`);
    assertError(await get('date=2026-10-31&party_size=2'), 400, 'invalid_request', 'date');
    assertError(await get('date=2027-11-03&party_size=2'), 400, 'invalid_request', 'date');
    await ok(t, tenant.token, 'GET', '/reservations/availability?date=2026-11-01&party_size=2');
    await ok(t, tenant.token, 'GET', '/reservations/availability?date=2027-11-02&party_size=2');
    assertError(await get('date=2026-02-30&party_size=2'), 400, 'invalid_request', 'date');
    assertError(await get('party_size=2'), 400, 'invalid_request', 'date');
    assertError(await get('date=2026-11-03&party_size=0'), 400, 'invalid_request', 'party_size');
    assertError(await get('date=2026-11-03&party_size=201'), 400, 'invalid_request', 'party_size');
    assertError(await get('date=2026-11-03'), 400, 'invalid_request', 'party_size');
  });

  it('needs reservations:read and the pro plan or above', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const starter = await bookingTenant(t, { plan: 'starter' });
    assertError(
      await request(t, starter.token, 'GET', '/reservations/availability?date=2026-11-03&party_size=2'),
      403,
      'plan_required',
    );
    const premium = await bookingTenant(t, { plan: 'premium' });
    await ok(t, premium.token, 'GET', '/reservations/availability?date=2026-11-03&party_size=2');
    const storeOnly = await tokenFor(t.ctx, premium, ['store:read']);
    assertError(
      await request(t, storeOnly, 'GET', '/reservations/availability?date=2026-11-03&party_size=2'),
      403,
      'insufficient_scope',
    );
  });

  it('special days: closed has none, own hours have times; always open has none but special hours', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    await addTable(tenant);
    await specialDay(tenant, '2026-11-04', 'closed');
    await specialDay(tenant, '2026-11-05', [{ open: '18:00', close: '21:00' }]);
    const closed = await ok(
      t,
      tenant.token,
      'GET',
      '/reservations/availability?date=2026-11-04&party_size=2',
    );
    assert.deepEqual(closed.slots, []);
    const own = await ok(t, tenant.token, 'GET', '/reservations/availability?date=2026-11-05&party_size=2');
    // 18:00–21:00 CET: 17:00Z up to 19:30 local = 18:30Z.
    assert.equal(own.slots.length, 7);
    assert.equal(own.slots[0].starts_at, '2026-11-05T17:00:00.000Z');
    assert.equal(own.slots.at(-1).starts_at, '2026-11-05T18:30:00.000Z');

    const always = await bookingTenant(t, { alwaysOpen: true });
    await addTable(always);
    const none = await ok(t, always.token, 'GET', '/reservations/availability?date=2026-11-03&party_size=2');
    assert.deepEqual(none.slots, []);
    await specialDay(always, '2026-11-05', [{ open: '18:00', close: '20:00' }]);
    const special = await ok(
      t,
      always.token,
      'GET',
      '/reservations/availability?date=2026-11-05&party_size=2',
    );
    assert.deepEqual(times(special), [
      '2026-11-05T17:00:00.000Z',
      '2026-11-05T17:15:00.000Z',
      '2026-11-05T17:30:00.000Z',
    ]);
  });

  it('an overnight range belongs to the day it starts on', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    // Friday (weekday 4) 22:00 – 03:00.
    const tenant = await bookingTenant(t, { hours: [{ weekday: 4, open: '22:00', close: '03:00' }] });
    await addTable(tenant);
    const friday = await ok(
      t,
      tenant.token,
      'GET',
      '/reservations/availability?date=2026-11-06&party_size=2',
    );
    // 22:00 CET = 21:00Z … 03:00 − 90 min = 01:30 local = 00:30Z Saturday.
    assert.equal(friday.slots[0].starts_at, '2026-11-06T21:00:00.000Z');
    assert.equal(friday.slots.at(-1).starts_at, '2026-11-07T00:30:00.000Z');
    assert.equal(friday.slots.length, 15);
    const saturday = await ok(
      t,
      tenant.token,
      'GET',
      '/reservations/availability?date=2026-11-07&party_size=2',
    );
    assert.deepEqual(saturday.slots, []);
  });

  it('spring forward (2026-03-29): no time in the gap, real 15-minute steps', async () => {
    setClock(t, '2026-03-20T10:00:00Z');
    // Sunday (weekday 6) 01:00–05:00; Saturday 22:00–04:00 runs over the change.
    const tenant = await bookingTenant(t, {
      hours: [
        { weekday: 6, open: '01:00', close: '05:00' },
        { weekday: 5, open: '22:00', close: '04:00' },
      ],
    });
    await addTable(tenant);
    const sunday = await ok(
      t,
      tenant.token,
      'GET',
      '/reservations/availability?date=2026-03-29&party_size=2',
    );
    // 01:00 CET = 00:00Z; 05:00 CEST = 03:00Z; last seating 01:30Z (03:30 CEST).
    assert.deepEqual(times(sunday), [
      '2026-03-29T00:00:00.000Z', // 01:00 CET
      '2026-03-29T00:15:00.000Z',
      '2026-03-29T00:30:00.000Z',
      '2026-03-29T00:45:00.000Z', // 01:45 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST: 02:00–02:59 do not exist
      '2026-03-29T01:15:00.000Z',
      '2026-03-29T01:30:00.000Z', // 03:30 CEST
    ]);
    const saturday = await ok(
      t,
      tenant.token,
      'GET',
      '/reservations/availability?date=2026-03-28&party_size=2',
    );
    // 22:00 CET = 21:00Z … 04:00 CEST = 02:00Z, last seating 00:30Z.
    assert.equal(saturday.slots[0].starts_at, '2026-03-28T21:00:00.000Z');
    assert.equal(saturday.slots.at(-1).starts_at, '2026-03-29T00:30:00.000Z');
    assert.equal(saturday.slots.length, 15);
  });

  it('an opening at 02:30 on the spring-forward day starts at 03:00', async () => {
    setClock(t, '2026-03-20T10:00:00Z');
    const tenant = await bookingTenant(t, { hours: [{ weekday: 6, open: '02:30', close: '06:00' }] });
    await addTable(tenant);
    const body = await ok(t, tenant.token, 'GET', '/reservations/availability?date=2026-03-29&party_size=2');
    // 03:00 CEST = 01:00Z … 06:00 CEST − 90 = 04:30 CEST = 02:30Z.
    assert.equal(body.slots[0].starts_at, '2026-03-29T01:00:00.000Z');
    assert.equal(body.slots.at(-1).starts_at, '2026-03-29T02:30:00.000Z');
    assert.equal(body.slots.length, 7);
  });

  it('fall back (2026-10-25): 02:30 is offered twice, as two instants', async () => {
    setClock(t, '2026-10-20T10:00:00Z');
    const tenant = await bookingTenant(t, { hours: [{ weekday: 6, open: '01:00', close: '05:00' }] });
    await addTable(tenant);
    const body = await ok(t, tenant.token, 'GET', '/reservations/availability?date=2026-10-25&party_size=2');
    // 01:00 CEST = 23:00Z (Saturday) … 05:00 CET = 04:00Z, last seating 02:30Z: five real hours.
    const slots = times(body);
    assert.equal(slots.length, 15);
    assert.equal(slots[0], '2026-10-24T23:00:00.000Z');
    assert.equal(slots.at(-1), '2026-10-25T02:30:00.000Z');
    // 02:30 CEST and 02:30 CET.
    assert.ok(slots.includes('2026-10-25T00:30:00.000Z'));
    assert.ok(slots.includes('2026-10-25T01:30:00.000Z'));
    // An opening at 02:30 that night means its first occurrence (CEST).
    const twice = await bookingTenant(t, { hours: [{ weekday: 6, open: '02:30', close: '06:00' }] });
    await addTable(twice);
    const first = await ok(t, twice.token, 'GET', '/reservations/availability?date=2026-10-25&party_size=2');
    assert.equal(first.slots[0].starts_at, '2026-10-25T00:30:00.000Z');
  });

  it('a booked table is unavailable for the overlap; min_party and default seats count', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    const table = await addTable(tenant, { seats: null });
    await ok(t, tenant.token, 'POST', '/reservations', {
      starts_at: '2026-11-03T17:00:00Z',
      party_size: 2,
      guest_name: 'Ada',
    });
    const body = await ok(t, tenant.token, 'GET', '/reservations/availability?date=2026-11-03&party_size=2');
    const taken = body.slots
      .filter((s: { available: boolean }) => !s.available)
      .map((s: { starts_at: string }) => s.starts_at);
    // Held 17:00–18:30Z: a 90-minute stay from 15:45Z on overlaps.
    assert.equal(taken[0], '2026-11-03T15:45:00.000Z');
    assert.equal(taken.at(-1), '2026-11-03T18:15:00.000Z');
    assert.equal(taken.length, 11);
    // The default table size (4) seats four, not five; min_party keeps small parties off.
    assert.equal(
      free(await ok(t, tenant.token, 'GET', '/reservations/availability?date=2026-11-04&party_size=4'))
        .length,
      35,
    );
    await updateTable(tenant.ctx, table, { min_party: 3 });
    assert.deepEqual(
      free(await ok(t, tenant.token, 'GET', '/reservations/availability?date=2026-11-04&party_size=2')),
      [],
    );
  });

  it('guests see only online tables, after the lead time and within the horizon', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    const offline = await addTable(tenant, { bookable_online: false });
    const guestView = (date: string) => availability(tenant.ctx, { date, party_size: 2, guest: true });
    assert.deepEqual(
      (await guestView('2026-11-03')).slots.filter((s) => s.available),
      [],
    );
    await updateTable(tenant.ctx, offline, { bookable_online: true });
    // Today: lead time 120 minutes from 10:00Z → 12:00Z.
    const today = await guestView('2026-11-02');
    assert.equal(today.slots.find((s) => s.available)?.starts_at.toISOString(), '2026-11-02T12:00:00.000Z');
    // Horizon 60 days: up to 2027-01-01, local.
    assert.equal(
      (await guestView('2027-01-01')).slots.some((s) => s.available),
      true,
    );
    assert.equal(
      (await guestView('2027-01-02')).slots.some((s) => s.available),
      false,
    );
  });
});
