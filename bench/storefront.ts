/*
 * The storefront's menu page under load (alone with `--only storefront`), on a fresh PostgreSQL
 * database: a restaurant of 200 products in 10 categories (descriptions, allergens and diets, an
 * option group on every fifth, 10 sold out), its address, phone and weekly hours. Issue 29's
 * targets: the page's HTML and CSS under 50 KB before images as a browser receives them (pages and
 * assets go gzip- or brotli-compressed; the bytes before compression are reported too), and
 * GET /s/{slug} at ≥ 0.3× a bare route serving the same bytes, in alternating rounds as the other
 * HTTP benches (the load generator asks for no compression).
 */
import { gzipSync } from 'node:zlib';
import { type Ctx, systemCtx } from '../src/domain/shared/context.ts';
import { putStoreHours, updateStore } from '../src/domain/store/store.service.ts';
import { makeTenant } from '../test/harness.ts';
import { type BenchApp, closeBoth, listenWithBareRoute } from './bare-route.ts';
import { openBenchDatabase } from './databases.ts';
import { alignColumns, type RouteRun, routeTable } from './figures.ts';
import { type LoadRunner, measureRoutes, type RoundsOptions } from './rounds.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const barePath = '/bench/storefront-bare';
const productCount = 200;
const kilobyte = 1024;

/** A whole menu of 200 products as an app syncs it. */
function menuOf200() {
  const lorem = 'Slow-cooked, seasonal, made here every morning with olive oil, herbs and care';
  return {
    mode: 'replace',
    categories: Array.from({ length: 10 }, (_, i) => ({
      external_id: `cat-${i}`,
      name: `Category ${i + 1}`,
    })),
    products: Array.from({ length: productCount }, (_, i) => ({
      external_id: `prod-${i}`,
      name: `Dish number ${i + 1}`,
      category_external_id: `cat-${i % 10}`,
      description: lorem.slice(0, 40 + (i % 40)),
      price: 650 + (i % 25) * 50,
      available: i % 20 !== 7,
      allergens: i % 2 === 0 ? ['gluten', 'milk'] : ['celery'],
      diets: i % 3 === 0 ? ['vegetarian'] : [],
      option_group_external_ids: i % 5 === 0 ? ['sides'] : [],
    })),
    option_groups: [
      {
        external_id: 'sides',
        name: 'Side',
        min_select: 1,
        max_select: 1,
        options: ['Fries', 'Salad', 'Bread'].map((name, o) => ({
          external_id: `side-${o}`,
          name,
          price_delta: 0,
        })),
      },
    ],
  };
}

export async function benchStorefront(
  options: RoundsOptions,
  load: LoadRunner,
): Promise<{ lines: string[]; failures: string[] }> {
  const failures: string[] = [];
  const bench = await openBenchDatabase('postgres');
  let app: BenchApp | null = null;
  try {
    const db = bench.database.db;
    let snapshot = '';
    app = await listenWithBareRoute(db, {
      path: barePath,
      contentType: 'text/html; charset=utf-8',
      handler: async () => snapshot,
    });
    const origin = app.origin;
    const tenant = await makeTenant(systemCtx(db), { plan: 'pro' });
    const ctx: Ctx = { ...systemCtx(db), tenantId: tenant.restaurantId };
    await updateStore(ctx, {
      order_types: { pickup: true, delivery: true },
      contact: { phone: '+49 30 1234567', email: null, website: null },
      address_line: 'Torstraße 1, 10115 Berlin',
      location: { lat: 52.53, lon: 13.4 },
    });
    await putStoreHours(ctx, {
      opening_hours: [1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, open: '11:30', close: '22:30' })),
    });
    const sync = await fetch(`${origin}/v1/menu`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(menuOf200()),
    });
    if (!sync.ok) throw new Error(`PUT /v1/menu → ${sync.status}: ${(await sync.text()).slice(0, 300)}`);
    const { slug } = await db
      .selectFrom('restaurants')
      .select('slug')
      .where('id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();
    const path = `/s/${slug}`;
    log(`postgres: the storefront's menu of ${productCount} products…`);

    const html = await (await fetch(origin + path)).text();
    const items = html.match(/<li class="menu-item[ "]/g)?.length ?? 0;
    if (items !== productCount) failures.push(`the menu page shows ${items} products, not ${productCount}`);
    // The page's stylesheets, and those they import.
    const sheets: { url: string; bytes: Buffer }[] = [];
    const pending = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1] as string);
    while (pending.length > 0) {
      const url = new URL(pending.shift() as string, origin + path).href;
      if (sheets.some((sheet) => sheet.url === url)) continue;
      const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
      sheets.push({ url, bytes });
      for (const m of bytes.toString('utf8').matchAll(/@import url\("([^"]+)"\)/g))
        pending.push(new URL(m[1] as string, url).href);
    }
    const htmlBytes = Buffer.byteLength(html);
    const cssBytes = sheets.reduce((sum, sheet) => sum + sheet.bytes.length, 0);
    const gzipped =
      gzipSync(html).length + sheets.reduce((sum, sheet) => sum + gzipSync(sheet.bytes).length, 0);
    const total = htmlBytes + cssBytes;
    // As a browser receives them: the pages and assets are sent compressed (gzip at the least).
    if (gzipped >= 50 * kilobyte)
      failures.push(`the menu page's HTML and CSS are ${gzipped} bytes gzipped, not under 50 KB`);

    snapshot = html;
    if ((await (await fetch(origin + barePath)).text()) !== html)
      failures.push('the bare route does not return the bytes of the menu page');
    const figures = await measureRoutes(
      'postgres',
      { origin, headers: {} },
      [barePath, path],
      options,
      load,
      failures,
    );
    const ratio = (figures[path]?.rps ?? 0) / (figures[barePath]?.rps ?? 1);
    if (ratio < 0.3) failures.push(`GET /s/{slug} at ${ratio.toFixed(2)}× the bare route, below 0.3`);
    const run: RouteRun = { kind: 'postgres', figures, ratios: [['ratio menu page/bare', ratio]] };
    const kb = (bytes: number) => (bytes / kilobyte).toFixed(1);
    return {
      lines: [
        `GET /s/{slug}: a menu of ${productCount} products in 10 categories, ${options.connections} connections, ${options.duration} s per route in ${options.rounds} alternating round(s); targets: HTML and CSS under 50 KB as sent (gzip), ≥ 0.3× bare`,
        alignColumns(
          ['', 'KB', 'gzip KB'],
          [
            ['HTML', kb(htmlBytes), kb(gzipSync(html).length)],
            [`CSS (${sheets.length} files)`, kb(cssBytes), kb(gzipped - gzipSync(html).length)],
            ['together', kb(total), kb(gzipped)],
          ],
          1,
        ),
        '',
        routeTable([run]),
        `ratio menu page/bare ${ratio.toFixed(3)}: ${ratio >= 0.3 ? 'meets' : 'BELOW'} the target 0.3`,
        '',
      ],
      failures,
    };
  } finally {
    await closeBoth(app, bench);
  }
}
