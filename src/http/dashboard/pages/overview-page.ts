import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import {
  type DayFigures,
  type RestaurantOverview,
  restaurantOverview,
  waitingLongMinutes,
} from '../../../domain/restaurants/overview.ts';
import { currentRestaurant, restaurantCtxOrNull } from '../../../domain/restaurants/restaurant-gate.ts';
import type { Role } from '../../../domain/shared/context.ts';
import { translator } from '../../../i18n/i18n.ts';
import { formatDateTime } from '../../../i18n/local-time.ts';
import { formatMoney } from '../../../i18n/money.ts';
import { assetUrl } from '../../web/assets.ts';
import { type PageView, pageHeaders, renderPage, sendPage } from '../../web/page.ts';
import type { SignedInPageHandler } from '../../web/signed-in-pages.ts';
import { restaurantNavigation, restaurantNotFound } from './restaurant-page.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Who opens the overview: owners and staff (staff see no takings and no webhooks). */
const members: readonly Role[] = ['owner', 'staff'];

/** How often the page's script fetches the figures again, besides on the order stream's news. */
export const overviewRefreshMs = 30_000;

/*
 * The overview may run its one script (overview.js), from our own origin, and read its fragment
 * and the orders' stream; everything else as on every page.
 */
const overviewPolicy = pageHeaders({ formActionSelf: true, referrer: 'same-origin' })[
  'content-security-policy'
].replace("default-src 'none';", "default-src 'none'; script-src 'self'; connect-src 'self';");

/** A change as the page shows it: `+2`, `−€5.00`, `+12 %`; null where there is nothing to compare. */
function changeOf(now: number, before: number, format: (n: number) => string, locale: string) {
  if (now === before) return { text: '±0', direction: 'same' as const };
  const sign = now > before ? '+' : '−';
  const difference = `${sign}${format(Math.abs(now - before))}`;
  const percent =
    before === 0
      ? ''
      : ` (${sign}${new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 }).format(Math.abs(now - before) / before)})`;
  return { text: `${difference}${percent}`, direction: now > before ? ('up' as const) : ('down' as const) };
}

/** What the overview's templates use: the figures, their formatting and the addresses. */
function overviewData(
  view: PageView,
  restaurant: { id: string; name: string; livemode: boolean },
  role: Role,
  overview: RestaurantOverview,
) {
  const { locale } = view;
  const zone = overview.timezone;
  const home = `/dashboard/restaurants/${restaurant.id}`;
  const number = new Intl.NumberFormat(locale);
  const money = (minor: number) => formatMoney(minor, overview.currency, locale);
  const time = new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZone: zone });
  const weekday = new Intl.DateTimeFormat(locale, {
    weekday: 'long',
    month: 'long',
    day: 'numeric',
    timeZone: zone,
  });
  const figures = (today: DayFigures, before: DayFigures) => [
    {
      key: 'orders',
      today: number.format(today.orders),
      before: number.format(before.orders),
      change: changeOf(today.orders, before.orders, (n) => number.format(n), locale),
    },
    ...(today.total === null || before.total === null
      ? []
      : [
          {
            key: 'takings',
            today: money(today.total),
            before: money(before.total),
            change: changeOf(today.total, before.total, money, locale),
          },
        ]),
  ];
  return {
    restaurant: { ...restaurant, role },
    role,
    home,
    overview,
    fragment: `${home}/overview`,
    stream: `/dashboard/api/restaurants/${restaurant.id}/orders/stream`,
    refreshMs: overviewRefreshMs,
    figures: figures(overview.today, overview.lastWeek),
    lastWeekDay: weekday.format(overview.lastWeek.from),
    waitingLongMinutes,
    time: (at: Date) => time.format(at),
    dateTime: (at: Date | string) => formatDateTime(at, zone, locale),
    /** Minutes as words: `14 minutes`. */
    minutes: (count: number) =>
      new Intl.NumberFormat(locale, { style: 'unit', unit: 'minute', unitDisplay: 'long' }).format(count),
    /** A webhook switched off as its problem names it (the restaurant's own: its address's host). */
    webhookName: (url: string) => {
      try {
        return new URL(url).host;
      } catch {
        return url;
      }
    },
    today: DateTime.fromJSDate(overview.now, { zone }).toISODate(),
  };
}

/*
 * The restaurant's overview at `/dashboard/restaurants/{id}`, for its owners and staff (anyone
 * else: the restaurant is 404): today's orders and takings against the same weekday a week ago,
 * the open orders by status, the next reservations, what is sold out, the store's state with its
 * switches (owners: forms posting to the store's pause page, which answers there), and the
 * problems to act on (restaurants/overview.ts). With JavaScript (overview.js) the figures are
 * fetched again (`…/overview`, the figures alone) every 30 seconds and whenever the order stream
 * reports a change; without it, the page is the same, as of its loading.
 */
export function overviewPages(app: FastifyInstance, signedInPage: Wrap): void {
  const base = '/dashboard/restaurants/:restaurantId';

  const overviewPage = (fragment: boolean) =>
    signedInPage(async (request, reply, signedIn) => {
      const { restaurantId } = request.params as { restaurantId: string };
      const ctx = await restaurantCtxOrNull(signedIn.ctx, restaurantId, members);
      const role = ctx?.actor.kind === 'account' ? ctx.actor.role : null;
      if (!ctx || !role) return restaurantNotFound(reply, signedIn.view());
      const restaurant = await currentRestaurant(ctx);
      const base = signedIn.view();
      const view: PageView = {
        ...base,
        t: translator(base.locale, ['dashboard-overview', 'dashboard-store', 'dashboard', 'pages']),
        nav: restaurantNavigation(base, restaurant.id, 'overview', role),
      };
      const data = overviewData(view, restaurant, role, await restaurantOverview(ctx));
      if (fragment) return sendPage(reply, 200, renderPage('dashboard/pages/overview-live', view, data));
      return sendPage(
        reply,
        200,
        renderPage('dashboard/pages/restaurant', view, {
          ...data,
          script: assetUrl('overview.js'),
          styles: assetUrl('overview.css'),
        }),
      );
    });

  // After the surface's own headers (a route's hooks run after its plugin's): the script's policy.
  const withScript = {
    onSend: async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (reply.statusCode === 200) reply.header('content-security-policy', overviewPolicy);
      return payload;
    },
  };
  app.get(base, withScript, overviewPage(false));
  // The figures alone, for the page's script to swap in.
  app.get(`${base}/overview`, overviewPage(true));
}
