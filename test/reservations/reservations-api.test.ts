import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updateReservationSettings } from '../../src/domain/reservations/reservation-settings.service.ts';
import { deleteReservation } from '../../src/domain/reservations/reservations.service.ts';
import { bearer, buildTestApp, json, makeTenant, type TestApp, tokenFor } from '../harness.ts';
import { assertError, ok, request } from '../menu/menu-helpers.ts';
import { addTable, type BookingTenant, bookingTenant, setClock } from './reservation-helpers.ts';

/*
 * POST/GET/PATCH /reservations: every field and limit of the spec's table, the time and tables
 * checked (409 slot_unavailable), the transitions, the events, the list's filters and orders.
 */

const at = '2026-11-03T17:00:00Z';
const booking = (fields: Record<string, unknown> = {}) => ({
  starts_at: at,
  party_size: 2,
  guest_name: 'Ada Lovelace',
  ...fields,
});

describe('reservations API', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t?.close());

  async function events(tenant: BookingTenant) {
    const rows = await t.database.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('tenant_id', '=', tenant.restaurantId)
      .where('type', 'like', 'reservation.%')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ type: row.type, ...row.data }) as Record<string, ReturnType<typeof json>>);
  }

  async function countRows(tenant: BookingTenant) {
    const rows = await t.database.db
      .selectFrom('reservations')
      .select('id')
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    return rows.length;
  }

  it('creates a confirmed reservation, without tables when none are asked for; phone and e-mail never returned', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    await addTable(tenant, { seats: 2 });
    await addTable(tenant, { seats: 6 });
    const created = await ok(
      t,
      tenant.token,
      'POST',
      '/reservations',
      booking({
        guest_phone: '+49 30 1234',
        guest_email: 'ada@example.test',
        note: 'Window',
        notify_guest: false,
      }),
    );
    assert.equal(created.object, 'reservation');
    assert.equal(created.status, 'confirmed');
    assert.equal(created.source, 'api');
    assert.equal(created.starts_at, '2026-11-03T17:00:00.000Z');
    assert.equal(created.duration_minutes, 90);
    // Spec: `table_ids` default none; the reservation's are "empty if none yet".
    assert.deepEqual(created.table_ids, []);
    assert.equal(created.note, 'Window');
    assert.equal(created.deleted_at, null);
    assert.match(created.code, /^[ACDEFGHJKMNPQRTUVWXY34679]{6}$/);
    assert.ok(!('guest_phone' in created) && !('guest_email' in created) && !('guest_locale' in created));
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/reservations/${created.id}`), created);
    const [event] = await events(tenant);
    assert.equal(event?.type, 'reservation.created');
    assert.deepEqual(event?.object, created);

    const pending = await ok(
      t,
      tenant.token,
      'POST',
      '/reservations',
      booking({ status: 'pending', duration_minutes: 15, party_size: 5 }),
    );
    assert.equal(pending.status, 'pending');
    assert.equal(pending.duration_minutes, 15);
  });

  it('refuses bad fields with 400 and their param, changing nothing', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    await addTable(tenant);
    const cases: [Record<string, unknown>, string][] = [
      [booking({ guest_phone: '12 34-5' }), 'guest_phone'],
      [booking({ guest_phone: '1'.repeat(41) }), 'guest_phone'],
      [booking({ notify_guest: true }), 'notify_guest'],
      [booking({ guest_name: 'x'.repeat(121) }), 'guest_name'],
      [booking({ guest_name: '   ' }), 'guest_name'],
      [booking({ guest_email: 'not-an-address' }), 'guest_email'],
      [booking({ guest_email: `${'a'.repeat(190)}@example.test` }), 'guest_email'],
      [booking({ guest_locale: 'nl' }), 'guest_locale'],
      [booking({ note: 'n'.repeat(501) }), 'note'],
      [booking({ duration_minutes: 14 }), 'duration_minutes'],
      [booking({ duration_minutes: 601 }), 'duration_minutes'],
      [booking({ party_size: 0 }), 'party_size'],
      [booking({ party_size: 201 }), 'party_size'],
      [booking({ status: 'seated' }), 'status'],
      [booking({ starts_at: '2026-11-03T17:00:00' }), 'starts_at'],
      [booking({ table_ids: Array.from({ length: 11 }, () => crypto.randomUUID()) }), 'table_ids'],
      [booking({ source: 'guest' }), 'source'],
    ];
    for (const [body, param] of cases)
      assertError(
        await request(t, tenant.token, 'POST', '/reservations', body),
        400,
        'invalid_request',
        param,
      );
    const { guest_name: _name, ...nameless } = booking();
    assertError(
      await request(t, tenant.token, 'POST', '/reservations', nameless),
      400,
      'invalid_request',
      'guest_name',
    );
    assert.equal(await countRows(tenant), 0);
    // A note of 500 emoji and a name of 120 characters are within the limits.
    await ok(
      t,
      tenant.token,
      'POST',
      '/reservations',
      booking({ note: '🍕'.repeat(500), guest_name: 'x'.repeat(120), guest_phone: '123456' }),
    );
  });

  it('409 slot_unavailable: a time not offered, a past time, no free table, tables that do not fit', async () => {
    setClock(t, '2026-11-02T11:20:00Z');
    const tenant = await bookingTenant(t);
    const two = await addTable(tenant, { seats: 2 });
    const three = await addTable(tenant, { seats: 3 });
    const slot = (body: Record<string, unknown>, param: string) =>
      request(t, tenant.token, 'POST', '/reservations', body).then((res) =>
        assertError(res, 409, 'slot_unavailable', param),
      );
    await slot(booking({ starts_at: '2026-11-03T17:05:00Z' }), 'starts_at');
    await slot(booking({ starts_at: '2026-11-03T20:00:00Z' }), 'starts_at'); // after the last seating
    await slot(booking({ starts_at: '2026-11-02T11:00:00Z' }), 'starts_at'); // past: 12:00 local today, now 12:20
    await slot(booking({ party_size: 6 }), 'starts_at'); // no table seats six
    await slot(booking({ table_ids: [crypto.randomUUID()] }), 'table_ids');
    await slot(booking({ party_size: 4, table_ids: [two] }), 'table_ids');
    assertError(
      await request(t, tenant.token, 'POST', '/reservations', booking({ table_ids: [two, two] })),
      400,
      'invalid_request',
      'table_ids',
    );
    // Two tables together seat five.
    const together = await ok(
      t,
      tenant.token,
      'POST',
      '/reservations',
      booking({ party_size: 5, table_ids: [two, three] }),
    );
    assert.deepEqual(together.table_ids, [two, three]);
    await slot(booking({ starts_at: '2026-11-03T18:15:00Z' }), 'starts_at'); // both held until 18:30Z
    assert.equal(await countRows(tenant), 1);
    // Another restaurant's table is no table here.
    const other = await bookingTenant(t);
    const foreign = await addTable(other);
    await slot(booking({ starts_at: '2026-11-04T17:00:00Z', table_ids: [foreign] }), 'table_ids');
  });

  it('an allowed combination seats a party no single table fits, and holds its tables without naming them', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    const a = await addTable(tenant, { seats: 4 });
    const b = await addTable(tenant, { seats: 4 });
    const c = await addTable(tenant, { seats: 2 });
    assertError(
      await request(t, tenant.token, 'POST', '/reservations', booking({ party_size: 7 })),
      409,
      'slot_unavailable',
      'starts_at',
    );
    await updateReservationSettings(tenant.ctx, {
      combinations: [
        [a, b, c],
        [a, b],
      ],
    });
    const big = await ok(t, tenant.token, 'POST', '/reservations', booking({ party_size: 7 }));
    assert.deepEqual(big.table_ids, []);
    // The seven take a and b (the smallest combination), so two more fit only at c, then nobody.
    const next = await ok(t, tenant.token, 'POST', '/reservations', booking({ party_size: 2 }));
    assert.deepEqual(next.table_ids, []);
    assertError(
      await request(t, tenant.token, 'POST', '/reservations', booking({ party_size: 2 })),
      409,
      'slot_unavailable',
      'starts_at',
    );
    assertError(
      await request(t, tenant.token, 'POST', '/reservations', booking({ party_size: 2, table_ids: [a] })),
      409,
      'slot_unavailable',
      'table_ids',
    );
  });

  it('bookings without tables still take room: two tables, three bookings at once, the third is 409', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    await addTable(tenant, { seats: 4 });
    await addTable(tenant, { seats: 4 });
    const free = async (party = 2) =>
      (
        await ok(t, tenant.token, 'GET', `/reservations/availability?date=2026-11-03&party_size=${party}`)
      ).slots
        .filter((s: { available: boolean }) => s.available)
        .map((s: { starts_at: string }) => s.starts_at);
    assert.ok((await free()).includes('2026-11-03T17:00:00.000Z'));
    for (const name of ['Ada', 'Grace']) {
      const made = await ok(t, tenant.token, 'POST', '/reservations', booking({ guest_name: name }));
      assert.deepEqual(made.table_ids, []);
    }
    assertError(
      await request(t, tenant.token, 'POST', '/reservations', booking({ guest_name: 'Alan' })),
      409,
      'slot_unavailable',
      'starts_at',
    );
    // Held 17:00–18:30Z: an overlapping time is full too, the end of the stay free again; the
    // availability says the same.
    assertError(
      await request(t, tenant.token, 'POST', '/reservations', booking({ starts_at: '2026-11-03T18:15:00Z' })),
      409,
      'slot_unavailable',
      'starts_at',
    );
    const open = await free();
    assert.ok(!open.includes('2026-11-03T17:00:00.000Z') && !open.includes('2026-11-03T15:45:00.000Z'));
    assert.ok(open.includes('2026-11-03T15:30:00.000Z') && open.includes('2026-11-03T18:30:00.000Z'));
    // A table named at the time is taken as well (no room would be left for one of the two).
    const [table] = (await ok(t, tenant.token, 'GET', '/tables')).data.map((x: { id: string }) => x.id);
    assertError(
      await request(t, tenant.token, 'POST', '/reservations', booking({ table_ids: [table] })),
      409,
      'slot_unavailable',
      'table_ids',
    );
    await ok(t, tenant.token, 'POST', '/reservations', booking({ starts_at: '2026-11-03T18:30:00Z' }));
    assert.equal(await countRows(tenant), 3);
    // A cancelled booking frees its room.
    const [ada] = (
      await ok(t, tenant.token, 'GET', '/reservations?status=confirmed&starts_until=2026-11-03T18:00:00Z')
    ).data;
    await ok(t, tenant.token, 'PATCH', `/reservations/${ada.id}`, { status: 'cancelled' });
    assert.deepEqual(
      (await ok(t, tenant.token, 'POST', '/reservations', booking({ guest_name: 'Alan' }))).table_ids,
      [],
    );
  });

  it('named tables may take the room Servery counted for a booking without tables when it fits elsewhere', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    const small = await addTable(tenant, { seats: 2 });
    const big = await addTable(tenant, { seats: 4 });
    // Two guests without tables count at the small table (the smallest that fits) …
    const ada = await ok(t, tenant.token, 'POST', '/reservations', booking());
    // … and move to the big one in the count when another booking names the small one.
    const grace = await ok(
      t,
      tenant.token,
      'POST',
      '/reservations',
      booking({ guest_name: 'Grace', table_ids: [small] }),
    );
    assert.deepEqual(grace.table_ids, [small]);
    // Now the big table is Ada's room: naming it, or booking without tables, is 409.
    assertError(
      await request(t, tenant.token, 'POST', '/reservations', booking({ table_ids: [big] })),
      409,
      'slot_unavailable',
      'table_ids',
    );
    assertError(
      await request(t, tenant.token, 'POST', '/reservations', booking()),
      409,
      'slot_unavailable',
      'starts_at',
    );
    // Grace may swap to the big table (Ada then counts at the small one); Ada cannot get it then.
    assert.deepEqual(
      (await ok(t, tenant.token, 'PATCH', `/reservations/${grace.id}`, { table_ids: [big] })).table_ids,
      [big],
    );
    assertError(
      await request(t, tenant.token, 'PATCH', `/reservations/${ada.id}`, { table_ids: [big] }),
      409,
      'slot_unavailable',
      'table_ids',
    );
    const seatedAda = await ok(t, tenant.token, 'PATCH', `/reservations/${ada.id}`, { table_ids: [small] });
    assert.deepEqual(seatedAda.table_ids, [small]);
    assert.deepEqual((await events(tenant)).at(-1)?.previous, { table_ids: [] });
  });

  it('counts along a chain: a booking without tables sits where the ones before it leave room', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    await addTable(tenant, { seats: 2 });
    await addTable(tenant, { seats: 4 });
    // Ada (17:00–18:30Z) counts at the small table, so Grace (18:00–19:30Z) at the big one …
    await ok(t, tenant.token, 'POST', '/reservations', booking());
    await ok(t, tenant.token, 'POST', '/reservations', booking({ starts_at: '2026-11-03T18:00:00Z' }));
    // … and four guests at 19:00 (overlapping Grace only, not Ada) find no table until 19:30.
    const four = { party_size: 4, guest_name: 'Alan' };
    assertError(
      await request(
        t,
        tenant.token,
        'POST',
        '/reservations',
        booking({ ...four, starts_at: '2026-11-03T19:00:00Z' }),
      ),
      409,
      'slot_unavailable',
      'starts_at',
    );
    const slots = (
      await ok(t, tenant.token, 'GET', '/reservations/availability?date=2026-11-03&party_size=4')
    ).slots;
    const availableAt = (time: string) =>
      slots.find((s: { starts_at: string }) => s.starts_at === time)?.available;
    assert.deepEqual(
      [availableAt('2026-11-03T19:00:00.000Z'), availableAt('2026-11-03T19:30:00.000Z')],
      [false, true],
    );
    await ok(
      t,
      tenant.token,
      'POST',
      '/reservations',
      booking({ ...four, starts_at: '2026-11-03T19:30:00Z' }),
    );
  });

  it('PATCH: a reservation without tables keeps none when moved; `table_ids: []` asks Servery to assign', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    const small = await addTable(tenant, { seats: 2 });
    const big = await addTable(tenant, { seats: 4 });
    const ada = await ok(t, tenant.token, 'POST', '/reservations', booking());
    const moved = await ok(t, tenant.token, 'PATCH', `/reservations/${ada.id}`, {
      starts_at: '2026-11-03T18:00:00Z',
      party_size: 4,
    });
    assert.deepEqual(
      [moved.starts_at, moved.party_size, moved.table_ids],
      ['2026-11-03T18:00:00.000Z', 4, []],
    );
    // Four at 18:00 fit only at the big table: another four then is 409, also when growing into it.
    const grace = await ok(
      t,
      tenant.token,
      'POST',
      '/reservations',
      booking({ starts_at: '2026-11-03T18:30:00Z' }),
    );
    assertError(
      await request(t, tenant.token, 'PATCH', `/reservations/${grace.id}`, { party_size: 3 }),
      409,
      'slot_unavailable',
      'starts_at',
    );
    assertError(
      await request(
        t,
        tenant.token,
        'POST',
        '/reservations',
        booking({ starts_at: '2026-11-03T18:00:00Z', party_size: 3 }),
      ),
      409,
      'slot_unavailable',
      'starts_at',
    );
    const assigned = await ok(t, tenant.token, 'PATCH', `/reservations/${ada.id}`, { table_ids: [] });
    assert.deepEqual(assigned.table_ids, [big]);
    assert.deepEqual((await ok(t, tenant.token, 'GET', `/reservations/${grace.id}`)).table_ids, []);
    // Grace (two) counts at the small table; moving her onto it by name is fine.
    assert.deepEqual(
      (await ok(t, tenant.token, 'PATCH', `/reservations/${grace.id}`, { table_ids: [small] })).table_ids,
      [small],
    );
  });

  it('PATCH follows the transitions; a 409 changes nothing; events report changed, previous, previous_status', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    const first = await addTable(tenant, { seats: 4 });
    const second = await addTable(tenant, { seats: 4 });
    const r = await ok(t, tenant.token, 'POST', '/reservations', booking({ status: 'pending' }));
    const patch = (body: unknown) => request(t, tenant.token, 'PATCH', `/reservations/${r.id}`, body);
    const seated = await patch({ status: 'seated' });
    assertError(seated, 409, 'invalid_transition');
    assert.match(json(seated).error.message, /confirmed, declined, cancelled/);
    t.clock.advance(1000);
    const confirmed = await ok(t, tenant.token, 'PATCH', `/reservations/${r.id}`, {
      status: 'confirmed',
      note: 'Birthday',
    });
    assert.equal(confirmed.status, 'confirmed');
    assert.equal(confirmed.updated_at, t.clock.now().toISOString());
    let story = await events(tenant);
    assert.equal(story.length, 2);
    assert.equal(story[1]?.type, 'reservation.updated');
    assert.deepEqual(story[1]?.changed, ['status', 'note']);
    assert.deepEqual(story[1]?.previous, { status: 'pending', note: null });
    assert.equal(story[1]?.previous_status, 'pending');
    assert.deepEqual(story[1]?.object, confirmed);

    // Nothing changes: 200, no event.
    assert.deepEqual(
      await ok(t, tenant.token, 'PATCH', `/reservations/${r.id}`, { status: 'confirmed', note: 'Birthday' }),
      confirmed,
    );
    assert.equal((await events(tenant)).length, 2);

    // Moving: to a time not offered → 409, nothing changed; to another table; party grows.
    assertError(
      await patch({ starts_at: '2026-11-03T17:10:00Z', note: 'x' }),
      409,
      'slot_unavailable',
      'starts_at',
    );
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/reservations/${r.id}`), confirmed);
    t.clock.advance(1000);
    const moved = await ok(t, tenant.token, 'PATCH', `/reservations/${r.id}`, {
      starts_at: '2026-11-03T18:00:00Z',
      table_ids: [second],
    });
    assert.deepEqual(moved.table_ids, [second]);
    story = await events(tenant);
    assert.deepEqual(story[2]?.changed, ['starts_at', 'table_ids']);
    assert.deepEqual(story[2]?.previous, { starts_at: '2026-11-03T17:00:00.000Z', table_ids: [] });
    assert.equal(story[2]?.previous_status, undefined);
    // Another booking takes the first table at 18:00; ours cannot move back onto it.
    await ok(
      t,
      tenant.token,
      'POST',
      '/reservations',
      booking({ starts_at: '2026-11-03T18:00:00Z', table_ids: [first] }),
    );
    assertError(await patch({ table_ids: [first] }), 409, 'slot_unavailable', 'table_ids');
    assertError(await patch({ party_size: 5 }), 409, 'slot_unavailable', 'starts_at');
    const longer = await ok(t, tenant.token, 'PATCH', `/reservations/${r.id}`, { duration_minutes: 180 });
    assert.equal(longer.duration_minutes, 180);

    // Seated: time and party no longer change; then done, final.
    await ok(t, tenant.token, 'PATCH', `/reservations/${r.id}`, { status: 'seated' });
    assertError(await patch({ party_size: 3 }), 409, 'invalid_transition', 'party_size');
    await ok(t, tenant.token, 'PATCH', `/reservations/${r.id}`, { status: 'done', guest_name: 'Ada L.' });
    const final = await patch({ status: 'cancelled' });
    assertError(final, 409, 'invalid_transition');
    assert.match(json(final).error.message, /final/);
    assertError(await patch({}), 400, 'invalid_request');
    assertError(await patch({ status: 'gone' }), 400, 'invalid_request', 'status');
    assertError(await patch({ code: 'ABC' }), 400, 'invalid_request', 'code');
    // A done reservation holds no table: the first table's 18:00 slot is the other booking's only.
  });

  it('PATCH takes an Idempotency-Key: the same request is replayed, not run again', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    await addTable(tenant);
    const r = await ok(t, tenant.token, 'POST', '/reservations', booking());
    const send = (body: unknown) =>
      t.app.inject({
        method: 'PATCH',
        url: `/v1/reservations/${r.id}`,
        headers: {
          ...bearer(tenant.token),
          'content-type': 'application/json',
          'idempotency-key': 'patch-1',
        },
        payload: JSON.stringify(body),
      });
    const first = await send({ status: 'seated' });
    assert.equal(first.statusCode, 200, first.body);
    const again = await send({ status: 'seated' });
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assertError(await send({ status: 'done' }), 422, 'idempotency_key_reused');
    assert.equal((await events(tenant)).length, 2);
  });

  it('lists with every filter, in both orders, with cursors; deleted never listed', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    for (let i = 0; i < 4; i += 1) await addTable(tenant);
    const made = [];
    for (const [time, status] of [
      ['2026-11-04T17:00:00Z', 'confirmed'],
      ['2026-11-03T17:00:00Z', 'pending'],
      ['2026-11-05T17:00:00Z', 'confirmed'],
      ['2026-11-03T12:00:00Z', 'confirmed'],
    ] as const) {
      t.clock.advance(1000);
      made.push(await ok(t, tenant.token, 'POST', '/reservations', booking({ starts_at: time, status })));
    }
    const ids = (body: { data: { id: string }[] }) => body.data.map((r) => r.id);
    const [a, b, c, d] = made.map((r) => r.id);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/reservations')), [d, c, b, a]);
    assert.deepEqual(
      ids(await ok(t, tenant.token, 'GET', `/reservations?updated_since=${made[1].updated_at}`)),
      [c, d],
    );
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/reservations?status=pending')), [b]);
    assert.deepEqual(
      ids(await ok(t, tenant.token, 'GET', '/reservations?starts_from=2026-11-03T00:00:00Z')),
      [d, b, a, c],
    );
    assert.deepEqual(
      ids(
        await ok(
          t,
          tenant.token,
          'GET',
          '/reservations?starts_from=2026-11-03T12:00:00Z&starts_until=2026-11-05T17:00:00Z&status=confirmed',
        ),
      ),
      [d, a],
    );
    const page1 = await ok(t, tenant.token, 'GET', '/reservations?starts_until=2030-01-01T00:00:00Z&limit=3');
    assert.deepEqual(ids(page1), [d, b, a]);
    assert.equal(page1.has_more, true);
    const page2 = await ok(
      t,
      tenant.token,
      'GET',
      `/reservations?starts_until=2030-01-01T00:00:00Z&limit=3&cursor=${page1.next_cursor}`,
    );
    assert.deepEqual(ids(page2), [c]);
    assertError(
      await request(t, tenant.token, 'GET', `/reservations?limit=3&cursor=${page1.next_cursor}`),
      400,
      'invalid_request',
      'cursor',
    );
    assertError(
      await request(t, tenant.token, 'GET', '/reservations?status=gone'),
      400,
      'invalid_request',
      'status',
    );
    assertError(
      await request(t, tenant.token, 'GET', '/reservations?type=x'),
      400,
      'invalid_request',
      'type',
    );
    assertError(
      await request(t, tenant.token, 'GET', '/reservations?starts_from=yesterday'),
      400,
      'invalid_request',
      'starts_from',
    );

    t.clock.advance(1000);
    await deleteReservation(tenant.ctx, a as string);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/reservations')), [d, c, b]);
    assertError(await request(t, tenant.token, 'GET', `/reservations/${a}`), 404, 'not_found');
    assertError(
      await request(t, tenant.token, 'PATCH', `/reservations/${a}`, { status: 'seated' }),
      404,
      'not_found',
    );
    const last = (await events(tenant)).at(-1);
    assert.equal(last?.type, 'reservation.updated');
    assert.equal(last?.object.deleted_at, t.clock.now().toISOString());
    assert.deepEqual(last?.changed, ['deleted_at']);
    // The deleted reservation holds no table any more: all four are free at its time.
    for (let i = 0; i < 4; i += 1)
      await ok(t, tenant.token, 'POST', '/reservations', booking({ starts_at: '2026-11-04T17:00:00Z' }));
  });

  it('another restaurant’s reservation is not found; starter is 403 plan_required; scopes', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    await addTable(tenant);
    const r = await ok(t, tenant.token, 'POST', '/reservations', booking());
    const other = await bookingTenant(t);
    assertError(await request(t, other.token, 'GET', `/reservations/${r.id}`), 404, 'not_found');
    assertError(
      await request(t, other.token, 'PATCH', `/reservations/${r.id}`, { status: 'seated' }),
      404,
      'not_found',
    );
    assert.deepEqual((await ok(t, other.token, 'GET', '/reservations')).data, []);
    const starter = await makeTenant(t.ctx, { plan: 'starter' });
    for (const [method, url, body] of [
      ['GET', '/reservations', undefined],
      ['POST', '/reservations', booking()],
      ['GET', `/reservations/${r.id}`, undefined],
      ['PATCH', `/reservations/${r.id}`, { status: 'seated' }],
    ] as const)
      assertError(await request(t, starter.token, method, url, body), 403, 'plan_required');
    const readOnly = await tokenFor(t.ctx, tenant, ['reservations:read']);
    assertError(await request(t, readOnly, 'POST', '/reservations', booking()), 403, 'insufficient_scope');
    assertError(
      await request(t, readOnly, 'PATCH', `/reservations/${r.id}`, { status: 'seated' }),
      403,
      'insufficient_scope',
    );
    await ok(t, readOnly, 'GET', `/reservations/${r.id}`);
  });
});
