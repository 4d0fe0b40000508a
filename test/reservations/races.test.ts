import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, json, type TestApp } from '../harness.ts';
import { assertError, ok, request } from '../menu/menu-helpers.ts';
import { addTable, bookingTenant, setClock } from './reservation-helpers.ts';

/*
 * Reservations under concurrent writes, on PostgreSQL (PGlite has one connection, so nothing there
 * runs at once). Each race runs 20 times and must end consistently every time:
 * - two bookings for the last free table (one naming it, one without tables): exactly one 201, the
 *   other 409 slot_unavailable;
 * - three bookings without tables for two tables: exactly two 201 (room counts without tables);
 * - a change of the note and a status change at once: both take effect (no lost update), and the
 *   events tell each change once.
 */

const rounds = 20;
const day = (round: number) => `2026-11-${String(3 + round).padStart(2, '0')}T17:00:00Z`;

describe('reservation races (PostgreSQL)', { skip: !process.env.DATABASE_URL }, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    setClock(t, '2026-11-02T10:00:00Z');
  });
  after(() => t?.close());

  it('two bookings for the last free table: exactly one wins', async () => {
    const tenant = await bookingTenant(t);
    const table = await addTable(tenant, { seats: 4 });
    for (let round = 0; round < rounds; round += 1) {
      const body = { starts_at: day(round), party_size: 2, guest_name: `Guest ${round}` };
      const answers = await Promise.all([
        request(t, tenant.token, 'POST', '/reservations', body),
        request(t, tenant.token, 'POST', '/reservations', { ...body, table_ids: [table] }),
      ]);
      const won = answers.filter((res) => res.statusCode === 201);
      const lost = answers.filter((res) => res.statusCode !== 201);
      assert.equal(won.length, 1, answers.map((res) => res.body).join('\n'));
      assertError(
        lost[0] as (typeof answers)[number],
        409,
        'slot_unavailable',
        lost[0] === answers[0] ? 'starts_at' : 'table_ids',
      );
      // The API gives tables only when asked for them.
      assert.deepEqual(
        json(won[0] as (typeof answers)[number]).table_ids,
        won[0] === answers[0] ? [] : [table],
      );
    }
    const rows = await t.database.db
      .selectFrom('reservations')
      .select('id')
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    assert.equal(rows.length, rounds);
  });

  it('three bookings without tables for two tables at once: exactly two win', async () => {
    const tenant = await bookingTenant(t);
    await addTable(tenant, { seats: 4 });
    await addTable(tenant, { seats: 4 });
    for (let round = 0; round < rounds; round += 1) {
      const answers = await Promise.all(
        [0, 1, 2].map((guest) =>
          request(t, tenant.token, 'POST', '/reservations', {
            starts_at: day(round),
            party_size: 2,
            guest_name: `Guest ${round}.${guest}`,
          }),
        ),
      );
      const won = answers.filter((res) => res.statusCode === 201);
      assert.equal(won.length, 2, answers.map((res) => res.body).join('\n'));
      for (const res of won) assert.deepEqual(json(res).table_ids, []);
      assertError(
        answers.find((res) => res.statusCode !== 201) as (typeof answers)[number],
        409,
        'slot_unavailable',
        'starts_at',
      );
    }
  });

  it('a note change and a status change at once: neither is lost', async () => {
    const tenant = await bookingTenant(t);
    await addTable(tenant, { seats: 4 });
    for (let round = 0; round < rounds; round += 1) {
      const r = await ok(t, tenant.token, 'POST', '/reservations', {
        starts_at: day(round),
        party_size: 2,
        guest_name: 'Ada',
      });
      const [noted, seated] = await Promise.all([
        request(t, tenant.token, 'PATCH', `/reservations/${r.id}`, { note: `Round ${round}`, party_size: 3 }),
        request(t, tenant.token, 'PATCH', `/reservations/${r.id}`, { status: 'cancelled' }),
      ]);
      assert.equal(seated.statusCode, 200, seated.body);
      const final = await ok(t, tenant.token, 'GET', `/reservations/${r.id}`);
      assert.equal(final.status, 'cancelled');
      const events = (
        await t.database.db
          .selectFrom('events')
          .select('data')
          .where('tenant_id', '=', tenant.restaurantId)
          .where('type', '=', 'reservation.updated')
          .orderBy('created_at')
          .orderBy('id')
          .execute()
      )
        .map((row) => row.data as Record<string, ReturnType<typeof json>>)
        .filter((data) => data.object.id === r.id);
      if (noted.statusCode === 200) {
        // The change came first: the cancel found it and kept it.
        assert.equal(final.note, `Round ${round}`);
        assert.equal(final.party_size, 3);
        assert.deepEqual(
          events.map((e) => e.changed),
          [['party_size', 'note'], ['status']],
        );
      } else {
        // The cancel came first: a cancelled reservation's party no longer changes, and nothing did.
        assertError(noted, 409, 'invalid_transition', 'party_size');
        assert.equal(final.note, null);
        assert.deepEqual(
          events.map((e) => e.changed),
          [['status']],
        );
      }
    }
  });
});
