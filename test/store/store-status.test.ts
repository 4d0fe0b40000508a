import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Tenant, type TestApp } from '../harness.ts';
import {
  addSpecialDay,
  daily,
  fri,
  mon,
  pause,
  removeSpecialDay,
  resume,
  type StatusView,
  sat,
  setClock,
  statusAt,
  storeWith,
  sun,
  thu,
  timezoneOf,
  tue,
  wed,
} from './schedule-helpers.ts';

/*
 * GET /v1/store's status and next_opening_at (src/domain/store/schedule.ts), with the clock set to
 * exact instants around the windows' edges: every expected instant is written out in UTC.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const open: StatusView = { status: 'open', next_opening_at: null };
const closed = (next: string | null): StatusView => ({ status: 'closed', next_opening_at: next });
const paused = (next: string | null): StatusView => ({ status: 'paused', next_opening_at: next });

async function expectAt(tenant: Tenant, at: string, expected: StatusView): Promise<void> {
  assert.deepEqual(await statusAt(t, tenant, at), expected, `at ${at}`);
}

describe('Europe/Berlin, spring forward: Sunday 2027-03-28, 02:00 CET → 03:00 CEST', () => {
  test('a Saturday 22:00–06:00 window lasts its real seven hours', async () => {
    const store = await storeWith(t, { opening_hours: [{ weekday: sat, open: '22:00', close: '06:00' }] });
    await expectAt(store, '2027-03-27T12:00:00.000Z', closed('2027-03-27T21:00:00.000Z'));
    await expectAt(store, '2027-03-27T21:00:00.000Z', open);
    await expectAt(store, '2027-03-28T03:59:59.999Z', open); // 05:59:59 CEST
    await expectAt(store, '2027-03-28T04:00:00.000Z', closed('2027-04-03T20:00:00.000Z')); // next Saturday, CEST
  });

  test('next_opening_at across the change is in summer time', async () => {
    const store = await storeWith(t, { opening_hours: [{ weekday: sun, open: '10:00', close: '12:00' }] });
    await expectAt(store, '2027-03-27T12:00:00.000Z', closed('2027-03-28T08:00:00.000Z'));
  });

  test('a window opening inside the gap opens at its end; one wholly inside it never opens', async () => {
    const store = await storeWith(t, { opening_hours: [{ weekday: sun, open: '02:30', close: '04:00' }] });
    await expectAt(store, '2027-03-28T00:30:00.000Z', closed('2027-03-28T01:00:00.000Z')); // 03:00 CEST
    await expectAt(store, '2027-03-28T00:59:59.999Z', closed('2027-03-28T01:00:00.000Z'));
    await expectAt(store, '2027-03-28T01:00:00.000Z', open);
    await expectAt(store, '2027-03-28T01:59:59.999Z', open);
    await expectAt(store, '2027-03-28T02:00:00.000Z', closed('2027-04-04T00:30:00.000Z'));

    const lost = await storeWith(t, {
      opening_hours: [
        { weekday: sun, open: '02:00', close: '02:45' },
        { weekday: mon, open: '09:00', close: '10:00' },
      ],
    });
    await expectAt(lost, '2027-03-28T00:30:00.000Z', closed('2027-03-29T07:00:00.000Z'));
    await expectAt(lost, '2027-03-28T01:00:00.000Z', closed('2027-03-29T07:00:00.000Z'));
  });
});

describe('Europe/Berlin, fall back: Sunday 2026-10-25, 03:00 CEST → 02:00 CET', () => {
  test('a Saturday 22:00–06:00 window lasts its real nine hours', async () => {
    const store = await storeWith(t, { opening_hours: [{ weekday: sat, open: '22:00', close: '06:00' }] });
    await expectAt(store, '2026-10-24T12:00:00.000Z', closed('2026-10-24T20:00:00.000Z'));
    await expectAt(store, '2026-10-24T20:00:00.000Z', open);
    await expectAt(store, '2026-10-25T04:59:59.999Z', open); // 05:59:59 CET
    await expectAt(store, '2026-10-25T05:00:00.000Z', closed('2026-10-31T21:00:00.000Z')); // next Saturday, CET
  });

  test('next_opening_at across the change is in winter time', async () => {
    const store = await storeWith(t, { opening_hours: [{ weekday: sun, open: '10:00', close: '12:00' }] });
    await expectAt(store, '2026-10-24T12:00:00.000Z', closed('2026-10-25T09:00:00.000Z'));
  });

  test('a local time that occurs twice means its first occurrence, for opening and closing', async () => {
    // 02:30 is first read at 00:30Z (CEST); 03:00 is first read at 02:00Z (CET): 90 real minutes.
    const store = await storeWith(t, { opening_hours: [{ weekday: sun, open: '02:30', close: '03:00' }] });
    await expectAt(store, '2026-10-25T00:00:00.000Z', closed('2026-10-25T00:30:00.000Z'));
    await expectAt(store, '2026-10-25T00:30:00.000Z', open);
    await expectAt(store, '2026-10-25T01:30:00.000Z', open); // 02:30 CET, the second occurrence
    await expectAt(store, '2026-10-25T01:59:59.999Z', open);
    await expectAt(store, '2026-10-25T02:00:00.000Z', closed('2026-11-01T01:30:00.000Z'));
  });
});

describe('weekly windows', () => {
  test('overnight windows run across midnight and across the week’s end (Sunday → Monday)', async () => {
    const store = await storeWith(t, {
      opening_hours: [
        { weekday: wed, open: '18:00', close: '01:00' },
        { weekday: sun, open: '20:00', close: '02:00' },
      ],
    });
    await expectAt(store, '2026-11-04T23:30:00.000Z', open); // Thursday 00:30
    await expectAt(store, '2026-11-04T23:59:59.999Z', open);
    await expectAt(store, '2026-11-05T00:00:00.000Z', closed('2026-11-08T19:00:00.000Z'));
    await expectAt(store, '2026-11-08T23:30:00.000Z', open); // Monday 00:30
    await expectAt(store, '2026-11-09T00:59:59.999Z', open);
    await expectAt(store, '2026-11-09T01:00:00.000Z', closed('2026-11-11T17:00:00.000Z'));
  });

  test('close equal to open runs until midnight', async () => {
    const store = await storeWith(t, { opening_hours: [{ weekday: tue, open: '18:00', close: '18:00' }] });
    await expectAt(store, '2026-11-03T16:59:59.999Z', closed('2026-11-03T17:00:00.000Z'));
    await expectAt(store, '2026-11-03T17:00:00.000Z', open);
    await expectAt(store, '2026-11-03T22:59:59.999Z', open);
    await expectAt(store, '2026-11-03T23:00:00.000Z', closed('2026-11-10T17:00:00.000Z'));
  });

  test('windows that touch form one opening', async () => {
    const store = await storeWith(t, {
      opening_hours: [
        { weekday: mon, open: '22:00', close: '00:00' },
        { weekday: tue, open: '00:00', close: '02:00' },
      ],
    });
    await expectAt(store, '2026-11-02T20:59:59.999Z', closed('2026-11-02T21:00:00.000Z'));
    await expectAt(store, '2026-11-02T22:59:59.999Z', open);
    await expectAt(store, '2026-11-02T23:00:00.000Z', open);
    await expectAt(store, '2026-11-03T00:59:59.999Z', open);
    await expectAt(store, '2026-11-03T01:00:00.000Z', closed('2026-11-09T21:00:00.000Z'));
    // A pause ending at the seam: the store opens then, within the one opening.
    setClock(t, '2026-11-09T20:00:00.000Z');
    assert.deepEqual(await pause(t, store, { until: '2026-11-09T23:00:00.000Z' }), {
      ...paused('2026-11-09T23:00:00.000Z'),
      paused_until: '2026-11-09T23:00:00.000Z',
    });
  });

  test('a weekday without windows is closed', async () => {
    const store = await storeWith(t, {
      opening_hours: [mon, tue, thu, fri].map((weekday) => ({ weekday, open: '11:00', close: '14:00' })),
    });
    await expectAt(store, '2026-11-03T11:00:00.000Z', open);
    await expectAt(store, '2026-11-03T13:00:00.000Z', closed('2026-11-05T10:00:00.000Z'));
    await expectAt(store, '2026-11-04T11:00:00.000Z', closed('2026-11-05T10:00:00.000Z'));
  });

  test('a store without hours is closed with no next opening', async () => {
    const store = await storeWith(t, { opening_hours: [] });
    await expectAt(store, '2026-11-02T10:00:00.000Z', closed(null));
  });
});

describe('special days', () => {
  test('a day closed all day overrides its weekday until it is removed', async () => {
    const store = await storeWith(t, { opening_hours: daily('11:00', '22:00') });
    setClock(t, '2026-11-02T10:00:00.000Z');
    await addSpecialDay(t, store, { date: '2026-11-04', closed: true, note: 'Staff outing' });
    await expectAt(store, '2026-11-03T21:00:00.000Z', closed('2026-11-05T10:00:00.000Z'));
    await expectAt(store, '2026-11-04T12:00:00.000Z', closed('2026-11-05T10:00:00.000Z'));
    await removeSpecialDay(t, store, '2026-11-04');
    await expectAt(store, '2026-11-04T12:00:00.000Z', open);
  });

  test('a day with two windows of its own replaces its weekday’s, overnight included', async () => {
    const store = await storeWith(t, { opening_hours: daily('11:00', '22:00') });
    setClock(t, '2026-11-02T10:00:00.000Z');
    await addSpecialDay(t, store, {
      date: '2026-11-05',
      closed: false,
      hours: [
        { open: '09:00', close: '10:00' },
        { open: '17:00', close: '01:00' },
      ],
    });
    await expectAt(store, '2026-11-05T07:59:59.999Z', closed('2026-11-05T08:00:00.000Z'));
    await expectAt(store, '2026-11-05T08:30:00.000Z', open);
    await expectAt(store, '2026-11-05T09:00:00.000Z', closed('2026-11-05T16:00:00.000Z'));
    await expectAt(store, '2026-11-05T12:00:00.000Z', closed('2026-11-05T16:00:00.000Z')); // weekly: open
    await expectAt(store, '2026-11-05T21:30:00.000Z', open); // weekly: closed
    await expectAt(store, '2026-11-05T23:59:59.999Z', open); // Friday 00:59
    await expectAt(store, '2026-11-06T00:00:00.000Z', closed('2026-11-06T10:00:00.000Z'));
  });

  test('a window from the day before still runs into a special day', async () => {
    const store = await storeWith(t, {
      opening_hours: [
        { weekday: fri, open: '18:00', close: '02:00' },
        { weekday: sat, open: '12:00', close: '14:00' },
      ],
    });
    setClock(t, '2026-11-02T10:00:00.000Z');
    await addSpecialDay(t, store, { date: '2026-11-07', closed: true });
    await expectAt(store, '2026-11-07T00:59:59.999Z', open); // Saturday 01:59
    await expectAt(store, '2026-11-07T01:00:00.000Z', closed('2026-11-13T17:00:00.000Z'));
  });

  test('a special day replaces the windows starting on it, also after midnight', async () => {
    const store = await storeWith(t, { opening_hours: [{ weekday: fri, open: '18:00', close: '02:00' }] });
    setClock(t, '2026-11-06T10:00:00.000Z');
    await addSpecialDay(t, store, { date: '2026-11-06', closed: true });
    await expectAt(store, '2026-11-06T18:00:00.000Z', closed('2026-11-13T17:00:00.000Z'));
    // Saturday 01:30: Friday is yesterday now, and its window still does not run.
    await expectAt(store, '2026-11-07T00:30:00.000Z', closed('2026-11-13T17:00:00.000Z'));
  });

  test('always open: around the clock, except a closed special day and one with its own hours', async () => {
    const store = await storeWith(t, { always_open: true });
    await expectAt(store, '2026-11-02T10:00:00.000Z', open);
    await addSpecialDay(t, store, { date: '2026-11-04', closed: true });
    await addSpecialDay(t, store, {
      date: '2026-11-05',
      closed: false,
      hours: [{ open: '10:00', close: '12:00' }],
    });
    await expectAt(store, '2026-11-03T22:59:59.999Z', open); // Tuesday 23:59
    await expectAt(store, '2026-11-03T23:00:00.000Z', closed('2026-11-05T09:00:00.000Z'));
    await expectAt(store, '2026-11-05T09:00:00.000Z', open);
    await expectAt(store, '2026-11-05T11:00:00.000Z', closed('2026-11-05T23:00:00.000Z'));
    await expectAt(store, '2026-11-05T23:00:00.000Z', open); // Friday 00:00
  });
});

describe('pauses', () => {
  test('a pause ending inside closed hours: paused, then closed with the next window', async () => {
    const store = await storeWith(t, { opening_hours: daily('11:00', '22:00') });
    setClock(t, '2026-11-02T12:00:00.000Z');
    assert.deepEqual(await pause(t, store, { until: '2026-11-02T22:30:00.000Z', note: 'Fire drill' }), {
      ...paused('2026-11-03T10:00:00.000Z'),
      paused_until: '2026-11-02T22:30:00.000Z',
    });
    await expectAt(store, '2026-11-02T22:29:59.999Z', paused('2026-11-03T10:00:00.000Z'));
    // Its end has passed: no pause any more, whether or not the worker lifted it yet.
    await expectAt(store, '2026-11-02T22:30:00.000Z', closed('2026-11-03T10:00:00.000Z'));
    await expectAt(store, '2026-11-03T10:00:00.000Z', open);
  });

  test('a pause ending inside open hours: the store opens at its end', async () => {
    const store = await storeWith(t, { opening_hours: daily('11:00', '22:00') });
    setClock(t, '2026-11-03T11:00:00.000Z');
    assert.deepEqual(await pause(t, store, { until: '2026-11-03T12:00:00.000Z' }), {
      ...paused('2026-11-03T12:00:00.000Z'),
      paused_until: '2026-11-03T12:00:00.000Z',
    });
    await expectAt(store, '2026-11-03T11:59:59.999Z', paused('2026-11-03T12:00:00.000Z'));
    await expectAt(store, '2026-11-03T12:00:00.000Z', open);
  });

  test('a pause taken while closed, ending inside the next window', async () => {
    const store = await storeWith(t, { opening_hours: daily('11:00', '22:00') });
    setClock(t, '2026-11-03T22:00:00.000Z');
    assert.deepEqual(await pause(t, store, { until: '2026-11-04T11:00:00.000Z' }), {
      ...paused('2026-11-04T11:00:00.000Z'),
      paused_until: '2026-11-04T11:00:00.000Z',
    });
  });

  test('an indefinite pause: paused whatever the hours, no next opening, until lifted', async () => {
    const store = await storeWith(t, { opening_hours: daily('11:00', '22:00') });
    setClock(t, '2026-11-02T12:00:00.000Z');
    assert.deepEqual(await pause(t, store, {}), { ...paused(null), paused_until: null });
    await expectAt(store, '2026-11-20T12:00:00.000Z', paused(null));
    assert.deepEqual(await resume(t, store), open);
  });

  test('after a pause, the next opening counts from now: two weeks of now, not of the pause’s end', async () => {
    const store = await storeWith(t, { opening_hours: [{ weekday: tue, open: '11:00', close: '14:00' }] });
    setClock(t, '2026-11-02T10:00:00.000Z');
    await addSpecialDay(t, store, { date: '2026-11-03', closed: true });
    await addSpecialDay(t, store, { date: '2026-11-10', closed: true });
    // The first opening after the end is Tuesday 2026-11-17, 15 days from now.
    assert.deepEqual(await pause(t, store, { until: '2026-11-12T10:00:00.000Z' }), {
      ...paused(null),
      paused_until: '2026-11-12T10:00:00.000Z',
    });
    await expectAt(store, '2026-11-12T10:00:00.000Z', closed('2026-11-17T10:00:00.000Z'));
  });
});

describe('two weeks ahead', () => {
  test('a first opening 13 days away is shown; none within 14 days gives null', async () => {
    const store = await storeWith(t, { opening_hours: [{ weekday: sun, open: '11:00', close: '14:00' }] });
    setClock(t, '2026-11-02T10:00:00.000Z');
    await addSpecialDay(t, store, { date: '2026-11-08', closed: true });
    await expectAt(store, '2026-11-02T10:00:00.000Z', closed('2026-11-15T10:00:00.000Z'));
    await addSpecialDay(t, store, { date: '2026-11-15', closed: true });
    await expectAt(store, '2026-11-02T10:00:00.000Z', closed(null));
  });

  test('the two weeks end at the same local time 14 days later, that instant included', async () => {
    const store = await storeWith(t, { opening_hours: [{ weekday: mon, open: '11:00', close: '14:00' }] });
    setClock(t, '2026-11-02T09:00:00.000Z');
    await addSpecialDay(t, store, { date: '2026-11-02', closed: true });
    await addSpecialDay(t, store, { date: '2026-11-09', closed: true });
    await expectAt(store, '2026-11-02T09:59:59.999Z', closed(null));
    await expectAt(store, '2026-11-02T10:00:00.000Z', closed('2026-11-16T10:00:00.000Z'));
  });
});

describe('Pacific/Auckland (UTC+12, +13 in summer)', () => {
  test('weekdays are Auckland’s, not UTC’s', async () => {
    const store = await storeWith(
      t,
      { opening_hours: [{ weekday: mon, open: '09:00', close: '17:00' }] },
      'Pacific/Auckland',
    );
    assert.equal(await timezoneOf(t, store), 'Pacific/Auckland');
    await expectAt(store, '2026-11-01T19:59:59.999Z', closed('2026-11-01T20:00:00.000Z')); // UTC Sunday
    await expectAt(store, '2026-11-01T21:00:00.000Z', open); // Monday 10:00 NZDT
    await expectAt(store, '2026-11-02T04:00:00.000Z', closed('2026-11-08T20:00:00.000Z'));
  });

  test('DST ends: Sunday 2027-04-04, 03:00 NZDT → 02:00 NZST', async () => {
    const store = await storeWith(
      t,
      { opening_hours: [{ weekday: sat, open: '22:00', close: '06:00' }] },
      'Pacific/Auckland',
    );
    await expectAt(store, '2027-04-03T08:59:59.999Z', closed('2027-04-03T09:00:00.000Z'));
    await expectAt(store, '2027-04-03T17:59:59.999Z', open); // nine real hours
    await expectAt(store, '2027-04-03T18:00:00.000Z', closed('2027-04-10T10:00:00.000Z'));
  });

  test('DST starts: Sunday 2026-09-27, 02:00 NZST → 03:00 NZDT', async () => {
    const store = await storeWith(
      t,
      {
        opening_hours: [
          { weekday: sat, open: '22:00', close: '06:00' },
          { weekday: sun, open: '10:00', close: '14:00' },
        ],
      },
      'Pacific/Auckland',
    );
    await expectAt(store, '2026-09-26T00:00:00.000Z', closed('2026-09-26T10:00:00.000Z'));
    await expectAt(store, '2026-09-26T16:59:59.999Z', open); // seven real hours
    await expectAt(store, '2026-09-26T17:00:00.000Z', closed('2026-09-26T21:00:00.000Z'));
    await expectAt(store, '2026-09-27T00:59:59.999Z', open);
    await expectAt(store, '2026-09-27T01:00:00.000Z', closed('2026-10-03T09:00:00.000Z'));
  });
});

describe('America/Los_Angeles (UTC−8, −7 in summer)', () => {
  test('DST ends: Sunday 2026-11-01, 02:00 PDT → 01:00 PST', async () => {
    const store = await storeWith(
      t,
      { opening_hours: [{ weekday: sat, open: '20:00', close: '04:00' }] },
      'America/Los_Angeles',
    );
    assert.equal(await timezoneOf(t, store), 'America/Los_Angeles');
    await expectAt(store, '2026-10-31T12:00:00.000Z', closed('2026-11-01T03:00:00.000Z'));
    await expectAt(store, '2026-11-01T03:00:00.000Z', open); // UTC Sunday, Saturday 20:00 PDT
    await expectAt(store, '2026-11-01T11:59:59.999Z', open); // nine real hours
    await expectAt(store, '2026-11-01T12:00:00.000Z', closed('2026-11-08T04:00:00.000Z'));
  });

  test('DST starts: Sunday 2027-03-14, 02:00 PST → 03:00 PDT', async () => {
    const store = await storeWith(
      t,
      {
        opening_hours: [
          { weekday: sat, open: '22:00', close: '06:00' },
          { weekday: sun, open: '10:00', close: '14:00' },
        ],
      },
      'America/Los_Angeles',
    );
    await expectAt(store, '2027-03-13T20:00:00.000Z', closed('2027-03-14T06:00:00.000Z'));
    await expectAt(store, '2027-03-14T12:59:59.999Z', open); // seven real hours
    await expectAt(store, '2027-03-14T13:00:00.000Z', closed('2027-03-14T17:00:00.000Z'));
    await expectAt(store, '2027-03-14T20:59:59.999Z', open);
    await expectAt(store, '2027-03-14T21:00:00.000Z', closed('2027-03-21T05:00:00.000Z'));
  });
});
