import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { pagesInChromium, screenshot } from '../browser.ts';
import { makeTenant, newAccount, password } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { type BulkOrder, berlin, insertOrders, simpleOrder } from '../reports/report-helpers.ts';

/*
 * The reports page in headless Chromium, as an owner uses it: the sales chart drawn by Chart.js
 * (served from our host; every request elsewhere is aborted and none is made), the products
 * report with its top-10 chart, an error beside its field, the CSV download, and the page in
 * French. Screenshots under test-results/dashboard-reports-*.png.
 */
const pages = pagesInChromium();

const menu = [
  ['Margherita', 950],
  ['Diavola', 1150],
  ['Quattro formaggi', 1250],
  ['Calzone', 1100],
  ['Lasagne', 1300],
  ['Tiramisù', 650],
  ['Panna cotta', 600],
  ['Lemonade', 350],
  ['Espresso', 250],
  ['Insalata mista', 800],
  ['Focaccia', 550],
  ['Minestrone', 700],
] as const;

/** Orders of the menu's products on each of the last 30 days (to Nov 2, the test clock's day), some days busier. */
function monthOfOrders(productIds: Map<string, string>): BulkOrder[] {
  const orders: BulkOrder[] = [];
  for (let day = 0; day < 30; day += 1) {
    const date = new Date(Date.UTC(2026, 9, 4 + day)).toISOString().slice(0, 10);
    const count = 2 + ((day * 7) % 5) + (day % 7 === 5 ? 4 : 0);
    for (let n = 0; n < count; n += 1) {
      const [name, price] = menu[(day + n * 5) % menu.length] ?? menu[0];
      orders.push(
        simpleOrder(berlin(`${date}T${String(11 + n).padStart(2, '0')}:15`), {
          type: n % 3 === 0 ? 'delivery' : 'pickup',
          tip: n % 2 === 0 ? 100 : 0,
          lines: [
            {
              product_id: productIds.get(name) as string,
              name,
              quantity: 1 + (n % 2),
              unit_price: price,
              tax_rate_bps: 700,
            },
          ],
        }),
      );
    }
  }
  return orders;
}

test('an owner reads the sales and products reports, with charts, and downloads the CSV', async () => {
  const tenant = await makeTenant(pages.t.ctx);
  const owner = await newAccount(pages.t, false);
  await pages.t.ctx.db
    .insertInto('restaurant_members')
    .values({ tenant_id: tenant.restaurantId, account_id: owner.id, role: 'owner' })
    .execute();
  const productIds = new Map<string, string>();
  for (const [name, price] of menu)
    productIds.set(name, (await ok(pages.t, tenant.token, 'POST', '/menu/products', { name, price })).id);
  await insertOrders(pages.t.database.db, tenant.restaurantId, monthOfOrders(productIds));
  const { name: restaurantName } = await pages.t.ctx.db
    .selectFrom('restaurants')
    .select('name')
    .where('id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();

  // Nothing may leave our host: every other request is aborted, and recorded.
  const elsewhere: string[] = [];
  await pages.browser.route('**/*', (route) => {
    if (route.request().url().startsWith(pages.serviceUrl)) return route.continue();
    elsewhere.push(route.request().url());
    return route.abort();
  });
  const page = await pages.browser.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    // The form's error page is answered with 400, which Chromium logs as a failed load.
    if (message.type() === 'error' && !message.text().includes('status of 400'))
      problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));

  await page.goto(`${pages.serviceUrl}/dashboard/sign-in`);
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your restaurants' }).waitFor();
  await page.getByRole('link', { name: restaurantName }).click();
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Reports' })
    .click();
  await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
  assert.equal(await page.getByLabel('From').inputValue(), '2026-10-04');
  assert.equal(await page.getByLabel('To (inclusive)').inputValue(), '2026-11-02');

  // The sales chart: Chart.js drew into the canvas, which is named for assistive technology.
  const chart = page.getByRole('img', { name: /Bar chart of the gross total per period/ });
  await chart.waitFor();
  assert.deepEqual(await chartState(page), { bars: 30, series: ['Gross total', 'Orders'], painted: true });
  assert.equal(await page.getByRole('table', { name: 'Per period' }).getByRole('row').count(), 1 + 30 + 1);
  await screenshot(page, 'dashboard-reports-sales');

  // By week.
  await page.getByLabel('Group by').selectOption('week');
  await page.getByRole('button', { name: 'Show report' }).click();
  await page.getByRole('rowheader', { name: 'Oct 26 – Nov 1, 2026' }).waitFor();
  assert.equal((await chartState(page)).bars, 6);

  // The CSV of the report shown.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download CSV' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'sales-2026-10-04-2026-11-02.csv');
  const csv = readFileSync(await download.path(), 'utf8').split('\r\n');
  assert.match(csv[0] ?? '', /^\uFEFFfrom,to,currency,orders,subtotal,/);
  assert.match(csv[1] ?? '', /^2026-10-04,2026-10-04,EUR,\d+,\d+\.\d\d,/);
  assert.equal(csv.length, 1 + 6 + 1);

  // Products: a bar for each of the top 10, all 12 in the table.
  await page.getByLabel('Report').selectOption('products');
  await page.getByRole('button', { name: 'Show report' }).click();
  await page.getByRole('img', { name: /Horizontal bar chart of the revenue/ }).waitFor();
  assert.deepEqual(await chartState(page), { bars: 10, series: ['Revenue'], painted: true });
  assert.equal(
    await page.getByRole('table', { name: 'Products by revenue' }).getByRole('row').count(),
    1 + 12,
  );
  await screenshot(page, 'dashboard-reports-products');

  // An error: the last day before the first, beside its field; no report, no chart.
  await page.getByLabel('From').fill('2026-11-02');
  await page.getByLabel('To (inclusive)').fill('2026-10-02');
  await page.getByRole('button', { name: 'Show report' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByLabel('To (inclusive)').getAttribute('aria-invalid'), 'true');
  assert.equal(
    await page.locator('#to-error').textContent(),
    'The last day must be on or after the first day.',
  );
  assert.equal(await page.locator('canvas').count(), 0);
  await screenshot(page, 'dashboard-reports-error');

  // In French.
  await page.getByRole('link', { name: 'Français' }).click();
  await page.getByRole('heading', { name: 'Rapports', level: 1 }).waitFor();
  await page.getByRole('img', { name: /Graphique en barres du total TTC/ }).waitFor();
  assert.equal((await chartState(page)).painted, true);
  assert.ok(await page.getByRole('link', { name: 'Télécharger le CSV' }).isVisible());
  await screenshot(page, 'dashboard-reports-fr');
  await page.setViewportSize({ width: 375, height: 740 });
  await screenshot(page, 'dashboard-reports-fr-mobile');

  assert.deepEqual(elsewhere, [], 'no request left our host');
  assert.deepEqual(problems, [], 'no script error, no policy violation');
  await page.close();
});

/**
 * The chart as Chart.js holds it, and whether its canvas has pixels painted, once the page's
 * scripts have drawn it (the tables above it are there before).
 */
async function chartState(page: import('playwright-core').Page) {
  await page.waitForFunction(() => {
    const chart = (window as unknown as { Chart?: { getChart(c: unknown): unknown } }).Chart;
    return chart?.getChart(document.getElementById('report-chart')) !== undefined;
  });
  return page.evaluate(() => {
    const canvas = document.getElementById('report-chart') as HTMLCanvasElement;
    type Drawn = { data: { labels: string[]; datasets: { label: string }[] } };
    const chart = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): Drawn } }).Chart.getChart(
      canvas,
    );
    const { data } = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height) ?? { data: [] };
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if ((data[i] ?? 0) > 0) painted += 1;
    return {
      bars: chart.data.labels.length,
      series: chart.data.datasets.map((set) => set.label),
      painted: painted > 1000,
    };
  });
}
