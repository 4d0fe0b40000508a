/*
 * The menu under load (part of `npm run bench` on PostgreSQL; alone with `--only menu`), on a fresh
 * database:
 * 1. PUT /v1/menu merge of a body near 2 MB (5,000 products, 500 option groups, 5,000 options,
 *    100 categories) into an empty restaurant, against a bare bulk insert of the same rows in one
 *    transaction (one INSERT … SELECT FROM jsonb_to_recordset per table, the statements a sync ends
 *    in, without reading, planning or checking anything); each into a restaurant of its own,
 *    alternating, several rounds, medians. Then the same sync again (nothing changes) against the
 *    first.
 * 2. GET /v1/menu of that menu (autocannon) against a bare route serving the same bytes.
 * 3. GET /v1/menu/products?limit=100 p99 idle, and while syncs that change every product's price
 *    run back to back.
 */
import { sql } from 'kysely';
import type { Db } from '../src/db/client.ts';
import { MenuSchema } from '../src/domain/menu/menu.schema.ts';
import { systemCtx } from '../src/domain/shared/context.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { makeTenant, type Tenant } from '../test/harness.ts';
import { type BenchApp, closeBoth, listenWithBareRoute } from './bare-route.ts';
import { openBenchDatabase } from './databases.ts';
import { alignColumns, type Figures, percentile, type RouteRun, routeTable } from './figures.ts';
import { type LoadRunner, measureRoutes, type RoundsOptions } from './rounds.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const menuPath = '/v1/menu';
const barePath = '/bench/menu-bare';
const productsPath = '/v1/menu/products?limit=100';

/** The sync body: a big restaurant's whole menu, near the 2 MB limit. */
function bigMenu(priceShift = 0) {
  const text = (n: number, length: number) => `${n} `.padEnd(length, 'lorem ipsum dolor sit amet ');
  return {
    mode: 'merge',
    categories: Array.from({ length: 100 }, (_, i) => ({ external_id: `cat-${i}`, name: `Category ${i}` })),
    products: Array.from({ length: 5000 }, (_, i) => ({
      external_id: `prod-${i}`,
      name: `Product ${i}`,
      category_external_id: `cat-${i % 100}`,
      description: text(i, 125),
      price: 500 + (i % 1000) + priceShift,
      allergens: ['gluten', 'milk'],
      diets: i % 3 === 0 ? ['vegetarian'] : [],
      tax_class: i % 10 === 0 ? 'drink' : null,
      option_group_external_ids: [`grp-${i % 500}`],
    })),
    option_groups: Array.from({ length: 500 }, (_, g) => ({
      external_id: `grp-${g}`,
      name: `Group ${g}`,
      max_select: 3,
      options: Array.from({ length: 10 }, (_, o) => ({
        external_id: `opt-${g}-${o}`,
        name: `Option ${g}.${o}`,
        price_delta: 50 * o,
      })),
    })),
  };
}

/** The rows a first sync of `body` writes, as the bare bulk insert takes them. */
function rowsOf(body: ReturnType<typeof bigMenu>, appId: string) {
  const now = new Date().toISOString();
  const keyed = (external_id: string) => ({
    id: newId(),
    external_id,
    external_id_app_id: appId,
    created_at: now,
    updated_at: now,
  });
  const categories = body.categories.map((c, position) => ({
    ...keyed(c.external_id),
    name: c.name,
    position,
  }));
  const categoryIds = new Map(categories.map((c) => [c.external_id, c.id]));
  const products = body.products.map((p, i) => ({
    ...keyed(p.external_id),
    category_id: categoryIds.get(p.category_external_id),
    name: p.name,
    description: p.description,
    price: p.price,
    available: true,
    position: Math.floor(i / 100),
    allergens: p.allergens,
    diets: p.diets,
    tax_class: p.tax_class,
  }));
  const groups = body.option_groups.map((g, position) => ({
    ...keyed(g.external_id),
    name: g.name,
    max_select: 3,
    position,
  }));
  const groupIds = new Map(groups.map((g) => [g.external_id, g.id]));
  const options = body.option_groups.flatMap((g) =>
    g.options.map((o, position) => ({
      ...keyed(o.external_id),
      group_id: groupIds.get(g.external_id),
      name: o.name,
      price_delta: o.price_delta,
      position,
    })),
  );
  const links = body.products.map((p, i) => ({
    product_id: (products[i] as { id: string }).id,
    group_id: groupIds.get(p.option_group_external_ids[0] as string),
    position: 0,
  }));
  return { categories, products, groups, options, links };
}

/** The bare baseline: the same rows in one transaction, one INSERT … FROM jsonb_to_recordset per table. */
async function bareInsert(db: Db, tenantId: string, rows: ReturnType<typeof rowsOf>): Promise<void> {
  const insert = (table: string, columns: string, rowsJson: object[]) => {
    const names = columns
      .split(', ')
      .map((c) => c.split(' ')[0])
      .join(', ');
    return sql`INSERT INTO ${sql.table(table)} (tenant_id, ${sql.raw(names)})
      SELECT ${tenantId}::uuid, ${sql.raw(names)}
      FROM jsonb_to_recordset(${JSON.stringify(rowsJson)}::jsonb) AS v(${sql.raw(columns)})`;
  };
  const keyed =
    'id uuid, external_id text, external_id_app_id uuid, created_at timestamptz, updated_at timestamptz';
  await db.transaction().execute(async (trx) => {
    await insert('menu_categories', `${keyed}, name text, position integer`, rows.categories).execute(trx);
    await insert(
      'menu_products',
      `${keyed}, category_id uuid, name text, description text, price integer, available boolean, position integer, allergens text[], diets text[], tax_class text`,
      rows.products,
    ).execute(trx);
    await insert(
      'menu_option_groups',
      `${keyed}, name text, max_select integer, position integer`,
      rows.groups,
    ).execute(trx);
    await insert(
      'menu_options',
      `${keyed}, group_id uuid, name text, price_delta integer, position integer`,
      rows.options,
    ).execute(trx);
    await insert(
      'menu_product_option_groups',
      'product_id uuid, group_id uuid, position integer',
      rows.links,
    ).execute(trx);
  });
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await work();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

async function put(origin: string, token: string, body: string): Promise<string> {
  const res = await fetch(origin + menuPath, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`PUT ${menuPath} → ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

/** The three measurements on PostgreSQL; the report's lines and any failures. */
export async function benchMenu(
  options: RoundsOptions,
  load: LoadRunner,
  syncRounds = 5,
): Promise<{ lines: string[]; failures: string[] }> {
  const failures: string[] = [];
  const bench = await openBenchDatabase('postgres');
  let app: BenchApp | null = null;
  try {
    const db = bench.database.db;
    const ctx = systemCtx(db);
    let snapshot: unknown = null;
    app = await listenWithBareRoute(db, {
      path: barePath,
      schema: MenuSchema,
      handler: async () => snapshot,
    });
    const origin = app.origin;
    const body = JSON.stringify(bigMenu());
    const bytes = Buffer.byteLength(body);
    log(`postgres: menu sync bench, body ${bytes} bytes, ${syncRounds} rounds…`);

    // 1. A first sync and the bare bulk insert, each into a restaurant of its own, alternating.
    const syncMs: number[] = [];
    const bareMs: number[] = [];
    let last: Tenant | null = null;
    for (let round = 0; round <= syncRounds; round++) {
      const tenant = await makeTenant(ctx);
      const other = await makeTenant(ctx);
      const rows = rowsOf(bigMenu(), other.appId);
      const sync = await timed(() => put(origin, tenant.token, body));
      const bare = await timed(() => bareInsert(db, other.restaurantId, rows));
      // Round 0 warms up.
      if (round > 0) {
        syncMs.push(sync.ms);
        bareMs.push(bare.ms);
      }
      last = tenant;
    }
    const tenant = last as Tenant;
    const againMs: number[] = [];
    for (let round = 0; round < syncRounds; round++) {
      const again = await timed(() => put(origin, tenant.token, body));
      if (JSON.parse(again.value).changed !== false) failures.push('the same sync again changed something');
      againMs.push(again.ms);
    }
    const [sync, bare, again] = [median(syncMs), median(bareMs), median(againMs)];

    // 2. GET /v1/menu against the bare route with its bytes.
    const headers = { authorization: `Bearer ${tenant.token}` };
    const menuBody = await (await fetch(origin + menuPath, { headers })).text();
    snapshot = JSON.parse(menuBody);
    const bareBody = await (await fetch(origin + barePath, { headers })).text();
    if (bareBody !== menuBody) failures.push(`the bare route does not return the bytes of GET ${menuPath}`);
    const readOptions = { ...options, connections: Math.min(options.connections, 10) };
    const figures = await measureRoutes(
      'postgres',
      { origin, headers },
      [barePath, menuPath],
      readOptions,
      load,
      failures,
    );

    // 3. GET /v1/menu/products p99, idle and while syncs changing every price run back to back.
    const productsJob = {
      url: origin + productsPath,
      headers,
      connections: readOptions.connections,
      duration: options.duration,
    };
    const idle = await load.run(productsJob);
    let syncing = true;
    let syncs = 0;
    const syncLoop = (async () => {
      for (let shift = 1; syncing; shift++) {
        await put(origin, tenant.token, JSON.stringify(bigMenu(shift)));
        syncs += 1;
      }
    })();
    const busy = await load.run(productsJob);
    syncing = false;
    await syncLoop;
    for (const [label, r] of [
      ['idle', idle],
      ['during syncs', busy],
    ] as const)
      if (r.non2xx + r.errors + r.timeouts > 0)
        failures.push(`GET ${productsPath} ${label}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    const p99 = (r: typeof idle) =>
      percentile(
        [...r.latencies].sort((a, b) => a - b),
        0.99,
      );
    const [idleP99, busyP99] = [p99(idle), p99(busy)];

    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    const menuRun: RouteRun = {
      kind: 'postgres',
      figures: figures as Record<string, Figures>,
      ratios: [['ratio menu/bare', figures[menuPath].rps / figures[barePath].rps]],
    };
    return {
      lines: [
        `PUT ${menuPath} on PostgreSQL (${bench.where}): body ${bytes} bytes (100 categories, 5,000 products, 500 option groups, 5,000 options); medians of ${syncRounds} rounds after one warm-up`,
        alignColumns(
          ['', 'ms', 'ratio', 'target'],
          [
            ['bare bulk insert, one transaction', bare.toFixed(0), '1.00', ''],
            ['first sync (merge into empty)', sync.toFixed(0), ratio(sync, bare), '≤ 1.5× bare'],
            ['same sync again (no change)', again.toFixed(0), ratio(again, sync), '≤ 0.3× first'],
          ],
          1,
        ),
        '',
        `GET ${menuPath} (body ${Buffer.byteLength(menuBody)} bytes): ${readOptions.connections} connections, ${options.duration} s per route in ${options.rounds} round(s); target ≥ 0.3× bare`,
        routeTable([menuRun]),
        '',
        `GET ${productsPath} p99: idle ${idleP99.toFixed(1)} ms, during ${syncs} syncs ${busyP99.toFixed(1)} ms → ${ratio(busyP99, idleP99)}× (target ≤ 3×); ${readOptions.connections} connections, ${options.duration} s each`,
        '',
      ],
      failures,
    };
  } finally {
    await closeBoth(app, bench);
  }
}
