import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/client.ts';
import { availability, lastGuestDate, loadFloor } from '../../../domain/reservations/availability.ts';
import { bookAsGuest, guestBookingByKey } from '../../../domain/reservations/guest-booking.ts';
import { cancelByGuest, reservationByCancelToken } from '../../../domain/reservations/guest-cancel.ts';
import type { Clock } from '../../../domain/shared/context.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import { newSecret } from '../../../domain/shared/ids.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { localDate } from '../../../domain/store/schedule.ts';
import { translator } from '../../../i18n/i18n.ts';
import { type FormError, formField, type NavItem } from '../../web/page.ts';
import { type GuestLimiters, GuestLimitReached } from '../guest-limits.ts';
import { storefrontAddress } from '../storefront-address.ts';
import { type BookingValues, bookingError, bookingInput, bookingValues, partySize } from './booking-form.ts';
import type { Storefront } from './storefront-pages.plugin.ts';

type Handler = (request: FastifyRequest, reply: FastifyReply, page: Storefront) => Promise<FastifyReply>;

/** What the booking pages take from the storefront's plugin (storefront-pages.plugin.ts). */
export interface BookingPagesDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'baseUrl'> & Partial<Pick<Config, 'storefrontDomain'>>;
  secure: boolean;
  storefrontPage(handler: Handler): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
  show(reply: FastifyReply, page: Storefront, template: string, data: object, status?: number): FastifyReply;
  notFound(request: FastifyRequest, reply: FastifyReply, view?: Storefront['view']): FastifyReply;
  limits: GuestLimiters;
  limitReached(reply: FastifyReply, page: Storefront, refusal: GuestLimitReached): FastifyReply;
}

const namespace = 'storefront-booking';
/** The booking form's key (guest-booking.ts): a form sent twice books once. */
const keyCookie = 'servery_booking';
const keyPattern = /^sbk_[A-Za-z0-9_-]{43}$/;

/** The storefront's navigation link to the booking page, when the restaurant takes bookings. */
export function bookingNav(page: Storefront, template: string): NavItem[] {
  if (!page.bookable) return [];
  const t = translator(page.view.locale, namespace);
  return [
    {
      label: t('nav'),
      href: `${page.base}/book`,
      current: template === 'booking-date' || template === 'booking-times',
    },
  ];
}

/*
 * Guests book a table (docs/storefront.md), every step a plain form:
 * - `/book`: date and party size; `/book/times`: the free times of that date as the guest
 *   availability gives them (online tables, lead time, horizon) with the contact form; sending it
 *   books (a time taken meanwhile shows the form again, saying so; past the guest limits a page
 *   says when to try again, guest-limits.ts); `/book/{key}`: the booking;
 * - restaurants without reservations in their plan, or without weekly hours, say they take none;
 * - `/reservations/{id}/cancel?token=`: the link of the guest's e-mail, to cancel.
 */
export function bookingPages(app: FastifyInstance, deps: BookingPagesDeps): void {
  const { db, clock, storefrontPage, notFound } = deps;

  /** The page with the booking catalog first; times in the restaurant's zone and language. */
  const show = (reply: FastifyReply, page: Storefront, template: string, data: object, status = 200) => {
    const t = translator(page.view.locale, [namespace, 'storefront', 'pages']);
    const zone = page.store.timezone;
    const format = (options: Intl.DateTimeFormatOptions, timeZone = zone) =>
      new Intl.DateTimeFormat(page.view.locale, { ...options, timeZone });
    return deps.show(
      reply,
      { ...page, view: { ...page.view, t } },
      template,
      {
        day: (date: string) => format({ dateStyle: 'full' }, 'UTC').format(new Date(`${date}T12:00:00Z`)),
        clockTime: (at: Date | string) => format({ timeStyle: 'short' }).format(new Date(at)),
        when: (at: Date | string) => format({ dateStyle: 'full', timeStyle: 'short' }).format(new Date(at)),
        ...data,
      },
      status,
    );
  };

  const closed = (reply: FastifyReply, page: Storefront) =>
    show(reply, page, 'booking-date', { closed: true });

  /** Today and the last date guests may book, in the restaurant's zone. */
  const bookableDates = async (page: Storefront) => {
    const floor = await loadFloor(page.ctx, []);
    const now = clock.now();
    return { first: localDate(floor.timezone, now), last: lastGuestDate(floor, now) };
  };

  const datePage = async (
    reply: FastifyReply,
    page: Storefront,
    values: Pick<BookingValues, 'date' | 'party_size'>,
    errors: FormError[] = [],
  ) => {
    const dates = await bookableDates(page);
    return show(
      reply,
      page,
      'booking-date',
      {
        closed: false,
        values: { date: values.date || dates.first, party_size: values.party_size || '2' },
        errors,
        ...dates,
      },
      errors.length > 0 ? 400 : 200,
    );
  };

  /** The date and party size, or the errors the date page shows. */
  const checkDate = async (page: Storefront, values: Pick<BookingValues, 'date' | 'party_size'>) => {
    const t = translator(page.view.locale, namespace);
    const dates = await bookableDates(page);
    const errors: FormError[] = [];
    if (!/^\d{4}-\d{2}-\d{2}$/.test(values.date) || Number.isNaN(Date.parse(`${values.date}T12:00:00Z`)))
      errors.push({ field: 'date', message: t('errors.date') });
    else if (values.date < dates.first) errors.push({ field: 'date', message: t('errors.past') });
    else if (values.date > dates.last)
      errors.push({
        field: 'date',
        message: t('errors.horizon', {
          date: new Intl.DateTimeFormat(page.view.locale, { dateStyle: 'long', timeZone: 'UTC' }).format(
            new Date(`${dates.last}T12:00:00Z`),
          ),
        }),
      });
    const party = partySize(values.party_size);
    if (party === null) errors.push({ field: 'party_size', message: t('errors.party_size') });
    return { party, errors };
  };

  const timesPage = async (
    reply: FastifyReply,
    page: Storefront,
    values: BookingValues,
    party: number,
    errors: FormError[] = [],
    status = 200,
  ) => {
    const day = await availability(page.ctx, { date: values.date, party_size: party, guest: true });
    const free = day.slots.filter((slot) => slot.available).map((slot) => slot.starts_at.toISOString());
    return show(
      reply,
      page,
      'booking-times',
      { values, party, free, errors },
      errors.length > 0 ? status : 200,
    );
  };

  const bookingKey = (request: FastifyRequest) => {
    const key = request.cookies[keyCookie];
    return key && keyPattern.test(key) ? key : null;
  };
  const newBookingKey = (reply: FastifyReply, page: Storefront) =>
    reply.setCookie(keyCookie, newSecret('sbk_'), {
      path: page.cookiePath,
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.secure,
    });

  app.get(
    '/s/:slug/book',
    storefrontPage(async (request, reply, page) => {
      if (!page.bookable) return closed(reply, page);
      return datePage(reply, page, bookingValues(request.query));
    }),
  );

  app.get(
    '/s/:slug/book/times',
    storefrontPage(async (request, reply, page) => {
      if (!page.bookable) return closed(reply, page);
      const values = bookingValues(request.query);
      const { party, errors } = await checkDate(page, values);
      if (party === null || errors.length > 0) return datePage(reply, page, values, errors);
      if (!bookingKey(request)) newBookingKey(reply, page);
      return timesPage(reply, page, values, party);
    }),
  );

  /*
   * Booking: the contact fields are checked first (all errors at once), then bookAsGuest in one
   * transaction; a refusal of the time shows the times again with the others' values kept.
   */
  app.post(
    '/s/:slug/book/times',
    storefrontPage(async (request, reply, page) => {
      if (!page.bookable) return closed(reply, page);
      const values = bookingValues(request.body);
      const checked = await checkDate(page, values);
      if (checked.party === null || checked.errors.length > 0)
        return datePage(reply, page, values, checked.errors);
      const t = translator(page.view.locale, namespace);
      const { input, errors } = bookingInput(t, values, checked.party, page.view.locale);
      if (errors.length > 0) return timesPage(reply, page, values, checked.party, errors, 400);
      const guestKey = bookingKey(request) ?? newSecret('sbk_');
      const storefront = storefrontAddress(deps.config, page.restaurant.slug);
      try {
        await deps.limits.booking(request, page.restaurant.id, () =>
          writeTransaction(db, (trx) => bookAsGuest({ ...page.ctx, db: trx, storefront }, input, guestKey)),
        );
      } catch (error) {
        if (error instanceof GuestLimitReached) return deps.limitReached(reply, page, error);
        if (!(error instanceof ApiError) || error.code === 'not_found' || error.code === 'plan_required')
          throw error;
        const status = error.code === 'slot_unavailable' ? 409 : 400;
        return timesPage(reply, page, values, checked.party, [bookingError(t, error)], status);
      }
      newBookingKey(reply, page);
      return reply.redirect(`${page.base}/book/${guestKey}`, 303);
    }),
  );

  app.get(
    '/s/:slug/book/:key',
    storefrontPage(async (request, reply, page) => {
      const { key } = request.params as { key: string };
      const reservation = keyPattern.test(key) ? await guestBookingByKey(page.ctx, key) : null;
      if (!reservation) return notFound(request, reply, page.view);
      return show(reply, page, 'booking-done', { reservation });
    }),
  );

  /** The cancel link's reservation, or null (404) for a wrong token or id. */
  const linked = async (page: Storefront, id: string, token: string) => {
    try {
      return await reservationByCancelToken(page.ctx, id, token);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return null;
      throw error;
    }
  };

  app.get(
    '/s/:slug/reservations/:id/cancel',
    storefrontPage(async (request, reply, page) => {
      const { id } = request.params as { id: string };
      const token = formField(request.query, 'token') ?? '';
      const found = await linked(page, id, token);
      if (!found) return notFound(request, reply, page.view);
      return show(reply, page, 'booking-cancel', { ...found, token, id });
    }),
  );

  /** Cancels; one that can no longer be cancelled shows why (409), changed in nothing. */
  app.post(
    '/s/:slug/reservations/:id/cancel',
    storefrontPage(async (request, reply, page) => {
      const { id } = request.params as { id: string };
      const token = formField(request.body, 'token') ?? '';
      try {
        await writeTransaction(db, (trx) => cancelByGuest({ ...page.ctx, db: trx }, id, token));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const found = await linked(page, id, token);
        if (!found) return notFound(request, reply, page.view);
        return show(reply, page, 'booking-cancel', { ...found, token, id }, 409);
      }
      return reply.redirect(`${page.base}/reservations/${id}/cancel?token=${encodeURIComponent(token)}`, 303);
    }),
  );
}
