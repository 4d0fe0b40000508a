import { createReadStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import {
  type Grouping,
  maxReportDays,
  type ProductReport,
  type SalesReport,
} from '../../../domain/reports/report.schema.ts';
import { productReport, salesReport } from '../../../domain/reports/reports.service.ts';
import { currentRestaurant, restaurantCtxOrNull } from '../../../domain/restaurants/restaurant-gate.ts';
import type { Ctx, Role } from '../../../domain/shared/context.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import { currencyDigits, formatMoney } from '../../../i18n/money.ts';
import { assetUrl } from '../../web/assets.ts';
import {
  type FormError,
  formField,
  type PageView,
  pageHeaders,
  renderPage,
  sendPage,
} from '../../web/page.ts';
import type { SignedInPageHandler } from '../../web/signed-in-pages.ts';
import { productsCsv, salesCsv } from './reports-csv.ts';
import { restaurantNavigation, restaurantNotFound } from './restaurant-page.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Who reads the reports: owners, as in the JSON API's owner sections; every plan has them. */
const owners: readonly Role[] = ['owner'];

const require = createRequire(import.meta.url);
const chartJsDist = path.dirname(require.resolve('chart.js'));

/*
 * Chart.js's browser bundle, served from our own host under its version (as the API reference's
 * Redoc), so the page loads nothing from elsewhere and a new version gets a new address, cached for
 * a year as immutable. The package exports only its modules, so the bundle is found beside them.
 */
const chartJs = {
  file: path.join(chartJsDist, 'chart.umd.min.js'),
  path: `/dashboard/chart-${(JSON.parse(readFileSync(path.join(chartJsDist, '..', 'package.json'), 'utf8')) as { version: string }).version}.js`,
};

/*
 * The reports page may run scripts from our own origin (Chart.js and reports-chart.js, which draws
 * the chart from the page's JSON data block); no inline script, nothing from elsewhere.
 */
const reportsPolicy = pageHeaders({ formActionSelf: true, referrer: 'same-origin' })[
  'content-security-policy'
].replace("default-src 'none';", "default-src 'none'; script-src 'self';");

const kinds = ['sales', 'products'] as const;
type Kind = (typeof kinds)[number];
const groupings: readonly Grouping[] = ['day', 'week', 'month'];
/** The period shown when the page opens: the last 30 days, today included. */
const defaultDays = 30;
/** The products the chart shows; the table has them all. */
const chartedProducts = 10;

interface ReportQuery {
  kind: Kind;
  from: string;
  to: string;
  group_by: Grouping;
}

type Shown = { kind: 'sales'; report: SalesReport } | { kind: 'products'; report: ProductReport };

interface ReportsPage {
  ctx: Ctx;
  view: PageView;
  restaurant: { id: string; name: string; timezone: string };
  home: string;
}

/** A calendar date as `<input type="date">` sends it (the API's `format: date`). */
const isDate = (text: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(text) && DateTime.fromISO(text, { zone: 'utc' }).isValid;

/**
 * The form's values as sent (the defaults for what was not), and the query they make, or the
 * errors beside their fields. `kind` is the CSV address's when it names one.
 */
function readQuery(page: ReportsPage, query: unknown, kind?: Kind) {
  const today = DateTime.fromJSDate(page.ctx.clock.now(), { zone: page.restaurant.timezone });
  const values = {
    kind: kind ?? formField(query, 'kind') ?? 'sales',
    from: formField(query, 'from') ?? (today.minus({ days: defaultDays - 1 }).toISODate() as string),
    to: formField(query, 'to') ?? (today.toISODate() as string),
    group_by: formField(query, 'group_by') ?? 'day',
  };
  const t = page.view.t;
  const errors: FormError[] = [];
  if (!(kinds as readonly string[]).includes(values.kind))
    errors.push({ field: 'kind', message: t('reports.errors.kind') });
  if (!isDate(values.from)) errors.push({ field: 'from', message: t('reports.errors.from') });
  if (!isDate(values.to)) errors.push({ field: 'to', message: t('reports.errors.to') });
  if (!(groupings as readonly string[]).includes(values.group_by))
    errors.push({ field: 'group_by', message: t('reports.errors.groupBy') });
  return { values, errors, input: errors.length === 0 ? (values as ReportQuery) : null };
}

/** The report asked for; a period the domain refuses (`to` before `from`, too long) is its field's error. */
async function reportOf(page: ReportsPage, input: ReportQuery): Promise<Shown | FormError> {
  try {
    return input.kind === 'sales'
      ? { kind: 'sales', report: await salesReport(page.ctx, input) }
      : { kind: 'products', report: await productReport(page.ctx, input) };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'invalid_request' || error.param !== 'to') throw error;
    const key = input.to < input.from ? 'reports.errors.toBeforeFrom' : 'reports.errors.tooLong';
    return { field: 'to', message: page.view.t(key, { max: maxReportDays }) };
  }
}

/** A restaurant-local date (`YYYY-MM-DD`) as a Date for Intl, which formats it in UTC. */
const utcDay = (date: string) => new Date(`${date}T00:00:00Z`);

/** How the page words periods, amounts and rates in the viewer's language. */
function formatters(view: PageView, currency: string) {
  const day = new Intl.DateTimeFormat(view.locale, {
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });
  const days = new Intl.DateTimeFormat(view.locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });
  const percent = new Intl.NumberFormat(view.locale, { style: 'percent', maximumFractionDigits: 2 });
  const number = new Intl.NumberFormat(view.locale);
  return {
    /** A day with its weekday; a longer period as a range (`Nov 2 – 8, 2026`). */
    period: (from: string, to: string) =>
      from === to ? day.format(utcDay(from)) : days.formatRange(utcDay(from), utcDay(to)),
    span: (from: string, to: string) => days.formatRange(utcDay(from), utcDay(to)),
    money: (minor: number) => formatMoney(minor, currency, view.locale),
    count: (n: number) => number.format(n),
    rate: (bps: number | null) => (bps === null ? view.t('sales.noRate') : percent.format(bps / 10_000)),
  };
}

/**
 * The chart's figures, for reports-chart.js: gross totals (in the currency's units) and orders
 * per period, or the top products' gross. As a JSON data block in the page, which no browser
 * runs; `<` escaped so a product's name cannot close the block.
 */
function chartData(shown: Shown, view: PageView, period: (from: string, to: string) => string): string {
  const major = (minor: number) => minor / 10 ** currencyDigits(shown.report.currency);
  const base = { locale: view.locale, currency: shown.report.currency };
  const data =
    shown.kind === 'sales'
      ? {
          ...base,
          kind: 'sales',
          labels: shown.report.rows.map((row) => period(row.from, row.to)),
          series: [
            { label: view.t('sales.total'), values: shown.report.rows.map((row) => major(row.total)) },
            { label: view.t('sales.orders'), values: shown.report.rows.map((row) => row.orders) },
          ],
        }
      : {
          ...base,
          kind: 'products',
          labels: shown.report.rows.slice(0, chartedProducts).map((row) => row.name),
          series: [
            {
              label: view.t('products.gross'),
              values: shown.report.rows.slice(0, chartedProducts).map((row) => major(row.gross)),
            },
          ],
        };
  return JSON.stringify(data).replaceAll('<', '\\u003c');
}

/*
 * The restaurant's reports at `/dashboard/restaurants/{id}/reports`, for its owners (anyone else:
 * the restaurant is 404): a GET form (report, from, to, grouping; by default the last 30 days in
 * the restaurant's time zone), then the sales report (totals, by order type, VAT by rate, a row
 * per period) or the products sold, from the same services as the JSON API. A chart drawn by
 * Chart.js with the same figures as the tables, which are its accessible alternative and all there
 * is without JavaScript. Each report downloads as CSV (`reports/sales.csv?from&to&group_by`,
 * `reports/products.csv?from&to`). Input the API would refuse shows the form again (400) with the
 * error beside its field.
 */
export function reportsPages(app: FastifyInstance, signedInPage: Wrap): void {
  const base = '/dashboard/restaurants/:restaurantId/reports';

  const reportsPage = (
    handler: (request: FastifyRequest, reply: FastifyReply, page: ReportsPage) => Promise<FastifyReply>,
  ) =>
    signedInPage(async (request, reply, signedIn) => {
      const { restaurantId } = request.params as { restaurantId: string };
      const ctx = await restaurantCtxOrNull(signedIn.ctx, restaurantId, owners);
      if (!ctx) return restaurantNotFound(reply, signedIn.view());
      const view = signedIn.view('dashboard-reports');
      const restaurant = await currentRestaurant(ctx);
      return handler(request, reply, {
        ctx,
        view: { ...view, nav: restaurantNavigation(view, restaurant.id, 'reports', 'owner') },
        restaurant,
        home: `/dashboard/restaurants/${restaurant.id}/reports`,
      });
    });

  const show = (
    reply: FastifyReply,
    page: ReportsPage,
    values: Record<string, string>,
    outcome: { errors: FormError[] } | { shown: Shown },
  ) => {
    const errors = 'errors' in outcome ? outcome.errors : [];
    const shown = 'shown' in outcome ? outcome.shown : null;
    const format = shown && formatters(page.view, shown.report.currency);
    const csvQuery =
      shown &&
      new URLSearchParams(
        shown.kind === 'sales'
          ? { from: shown.report.from, to: shown.report.to, group_by: shown.report.group_by }
          : { from: shown.report.from, to: shown.report.to },
      );
    return sendPage(
      reply,
      errors.length > 0 ? 400 : 200,
      renderPage('dashboard/pages/reports-page', page.view, {
        restaurant: page.restaurant,
        home: page.home,
        values,
        errors,
        kinds,
        groupings,
        maxDays: maxReportDays,
        shown,
        format,
        csv: shown && `${page.home}/${shown.kind}.csv?${csvQuery}`,
        chart: shown &&
          format && {
            data: chartData(shown, page.view, format.period),
            scripts: [chartJs.path, assetUrl('reports-chart.js')],
          },
      }),
    );
  };

  // After the surface's own headers (a route's hooks run after its plugin's): the page's policy.
  const reportsHeaders = {
    onSend: async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      reply.header('content-security-policy', reportsPolicy);
      return payload;
    },
  };

  app.get(
    base,
    reportsHeaders,
    reportsPage(async (request, reply, page) => {
      const { values, errors, input } = readQuery(page, request.query);
      if (!input) return show(reply, page, values, { errors });
      const shown = await reportOf(page, input);
      return show(reply, page, values, 'kind' in shown ? { shown } : { errors: [shown] });
    }),
  );

  for (const kind of kinds)
    app.get(
      `${base}/${kind}.csv`,
      reportsHeaders,
      reportsPage(async (request, reply, page) => {
        const { values, errors, input } = readQuery(page, request.query, kind);
        if (!input) return show(reply, page, values, { errors });
        const shown = await reportOf(page, input);
        if (!('kind' in shown)) return show(reply, page, values, { errors: [shown] });
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${kind}-${input.from}-${input.to}.csv"`)
          .send(shown.kind === 'sales' ? salesCsv(shown.report) : productsCsv(shown.report));
      }),
    );

  // Every answer of the dashboard is marked no-store by its hooks; this file never changes at its address.
  app.get(
    chartJs.path,
    {
      onSend: async (_request, reply, payload) => {
        reply.header('cache-control', 'public, max-age=31536000, immutable');
        return payload;
      },
    },
    async (_request, reply) =>
      reply
        .type('text/javascript; charset=utf-8')
        .header('x-content-type-options', 'nosniff')
        .send(createReadStream(chartJs.file)),
  );
}
