/*
 * Availability under load (alone with `--only reservations`), on a fresh PostgreSQL database: a
 * restaurant open 11:00–23:00 every day (Europe/Berlin, a 15-minute slot interval, 90 minutes a
 * party), 40 tables in 3 areas (2, 4 and 6 seats, some not bookable online, 4 allowed
 * combinations) and 300 reservations on the day asked for, a week ahead, booked through the domain
 * as staff book them. GET /v1/reservations/availability for that day and a party of 4 against a
 * bare route serving the same bytes, in alternating rounds as the other HTTP benches.
 * Issue 15's target: availability ≥ 0.3 × the bare route.
 */
import { DateTime } from 'luxon';
import { AvailabilitySchema } from '../src/domain/reservations/reservation.schema.ts';
import { updateReservationSettings } from '../src/domain/reservations/reservation-settings.service.ts';
import { createReservation } from '../src/domain/reservations/reservations.service.ts';
import { type Ctx, systemCtx } from '../src/domain/shared/context.ts';
import { ApiError } from '../src/domain/shared/errors.ts';
import { createArea } from '../src/domain/store/areas.service.ts';
import { putStoreHours } from '../src/domain/store/store.service.ts';
import { createTable } from '../src/domain/store/tables.service.ts';
import { makeTenant, tokenFor } from '../test/harness.ts';
import { type BenchApp, closeBoth, listenWithBareRoute } from './bare-route.ts';
import { openBenchDatabase } from './databases.ts';
import type { RouteRun } from './figures.ts';
import { routeTable } from './figures.ts';
import { type LoadRunner, measureRoutes, type RoundsOptions } from './rounds.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const barePath = '/bench/availability-bare';
const zone = 'Europe/Berlin';
const tableCount = 40;
const reservationCount = 300;
const partySize = 4;

/** 40 tables over three areas, the terrace not bookable online; four pairs may be pushed together. */
async function setUpFloor(ctx: Ctx): Promise<string[]> {
  const areas = await Promise.all(
    [{ name: 'Dining room' }, { name: 'Bar' }, { name: 'Terrace', bookable_online: false }].map((area) =>
      createArea(ctx, area),
    ),
  );
  const tables: string[] = [];
  for (let n = 0; n < tableCount; n++) {
    const area = areas[n % areas.length] as (typeof areas)[number];
    const table = await createTable(ctx, { label: `T${n + 1}`, seats: [2, 4, 6][n % 3], area_id: area.id });
    tables.push(table.id);
  }
  await updateReservationSettings(ctx, {
    slot_minutes: 15,
    durations: [{ max_party: null, minutes: 90 }],
    last_seating_minutes: 90,
    combinations: [0, 2, 4, 6].map((n) => [tables[n] as string, tables[n + 1] as string]),
  });
  return tables;
}

/**
 * 300 reservations on `date`: each table in turn from 11:00, back to back (every other table
 * a slot later), parties that fit the table, until 300 are booked. Staff may book any table.
 */
async function bookTheDay(ctx: Ctx, tables: readonly string[], date: string): Promise<void> {
  const opening = DateTime.fromISO(`${date}T11:00`, { zone });
  let booked = 0;
  for (let round = 0; booked < reservationCount && round < 8; round++) {
    for (let n = 0; n < tables.length && booked < reservationCount; n++) {
      const start = opening.plus({ minutes: round * 90 + (n % 2) * 15 });
      try {
        await createReservation(
          ctx,
          {
            starts_at: start.toUTC().toISO() as string,
            party_size: 1 + (n % 3) * 2,
            table_ids: [tables[n] as string],
            guest_name: `Guest ${booked + 1}`,
          },
          'api',
        );
        booked++;
      } catch (error) {
        // Past the last seating: the table's day is full.
        if (!(error instanceof ApiError)) throw error;
      }
    }
  }
  if (booked < reservationCount) throw new Error(`only ${booked} reservations fit on ${date}`);
}

export async function benchReservations(
  options: RoundsOptions,
  load: LoadRunner,
): Promise<{ lines: string[]; failures: string[] }> {
  const failures: string[] = [];
  const bench = await openBenchDatabase('postgres');
  let app: BenchApp | null = null;
  try {
    const db = bench.database.db;
    let snapshot: unknown = null;
    app = await listenWithBareRoute(db, {
      path: barePath,
      schema: AvailabilitySchema,
      handler: async () => snapshot,
    });
    const origin = app.origin;
    const tenant = await makeTenant(systemCtx(db), { plan: 'pro' });
    const ctx: Ctx = { ...systemCtx(db), tenantId: tenant.restaurantId };
    await putStoreHours(ctx, {
      opening_hours: [0, 1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, open: '11:00', close: '23:00' })),
    });
    log(`postgres: ${tableCount} tables, ${reservationCount} reservations…`);
    const tables = await setUpFloor(ctx);
    const date = DateTime.now().setZone(zone).plus({ days: 7 }).toISODate() as string;
    await bookTheDay(ctx, tables, date);

    const token = await tokenFor(systemCtx(db), tenant, ['reservations:read']);
    const headers = { authorization: `Bearer ${token}` };
    const path = `/v1/reservations/availability?date=${date}&party_size=${partySize}`;
    const body = await (await fetch(origin + path, { headers })).text();
    snapshot = JSON.parse(body);
    const slots = (snapshot as { slots?: { available: boolean }[] }).slots ?? [];
    if (slots.length === 0) failures.push(`GET ${path} answered ${body.slice(0, 200)}`);
    const bare = await (await fetch(origin + barePath, { headers })).text();
    if (bare !== body) failures.push('the bare route does not return the bytes of the availability');
    const figures = await measureRoutes(
      'postgres',
      { origin, headers },
      [barePath, path],
      options,
      load,
      failures,
    );
    if ((await (await fetch(origin + path, { headers })).text()) !== body)
      failures.push('the availability changed during the run');

    const run: RouteRun = {
      kind: 'postgres',
      figures,
      ratios: [['ratio availability/bare', (figures[path]?.rps ?? 0) / (figures[barePath]?.rps ?? 1)]],
    };
    const ratio = run.ratios[0]?.[1] ?? 0;
    return {
      lines: [
        `GET /v1/reservations/availability: ${tableCount} tables (4 combinations), ${reservationCount} reservations on ${date}, party of ${partySize}: ${slots.length} slots, ${slots.filter((s) => s.available).length} available (body ${Buffer.byteLength(body)} bytes); ${options.connections} connections, ${options.duration} s per route in ${options.rounds} alternating round(s)`,
        '',
        routeTable([run]),
        '',
        `PostgreSQL ratio availability/bare ${ratio.toFixed(3)}: ${ratio >= 0.3 ? 'meets' : 'BELOW'} the target 0.3`,
        '',
      ],
      failures,
    };
  } finally {
    await closeBoth(app, bench);
  }
}
