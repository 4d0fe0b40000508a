import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { describeDemoData, seedDemoData } from '../../src/demo/demo-data.ts';
import type { Ctx } from '../../src/domain/shared/context.ts';
import { sha256 } from '../../src/domain/shared/ids.ts';
import { createArea } from '../../src/domain/store/areas.service.ts';
import type { TableInput } from '../../src/domain/store/table.schema.ts';
import { createTable, updateTable } from '../../src/domain/store/tables.service.ts';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp, tokenFor } from '../harness.ts';

/* GET /v1/tables and GET /v1/areas: creation order, pages, the default size, no QR key, scopes. */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const inTenant = (tenant: Tenant): Ctx => ({ ...t.ctx, tenantId: tenant.restaurantId });
const get = (token: string, url: string) => t.app.inject({ method: 'GET', url, headers: bearer(token) });
// biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
const page = async (token: string, url: string): Promise<any> => {
  const res = await get(token, url);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

function assertError(
  res: { statusCode: number; json(): unknown },
  status: number,
  code: string,
  param?: string,
) {
  assert.equal(res.statusCode, status);
  const { error } = res.json() as { error: { code: string; param?: string } };
  assert.equal(error.code, code);
  assert.equal(error.param, param);
}

async function addTables(tenant: Tenant, inputs: TableInput[]): Promise<string[]> {
  const ids: string[] = [];
  for (const input of inputs) {
    ids.push((await createTable(inTenant(tenant), input)).id);
    t.clock.advance(60_000);
  }
  return ids;
}

/** A cursor made by hand, with the right filter digest (no filters) around any position. */
const forgedCursor = (position: unknown) =>
  Buffer.from(JSON.stringify({ f: sha256(JSON.stringify([])).slice(0, 16), p: position })).toString(
    'base64url',
  );

describe('lists in creation order', () => {
  test('tables come oldest first, page by page through to the last; limit may change between pages', async () => {
    const tenant = await makeTenant(t.ctx);
    // Neither alphabetical nor by size, and two made in the same millisecond.
    const labels = ['12', '3', 'Bar 1', 'A', '10', 'B2', '1'];
    const ids: string[] = [];
    for (const [i, label] of labels.entries()) {
      ids.push((await createTable(inTenant(tenant), { label, seats: 8 - i })).id);
      if (i !== 2) t.clock.advance(60_000);
    }
    // A change does not move a table in the list.
    await updateTable(inTenant(tenant), ids[1] as string, { label: '3', seats: 2 });

    const first = await page(tenant.token, '/v1/tables?limit=3');
    assert.deepEqual(Object.keys(first), ['object', 'data', 'has_more', 'next_cursor']);
    assert.equal(first.object, 'list');
    assert.equal(first.has_more, true);
    const second = await page(tenant.token, `/v1/tables?limit=2&cursor=${first.next_cursor}`);
    assert.equal(second.has_more, true);
    const last = await page(tenant.token, `/v1/tables?cursor=${second.next_cursor}&limit=100`);
    assert.equal(last.has_more, false);
    assert.equal(last.next_cursor, null);
    assert.deepEqual(
      [first, second, last].map((p: { data: unknown[] }) => p.data.length),
      [3, 2, 2],
    );
    const listed = [...first.data, ...second.data, ...last.data];
    assert.deepEqual(
      listed.map((table: { id: string }) => table.id),
      ids,
    );
    assert.deepEqual(
      listed.map((table: { label: string }) => table.label),
      labels,
    );
    assert.deepEqual(
      (await page(tenant.token, '/v1/tables')).data.map((table: { id: string }) => table.id),
      ids,
    );
  });

  test('areas likewise; limit is 1 to 100, 25 by default', async () => {
    const tenant = await makeTenant(t.ctx);
    const ids: string[] = [];
    for (let i = 0; i < 26; i += 1) {
      ids.push((await createArea(inTenant(tenant), { name: `Room ${26 - i}` })).id);
      t.clock.advance(1000);
    }
    const first = await page(tenant.token, '/v1/areas');
    assert.equal(first.data.length, 25);
    assert.equal(first.has_more, true);
    const rest = await page(tenant.token, `/v1/areas?cursor=${first.next_cursor}`);
    assert.deepEqual(
      [...first.data, ...rest.data].map((area: { id: string }) => area.id),
      ids,
    );
    assert.equal(rest.next_cursor, null);
    assert.equal((await page(tenant.token, '/v1/areas?limit=1')).data.length, 1);
    assert.equal((await page(tenant.token, '/v1/areas?limit=100')).data.length, 26);
    for (const url of ['/v1/areas', '/v1/tables']) {
      for (const limit of ['0', '101', 'ten', '1.5', '-1']) {
        assertError(await get(tenant.token, `${url}?limit=${limit}`), 400, 'invalid_request', 'limit');
      }
    }
  });

  test('a cursor belongs to its list: another list’s, a forged or a garbled one is 400 on cursor', async () => {
    const tenant = await makeTenant(t.ctx);
    await addTables(tenant, [{ label: '1' }, { label: '2' }]);
    for (let i = 0; i < 2; i += 1) await createArea(inTenant(tenant), { name: `Area ${i}` });
    const tablesCursor = (await page(tenant.token, '/v1/tables?limit=1')).next_cursor;
    const areasCursor = (await page(tenant.token, '/v1/areas?limit=1')).next_cursor;
    assert.ok(tablesCursor && areasCursor);
    assertError(
      await get(tenant.token, `/v1/areas?cursor=${tablesCursor}`),
      400,
      'invalid_request',
      'cursor',
    );
    assertError(
      await get(tenant.token, `/v1/tables?cursor=${areasCursor}`),
      400,
      'invalid_request',
      'cursor',
    );
    for (const position of [
      ['tables', '2026-11-02T10:00:00.000Z', 'not-a-uuid'],
      ['tables', 'yesterday', '0190a0a0-0000-7000-8000-000000000000'],
      ['tables', '2026-13-45T10:00:00.000Z', '0190a0a0-0000-7000-8000-000000000000'],
      ['tables', '2026-11-02T10:00:00.000Z'],
      { created_at: '2026-11-02T10:00:00.000Z', id: '0190a0a0-0000-7000-8000-000000000000' },
    ]) {
      const res = await get(tenant.token, `/v1/tables?cursor=${forgedCursor(position)}`);
      assertError(res, 400, 'invalid_request', 'cursor');
    }
    assertError(await get(tenant.token, '/v1/tables?cursor=not-a-cursor'), 400, 'invalid_request', 'cursor');
    // The lists have no filters: anything else sent with a cursor is an unknown parameter.
    assertError(
      await get(tenant.token, `/v1/tables?cursor=${tablesCursor}&area_id=x`),
      400,
      'invalid_request',
      'area_id',
    );
    // The position a hand-made cursor names is honoured like any other (the cursor is opaque, not secret).
    const tables = (await page(tenant.token, '/v1/tables')).data;
    const after = forgedCursor([
      'tables',
      '2026-11-02T10:00:00.000Z',
      '00000000-0000-7000-8000-000000000000',
    ]);
    assert.ok(tables.length === 2);
    assert.deepEqual((await page(tenant.token, `/v1/tables?cursor=${after}`)).data, tables);
  });
});

describe('what a table and an area show', () => {
  test('seats: the table’s own, else the restaurant’s default table size as it is now', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await makeTenant(t.ctx);
    const [own, unset] = await addTables(tenant, [{ label: 'Two-top', seats: 2 }, { label: 'Standard' }]);
    await addTables(other, [{ label: 'Elsewhere' }]);
    const seats = async (of: Tenant) =>
      Object.fromEntries(
        (await page(of.token, '/v1/tables')).data.map((table: { id: string; seats: number }) => [
          table.id,
          table.seats,
        ]),
      );
    assert.deepEqual(await seats(tenant), { [own as string]: 2, [unset as string]: 4 });
    await t.database.db
      .updateTable('stores')
      .set({ default_table_seats: 6 })
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    assert.deepEqual(await seats(tenant), { [own as string]: 2, [unset as string]: 6 });
    assert.deepEqual(Object.values(await seats(other)), [4]);
  });

  test('exactly the spec’s fields, and never the QR key', async () => {
    const tenant = await makeTenant(t.ctx);
    const terrace = await createArea(inTenant(tenant), { name: 'Terrace', bookable_online: false });
    const inside = await createArea(inTenant(tenant), { name: 'Dining room' });
    const [bar, patio] = await addTables(tenant, [
      { label: 'Bar 1', seats: 2, bookable_online: false },
      { label: 'Patio 4', seats: 8, area_id: terrace.id, min_party: 5 },
    ]);
    const tables = await page(tenant.token, '/v1/tables');
    assert.deepEqual(tables.data, [
      {
        object: 'table',
        id: bar,
        label: 'Bar 1',
        seats: 2,
        area_id: null,
        bookable_online: false,
        min_party: null,
      },
      {
        object: 'table',
        id: patio,
        label: 'Patio 4',
        seats: 8,
        area_id: terrace.id,
        bookable_online: true,
        min_party: 5,
      },
    ]);
    const areas = await page(tenant.token, '/v1/areas');
    assert.deepEqual(areas.data, [
      { object: 'area', id: terrace.id, name: 'Terrace', bookable_online: false },
      { object: 'area', id: inside.id, name: 'Dining room', bookable_online: true },
    ]);

    const keys = await t.database.db
      .selectFrom('store_tables')
      .select('qr_key')
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    assert.equal(keys.length, 2);
    for (const url of ['/v1/tables', '/v1/tables?limit=1', '/v1/areas']) {
      const body = (await get(tenant.token, url)).body;
      assert.doesNotMatch(body, /qr/i, url);
      for (const { qr_key } of keys) assert.ok(!body.includes(qr_key), `${url} shows a QR key`);
    }
  });

  test('another restaurant’s tables and areas are never listed', async () => {
    const mine = await makeTenant(t.ctx);
    const theirs = await makeTenant(t.ctx);
    const myTables = await addTables(mine, [{ label: '1' }, { label: '2' }]);
    const theirTables = await addTables(theirs, [{ label: '1' }]);
    const myArea = await createArea(inTenant(mine), { name: 'Inside' });
    const theirArea = await createArea(inTenant(theirs), { name: 'Inside' });
    const ids = async (tenant: Tenant, url: string) =>
      (await page(tenant.token, url)).data.map((item: { id: string }) => item.id);
    assert.deepEqual(await ids(mine, '/v1/tables'), myTables);
    assert.deepEqual(await ids(theirs, '/v1/tables'), theirTables);
    assert.deepEqual(await ids(mine, '/v1/areas'), [myArea.id]);
    assert.deepEqual(await ids(theirs, '/v1/areas'), [theirArea.id]);
  });
});

describe('who may read them', () => {
  test('store:read or reservations:read, on every plan; a token with neither → 403 insufficient_scope', async () => {
    const tenant = await makeTenant(t.ctx, { plan: 'starter' });
    const [table] = await addTables(tenant, [{ label: '1' }]);
    const area = await createArea(inTenant(tenant), { name: 'Inside' });
    const neither = await tokenFor(t.ctx, tenant, [
      'orders:read',
      'orders:write',
      'menu:read',
      'menu:write',
      'store:write',
      'reservations:write',
      'reports:read',
    ]);
    for (const [url, id] of [
      ['/v1/tables', table],
      ['/v1/areas', area.id],
    ] as const) {
      for (const scope of ['store:read', 'reservations:read'] as const) {
        const listed = await page(await tokenFor(t.ctx, tenant, [scope]), url);
        assert.deepEqual(
          listed.data.map((item: { id: string }) => item.id),
          [id],
          `${url} with ${scope}`,
        );
      }
      const refused = await get(neither, url);
      assertError(refused, 403, 'insufficient_scope');
      assert.equal(
        refused.headers['www-authenticate'],
        'Bearer realm="servery", error="insufficient_scope", scope="store:read reservations:read"',
      );
    }
  });
});

test('the demo restaurants get a floor: two areas, ten tables of various sizes', async () => {
  const demoApp = await buildTestApp();
  try {
    const demo = await seedDemoData(demoApp.database.db, demoApp.clock);
    assert.ok(demo);
    const read = async (url: string) => {
      const res = await demoApp.app.inject({ method: 'GET', url, headers: bearer(demo.accessToken) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data;
    };
    const areas = await read('/v1/areas');
    const tables = await read('/v1/tables');
    assert.deepEqual(
      areas.map((area: { name: string }) => area.name),
      ['Dining room', 'Terrace'],
    );
    assert.equal(tables.length, 10);
    assert.ok(new Set(tables.map((table: { seats: number }) => table.seats)).size >= 3, 'various sizes');
    assert.deepEqual(
      tables
        .filter((table: { min_party: number | null }) => table.min_party !== null)
        .map((table: { label: string }) => table.label),
      ['6'],
    );
    assert.deepEqual(
      tables
        .filter((table: { bookable_online: boolean }) => !table.bookable_online)
        .map((table: { label: string }) => table.label),
      ['Bar'],
    );
    const inArea = (index: number) =>
      tables.filter((table: { area_id: string }) => table.area_id === areas[index].id).length;
    assert.deepEqual([inArea(0), inArea(1)], [6, 3]);
    // The owner's live restaurant has the same floor, and the description says so.
    const live = await demoApp.database.db
      .selectFrom('store_tables')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('tenant_id', '=', demo.restaurant.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(live.n), 10);
    assert.match(
      describeDemoData(demo, 'http://servery.test'),
      /Both restaurants +open Tue–Sun [^\n]+;\n +2 areas \(Dining room, Terrace\), 10 tables;\n +a menu of /,
    );
  } finally {
    await demoApp.close();
  }
});
