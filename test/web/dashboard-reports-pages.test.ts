import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { ProductReport, SalesReport } from '../../src/domain/reports/report.schema.ts';
import { productReport, salesReport } from '../../src/domain/reports/reports.service.ts';
import { restaurantCtxOrNull } from '../../src/domain/restaurants/restaurant-gate.ts';
import { accountCtx, type Ctx } from '../../src/domain/shared/context.ts';
import { decimalAmount } from '../../src/http/dashboard/pages/reports-csv.ts';
import { formatMoney } from '../../src/i18n/money.ts';
import { buildTestApp, newAccount, type TestApp } from '../harness.ts';
import { Browser, csrfOf, makeRestaurant } from '../oauth/consent-helpers.ts';
import { type OrderingTenant, orderingTenant, pickupOrder, place } from '../orders/order-helpers.ts';
import { berlin, insertOrders, simpleOrder } from '../reports/report-helpers.ts';

/*
 * The dashboard's reports page over HTTP: its figures are the reports services' (sales by period
 * with totals, products sold) for orders placed by guests, money in the restaurant's currency and
 * the viewer's language; its chart's data block; the form's defaults (the last 30 days,
 * restaurant-local) and its errors (the spec's limits); the CSV files (headers, decimal amounts,
 * RFC 4180 quoting, formula injection defused); the page's script policy and Chart.js served from
 * our host; staff and another restaurant's owner get 404.
 */
let t: TestApp;
let tenant: OrderingTenant;
let owner: Browser;
let ownerCtx: Ctx;
let reports: string;
let ownerEmail: string;

/** Product names a spreadsheet would misread: a formula, quotes, a comma, a line break. */
const trickyNames = [
  '=HYPERLINK("http://evil.example","x")',
  'Pizza, "Diavola"\nextra hot',
  '@SUM(A1)',
  '-2+3',
];

before(async () => {
  t = await buildTestApp();
  tenant = await orderingTenant(t);
  // Today (Nov 2, 11:00 in Berlin): two orders placed by guests; one more cancelled.
  await place(t, tenant);
  await place(
    t,
    tenant,
    pickupOrder(tenant, {
      type: 'delivery',
      delivery: { address: 'Beispielstraße 12', postal_code: '10115', city: 'Berlin' },
      items: [{ product_id: tenant.products.lemonade, quantity: 3, option_ids: [tenant.options.small] }],
    }),
  );
  // Earlier in the default period, orders of products with awkward names.
  await insertOrders(
    t.ctx.db,
    tenant.restaurantId,
    trickyNames.map((name, index) =>
      simpleOrder(berlin(`2026-10-2${index}T12:00`), {
        tip: 100,
        lines: [
          { product_id: tenant.products.pizza, name, quantity: 1, unit_price: 1250, tax_rate_bps: 700 },
        ],
      }),
    ),
  );
  // Beside the period: the day before it starts.
  await insertOrders(t.ctx.db, tenant.restaurantId, [simpleOrder(berlin('2026-10-03T23:30'))]);

  const account = await newAccount(t, false);
  await t.ctx.db
    .insertInto('restaurant_members')
    .values({ tenant_id: tenant.restaurantId, account_id: account.id, role: 'owner' })
    .execute();
  ownerEmail = account.email;
  owner = await signedIn(account.email);
  const ctx = await restaurantCtxOrNull(accountCtx(t.ctx.db, t.clock, account.id), tenant.restaurantId, [
    'owner',
  ]);
  assert.ok(ctx);
  ownerCtx = ctx;
  reports = `/dashboard/restaurants/${tenant.restaurantId}/reports`;
});
after(() => t.close());

async function signedIn(email: string): Promise<Browser> {
  const browser = new Browser(t.app);
  const form = await browser.get('/dashboard/sign-in');
  const res = await browser.post('/dashboard/sign-in', {
    _csrf: csrfOf(form),
    email,
    password: 'correct horse battery',
  });
  assert.equal(res.statusCode, 303);
  return browser;
}

const euro = (minor: number, locale: 'en' | 'de' = 'en') => formatMoney(minor, 'EUR', locale);
/** The text of the page's table with this caption, a row a line and its cells joined with `|`. */
function tableOf(res: LightMyRequestResponse, caption: string): string[] {
  const table = new RegExp(`<caption[^>]*>${caption}</caption>([\\s\\S]*?)</table>`).exec(res.body)?.[1];
  assert.ok(table, `no table "${caption}"`);
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? '').matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)]
      .map((cell) => (cell[1] ?? '').replace(/<[^>]+>/g, '').trim())
      .join('|'),
  );
}
/** The page's `<dl>` of totals as pairs. */
function totalsOf(res: LightMyRequestResponse): Record<string, string> {
  const list = /<dl class="summary report-totals">([\s\S]*?)<\/dl>/.exec(res.body)?.[1] ?? '';
  return Object.fromEntries([...list.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/g)].map((m) => [m[1], m[2]]));
}
const chartOf = (res: LightMyRequestResponse) =>
  JSON.parse(
    /<script type="application\/json" id="report-chart-data">([\s\S]*?)<\/script>/.exec(res.body)?.[1] ??
      'null',
  );
const errorsOf = (res: LightMyRequestResponse) =>
  [...res.body.matchAll(/<p class="field-error" id="([^"]+)-error">(.*?)<\/p>/g)].map((m) => [m[1], m[2]]);

describe('the sales report', () => {
  test('opens on the last 30 days (restaurant-local) with the service’s figures', async () => {
    const res = await owner.get(reports);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /<h1>Reports<\/h1>/);
    assert.match(res.body, new RegExp(`<a href="${reports}" aria-current="page">Reports</a>`));
    assert.match(res.body, /id="from" name="from" type="date" required value="2026-10-04"/);
    assert.match(res.body, /id="to" name="to" type="date" required value="2026-11-02"/);
    assert.match(res.body, /<option value="sales" selected>Sales<\/option>/);
    assert.match(res.body, /<option value="day" selected>Day<\/option>/);

    const report: SalesReport = await salesReport(ownerCtx, {
      from: '2026-10-04',
      to: '2026-11-02',
      group_by: 'day',
    });
    assert.equal(report.totals.orders, 6, 'two placed today, four inserted; not the one before');
    assert.deepEqual(totalsOf(res), {
      Orders: '6',
      'Gross total': euro(report.totals.total),
      'Net (before VAT)': euro(report.totals.net),
      VAT: euro(report.totals.tax),
      Tips: euro(report.totals.tips),
      Items: euro(report.totals.subtotal),
      'Delivery fees': euro(report.totals.delivery_fees),
      'Service fees': euro(report.totals.service_fees),
      Discounts: euro(report.totals.discounts),
    });
    const rows = tableOf(res, 'Per period');
    assert.equal(rows.length, 1 + 30 + 1, 'header, a row a day, the totals');
    assert.equal(rows[0], 'Period|Orders|Gross total|Net (before VAT)|VAT|Tips|Discounts');
    assert.equal(rows[1], `Sun, Oct 4, 2026|0|${euro(0)}|${euro(0)}|${euro(0)}|${euro(0)}|${euro(0)}`);
    const today = report.rows.at(-1);
    assert.ok(today);
    assert.equal(
      rows[30],
      `Mon, Nov 2, 2026|2|${euro(today.total)}|${euro(today.net)}|${euro(today.tax)}|${euro(0)}|${euro(0)}`,
    );
    assert.equal(
      rows[31],
      `All|6|${euro(report.totals.total)}|${euro(report.totals.net)}|${euro(report.totals.tax)}|${euro(report.totals.tips)}|${euro(0)}`,
    );
    assert.deepEqual(tableOf(res, 'By order type').slice(1), [
      `Pickup|5|${euro(report.totals.by_type.pickup.total)}`,
      `Delivery|1|${euro(report.totals.by_type.delivery.total)}`,
      `Dine-in|0|${euro(0)}`,
    ]);
    assert.deepEqual(
      tableOf(res, 'VAT by rate').slice(1),
      report.totals.tax_lines.map(
        (line) =>
          `${line.rate_bps === null ? 'No rate' : `${line.rate_bps / 100}%`}|${euro(line.gross)}|${euro(line.net ?? 0)}|${euro(line.tax ?? 0)}`,
      ),
    );

    // The chart's figures: the gross total in euros and the orders, per day.
    assert.deepEqual(chartOf(res), {
      locale: 'en',
      currency: 'EUR',
      kind: 'sales',
      labels: rows.slice(1, 31).map((row) => row.split('|')[0]),
      series: [
        { label: 'Gross total', values: report.rows.map((row) => row.total / 100) },
        { label: 'Orders', values: report.rows.map((row) => row.orders) },
      ],
    });
    // Hidden until the script draws it: without JavaScript, the tables alone.
    assert.match(res.body, /<div class="report-chart" id="report-chart-box" hidden>/);
    assert.match(res.body, /<canvas id="report-chart" role="img" aria-label="Bar chart of the gross total/);
    assert.match(
      res.body,
      new RegExp(
        `<a class="button" href="${reports}/sales.csv\\?from=2026-10-04&amp;to=2026-11-02&amp;group_by=day" download>Download CSV</a>`,
      ),
    );
  });

  test('by week, in German: periods as ranges, money in German', async () => {
    const german = await signedIn(ownerEmail);
    const res = await german.get(`${reports}?kind=sales&from=2026-10-01&to=2026-11-02&group_by=week&lang=de`);
    assert.equal(res.statusCode, 200, res.body);
    const report = await salesReport(ownerCtx, { from: '2026-10-01', to: '2026-11-02', group_by: 'week' });
    const rows = tableOf(res, 'Je Zeitraum');
    assert.equal(rows.length, 1 + report.rows.length + 1);
    const first = report.rows[0];
    assert.ok(first);
    assert.equal(first.orders, 1, 'the order of Oct 3, 23:30 in Berlin');
    assert.equal(
      rows[1],
      `1.–4. Okt. 2026|1|${euro(first.total, 'de')}|${euro(first.net, 'de')}|${euro(first.tax, 'de')}|${euro(0, 'de')}|${euro(0, 'de')}`,
    );
    assert.equal(rows[2]?.split('|')[0], '5.–11. Okt. 2026');
    assert.equal(rows.at(-2)?.split('|')[0], 'Mo., 2. Nov. 2026');
    assert.equal(rows.at(-1)?.split('|')[2], euro(report.totals.total, 'de'));
    assert.match(euro(report.totals.total, 'de'), /^\d+,\d\d\s€$/);
    assert.equal(chartOf(res).series[0].values.length, report.rows.length);
  });

  test('the page may run our own scripts only: Chart.js from our host and reports-chart.js', async () => {
    const res = await owner.get(reports);
    assert.equal(
      res.headers['content-security-policy'],
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    const scripts = [...res.body.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
    assert.deepEqual(
      scripts.map((attributes) => /src="([^"]+)"/.exec(attributes ?? '')?.[1] ?? attributes),
      [
        ' type="application/json" id="report-chart-data"',
        '/dashboard/chart-4.6.1.js',
        scripts[2]?.match(/src="([^"]+)"/)?.[1],
      ],
    );
    assert.match(scripts[2] ?? '', /src="\/assets\/[0-9a-f]{12}\/reports-chart\.js" defer/);

    const chart = await owner.get('/dashboard/chart-4.6.1.js');
    assert.equal(chart.statusCode, 200);
    assert.equal(chart.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(chart.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(chart.body, /^\/\*!\n \* Chart\.js v4\.6\.1/);
    const own = await owner.get(/src="(\/assets\/[^"]+reports-chart\.js)"/.exec(res.body)?.[1] ?? '');
    assert.equal(own.statusCode, 200);
  });

  test('a product’s name cannot close the data block', async () => {
    await insertOrders(t.ctx.db, tenant.restaurantId, [
      simpleOrder(berlin('2026-09-01T12:00'), {
        lines: [
          {
            product_id: tenant.products.pizza,
            name: '</script><script>alert(1)</script>',
            quantity: 1,
            unit_price: 100,
            tax_rate_bps: 700,
          },
        ],
      }),
    ]);
    const res = await owner.get(`${reports}?kind=products&from=2026-09-01&to=2026-09-01`);
    assert.equal(res.statusCode, 200);
    assert.ok(!res.body.includes('<script>alert(1)'));
    assert.deepEqual(chartOf(res).labels, ['</script><script>alert(1)</script>']);
  });
});

describe('the products report', () => {
  test('a row per product as the service has them, the top 10 in the chart', async () => {
    const res = await owner.get(`${reports}?kind=products&from=2026-10-04&to=2026-11-02&group_by=day`);
    assert.equal(res.statusCode, 200, res.body);
    const report: ProductReport = await productReport(ownerCtx, { from: '2026-10-04', to: '2026-11-02' });
    const rows = tableOf(res, 'Products by revenue');
    assert.equal(rows[0], 'Product|Quantity|Orders|Revenue');
    assert.deepEqual(
      rows.slice(1),
      report.rows.map(
        (row) =>
          `${row.name.replaceAll('&', '&amp;').replaceAll('"', '&#34;')}|${row.quantity}|${row.orders}|${euro(row.gross)}`,
      ),
    );
    assert.deepEqual(chartOf(res), {
      locale: 'en',
      currency: 'EUR',
      kind: 'products',
      labels: report.rows.slice(0, 10).map((row) => row.name),
      series: [{ label: 'Revenue', values: report.rows.slice(0, 10).map((row) => row.gross / 100) }],
    });
    assert.match(
      res.body,
      new RegExp(`href="${reports}/products.csv\\?from=2026-10-04&amp;to=2026-11-02" download>`),
    );
  });

  test('with nothing sold, says so and draws no chart', async () => {
    const res = await owner.get(`${reports}?kind=products&from=2025-01-01&to=2025-01-31`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /No products sold in this period\./);
    assert.doesNotMatch(res.body, /<canvas/);
  });
});

describe('the form’s errors', () => {
  const cases: Array<[string, string, Array<[string, string]>]> = [
    [
      'not a date',
      'from=2026-02-30&to=2026-03-01',
      [['from', 'Enter the first day as a date, for example 2026-11-01.']],
    ],
    [
      'empty',
      'from=&to=',
      [
        ['from', 'Enter the first day as a date, for example 2026-11-01.'],
        ['to', 'Enter the last day as a date, for example 2026-11-30.'],
      ],
    ],
    [
      'to before from',
      'from=2026-11-02&to=2026-11-01',
      [['to', 'The last day must be on or after the first day.']],
    ],
    [
      '367 days',
      'from=2025-01-01&to=2026-01-02',
      [['to', 'A report covers at most 366 days. Choose a shorter period.']],
    ],
    [
      'an unknown grouping',
      'from=2026-11-01&to=2026-11-02&group_by=year',
      [['group_by', 'Choose day, week or month.']],
    ],
    [
      'an unknown report',
      'kind=tips&from=2026-11-01&to=2026-11-02',
      [['kind', 'Choose sales or products sold.']],
    ],
  ];
  for (const [name, query, expected] of cases)
    test(`${name}: 400, the message beside its field and in the summary, the input kept`, async () => {
      const res = await owner.get(`${reports}?${query}`);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(errorsOf(res), expected);
      for (const [field, message] of expected)
        assert.match(
          res.body,
          new RegExp(`<li><a href="#${field}">${message.replace(/[.()]/g, '\\$&')}</a></li>`),
        );
      assert.doesNotMatch(res.body, /report-heading|<canvas/);
      const from = new URLSearchParams(query).get('from');
      if (from) assert.match(res.body, new RegExp(`name="from" type="date" required value="${from}"`));
    });

  test('366 days, a leap year, is a report', async () => {
    const res = await owner.get(`${reports}?from=2024-01-01&to=2024-12-31&group_by=month`);
    assert.equal(res.statusCode, 200);
    assert.equal(tableOf(res, 'Per period').length, 1 + 12 + 1);
  });

  test('a CSV address with bad dates answers the form with its error, no file', async () => {
    const res = await owner.get(`${reports}/sales.csv?from=2026-11-02&to=2026-10-01`);
    assert.equal(res.statusCode, 400);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.deepEqual(errorsOf(res), [['to', 'The last day must be on or after the first day.']]);
  });
});

describe('the CSV files', () => {
  test('sales: a header row, a row per period, decimal amounts and the currency', async () => {
    const res = await owner.get(`${reports}/sales.csv?from=2026-10-20&to=2026-11-02&group_by=week`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(
      res.headers['content-disposition'],
      'attachment; filename="sales-2026-10-20-2026-11-02.csv"',
    );
    const report = await salesReport(ownerCtx, { from: '2026-10-20', to: '2026-11-02', group_by: 'week' });
    const lines = res.body.split('\r\n');
    assert.equal(
      lines[0],
      '\uFEFFfrom,to,currency,orders,subtotal,delivery_fees,service_fees,discounts,tips,total,net,tax,pickup_orders,pickup_total,delivery_orders,delivery_total,dine_in_orders,dine_in_total',
    );
    assert.equal(lines.length, 1 + report.rows.length + 1, 'ends with a line break');
    assert.equal(lines.at(-1), '');
    // Oct 20–25: the four orders of 12.50 with a tip of 1.00 each; VAT 7 % of 12.50 is 0.82 each.
    assert.equal(
      lines[1],
      '2026-10-20,2026-10-25,EUR,4,50.00,0.00,0.00,0.00,4.00,54.00,46.72,3.28,4,54.00,0,0.00,0,0.00',
    );
    const week = report.rows.at(-1);
    assert.ok(week);
    const euros = (minor: number) => (minor / 100).toFixed(2);
    assert.equal(
      lines.at(-2),
      [
        '2026-11-02',
        '2026-11-02',
        'EUR',
        week.orders,
        ...[
          week.subtotal,
          week.delivery_fees,
          week.service_fees,
          week.discounts,
          week.tips,
          week.total,
          week.net,
          week.tax,
        ].map(euros),
        week.by_type.pickup.orders,
        euros(week.by_type.pickup.total),
        week.by_type.delivery.orders,
        euros(week.by_type.delivery.total),
        0,
        '0.00',
      ].join(','),
    );
  });

  test('products: names quoted per RFC 4180, formulas defused', async () => {
    const res = await owner.get(`${reports}/products.csv?from=2026-10-20&to=2026-10-23`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(
      res.headers['content-disposition'],
      'attachment; filename="products-2026-10-20-2026-10-23.csv"',
    );
    const pizza = tenant.products.pizza;
    // One product id (the lines share it), named after its latest line.
    assert.equal(
      res.body,
      `\uFEFFproduct_id,name,quantity,orders,gross,currency\r\n${pizza},'-2+3,4,4,50.00,EUR\r\n`,
    );
  });

  test('every awkward name, as a spreadsheet must read it', async () => {
    const day = '2026-09-15';
    await insertOrders(
      t.ctx.db,
      tenant.restaurantId,
      trickyNames.map((name, index) =>
        simpleOrder(berlin(`${day}T1${index}:00`), {
          lines: [
            {
              product_id: crypto.randomUUID(),
              name,
              quantity: 1,
              unit_price: 100 + index,
              tax_rate_bps: 700,
            },
          ],
        }),
      ),
    );
    const res = await owner.get(`${reports}/products.csv?from=${day}&to=${day}`);
    const rows = res.body.slice(1).split('\r\n').slice(1, -1);
    assert.deepEqual(rows, [
      ",'-2+3,1,1,1.03,EUR",
      ",'@SUM(A1),1,1,1.02,EUR",
      ',"Pizza, ""Diavola""\nextra hot",1,1,1.01,EUR',
      ',"\'=HYPERLINK(""http://evil.example"",""x"")",1,1,1.00,EUR',
    ]);
  });

  test('amounts in the currency’s units, exactly', () => {
    assert.equal(decimalAmount(1250, 'EUR'), '12.50');
    assert.equal(decimalAmount(5, 'EUR'), '0.05');
    assert.equal(decimalAmount(1250, 'JPY'), '1250');
    assert.equal(decimalAmount(12345, 'BHD'), '12.345');
    assert.equal(decimalAmount(900719925474099, 'EUR'), '9007199254740.99');
  });
});

describe('who may see them', () => {
  test('staff and another restaurant’s owner get the 404 page, for the page and the files', async () => {
    const staff = await newAccount(t, false);
    await t.ctx.db
      .insertInto('restaurant_members')
      .values({ tenant_id: tenant.restaurantId, account_id: staff.id, role: 'staff' })
      .execute();
    const stranger = await newAccount(t, false);
    await makeRestaurant(t.ctx, [stranger.id]);
    for (const email of [staff.email, stranger.email]) {
      const browser = await signedIn(email);
      for (const path of [
        reports,
        `${reports}/sales.csv?from=2026-11-01&to=2026-11-02`,
        `${reports}/products.csv`,
      ]) {
        const res = await browser.get(path);
        assert.equal(res.statusCode, 404, `${email} ${path}`);
        assert.match(res.body, /Restaurant not found/);
        assert.doesNotMatch(res.body, /Download CSV|text\/csv/);
      }
    }
    const staffPage = await (await signedIn(staff.email)).get(
      `/dashboard/restaurants/${tenant.restaurantId}`,
    );
    assert.match(staffPage.body, /<span class="later"[^>]*>Reports<\/span>/);
  });

  test('signed out: to the sign-in page', async () => {
    const res = await t.app.inject({ method: 'GET', url: reports });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/dashboard/sign-in');
  });
});
