import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import Type from 'typebox';
import { Timestamp } from '../../src/domain/shared/common.schema.ts';
import { inPageOrder, type ListOrder, type SortKey } from '../../src/domain/shared/paging.ts';
import { apiRoute } from '../../src/http/api-v1/api-route.ts';
import { errorResponses } from '../../src/http/api-v1/error-responses.ts';
import {
  CursorParam,
  keysetPage,
  LimitParam,
  ListOf,
  type PageQuery,
} from '../../src/http/shared/pagination.ts';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp } from '../harness.ts';

// The keyset paging module over every sort key and direction, through a list that exists only in
// this test, over a table made for it (the lists ordered by updated_at or starts_at come later).
interface Row {
  id: string;
  created_at: Date;
  updated_at: Date;
  starts_at: Date;
}
const Item = Type.Object({
  id: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  starts_at: Timestamp,
});
const pagedItems = apiRoute({
  method: 'GET',
  url: '/test/paged-items',
  auth: { scopes: [] },
  schema: {
    operationId: 'testPagedItems',
    summary: 'paged in any order',
    tags: ['Test'],
    querystring: Type.Object(
      {
        key: Type.Union([Type.Literal('created_at'), Type.Literal('updated_at'), Type.Literal('starts_at')]),
        direction: Type.Union([Type.Literal('asc'), Type.Literal('desc')]),
        limit: LimitParam,
        cursor: Type.Optional(CursorParam),
      },
      { additionalProperties: false },
    ),
    response: {
      200: { ...ListOf(Item), description: 'A page.' },
      ...errorResponses(400, 401, 403, 429, 500),
    },
  },
  handler: async (ctx, request) => {
    const query = request.query as typeof request.query & PageQuery;
    const order: ListOrder = { key: query.key, direction: query.direction };
    const items = ctx.db.withTables<{ paging_items: Row }>().selectFrom('paging_items').selectAll();
    return keysetPage('paging-items', order, query, (page) => inPageOrder(items, order, page).execute());
  },
});

let t: TestApp;
let tenant: Tenant;
before(async () => {
  t = await buildTestApp({ extraApiRoutes: [pagedItems] });
  tenant = await makeTenant(t.ctx);
  await sql`create table paging_items (
    id uuid primary key,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    starts_at timestamptz not null
  )`.execute(t.database.db);
});
after(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: bearer(tenant.token) });
const items = () => t.database.db.withTables<{ paging_items: Row }>();

// Few distinct times per column, so rows tie on every key; random (not time-ordered) ids, so only
// the tie-break by id can put tied rows in the expected order.
const base = Date.parse('2026-11-02T10:00:00.000Z');
let serial = 0;
function newRow(): Row {
  serial += 1;
  const at = (step: number) => new Date(base + step * 60_000);
  return {
    id: randomUUID(),
    created_at: at(serial % 3),
    updated_at: at((serial * 7) % 4),
    starts_at: at((serial * 5) % 5),
  };
}
async function insert(count: number): Promise<Row[]> {
  const rows = Array.from({ length: count }, newRow);
  await items().insertInto('paging_items').values(rows).execute();
  return rows;
}

/** a before b in the order: by the key, then by id, both in the order's direction. */
function compare(order: ListOrder, a: Row, b: Row): number {
  const ascending =
    a[order.key].getTime() - b[order.key].getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return order.direction === 'asc' ? ascending : -ascending;
}

describe('keyset paging in any order', () => {
  for (const key of ['created_at', 'updated_at', 'starts_at'] satisfies SortKey[]) {
    for (const direction of ['asc', 'desc'] as const) {
      test(`${key} ${direction}, ties broken by id: rows inserted between pages make none lost or repeated`, async () => {
        const order: ListOrder = { key, direction };
        await items().deleteFrom('paging_items').execute();
        const listed = await insert(10);
        const seen: string[] = [];
        let url = `/v1/test/paged-items?key=${key}&direction=${direction}&limit=3`;
        for (;;) {
          const res = await get(url);
          assert.equal(res.statusCode, 200, res.body);
          const page = res.json();
          seen.push(...page.data.map((item: { id: string }) => item.id));
          if (page.next_cursor === null) break;
          // The page's last item is the position: rows inserted beyond it belong to the rest of the list.
          const position = listed.find((row) => row.id === seen.at(-1));
          assert.ok(position);
          for (const row of await insert(3)) if (compare(order, row, position) > 0) listed.push(row);
          url = `/v1/test/paged-items?key=${key}&direction=${direction}&limit=3&cursor=${page.next_cursor}`;
        }
        const expected = listed.toSorted((a, b) => compare(order, a, b));
        assert.deepEqual(
          seen,
          expected.map((row) => row.id),
        );
        assert.ok(
          expected.some((row, i) => i > 0 && row[key].getTime() === expected[i - 1]?.[key].getTime()),
          'some rows tie on the key',
        );
      });
    }
  }

  test('a cursor is bound to the order it was made in: another key or direction is 400 on cursor', async () => {
    await insert(3);
    const first = (await get('/v1/test/paged-items?key=updated_at&direction=desc&limit=1')).json();
    for (const other of ['key=updated_at&direction=asc', 'key=starts_at&direction=desc']) {
      const res = await get(`/v1/test/paged-items?${other}&cursor=${first.next_cursor}`);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error.param, 'cursor');
    }
  });
});
