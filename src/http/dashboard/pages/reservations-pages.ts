import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import { loadFloor, slotTimes } from '../../../domain/reservations/availability.ts';
import {
  type Reservation,
  ReservationInputSchema,
  ReservationPatchSchema,
} from '../../../domain/reservations/reservation.schema.ts';
import { ReservationSettingsPatchSchema } from '../../../domain/reservations/reservation-settings.schema.ts';
import {
  getReservationSettings,
  updateReservationSettings,
} from '../../../domain/reservations/reservation-settings.service.ts';
import {
  reservationStatuses,
  reservationTransitions,
} from '../../../domain/reservations/reservation-status.ts';
import {
  createReservation,
  deleteReservation,
  getReservation,
  listReservations,
  updateReservation,
} from '../../../domain/reservations/reservations.service.ts';
import { restaurantCtxOrNull } from '../../../domain/restaurants/restaurant-gate.ts';
import type { Ctx, Role } from '../../../domain/shared/context.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import { features } from '../../../domain/shared/plans.ts';
import type { Plan } from '../../../domain/shared/scopes.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { listAreas } from '../../../domain/store/areas.service.ts';
import { localDate } from '../../../domain/store/schedule.ts';
import { getStoreAndRestaurant } from '../../../domain/store/store.service.ts';
import type { DashboardTable } from '../../../domain/store/table.schema.ts';
import { listTables } from '../../../domain/store/tables.service.ts';
import { checkedInput } from '../../shared/validation.ts';
import { type StorefrontHosts, storefrontAddress } from '../../storefront/storefront-address.ts';
import { type FormError, messagePage, type PageView, renderPage, sendPage } from '../../web/page.ts';
import type { SignedInPageHandler } from '../../web/signed-in-pages.ts';
import { FormReader, type FormValues, sentValues } from './menu-forms.ts';
import { dayGrid, gridColumns } from './reservations-day.ts';
import {
  bookingInput,
  bookingRefusal,
  durationRowCount,
  formErrors,
  newBookingValues,
  type Refusal,
  reservationPatch,
  reservationValues,
  settingsPatch,
  settingsRefusal,
  settingsValues,
} from './reservations-forms.ts';
import { restaurantNavigation, restaurantNotFound } from './restaurant-page.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** The host stand: owners and staff book, move and seat; settings and deleting are the owners'. */
const hosts: readonly Role[] = ['owner', 'staff'];
const owners: readonly Role[] = ['owner'];

/** What every reservations page has: the ctx in the restaurant, the role there, the page's path. */
interface ReservationsPage {
  ctx: Ctx;
  view: PageView;
  restaurant: { id: string; name: string; timezone: string };
  role: Role;
  /** The day view's path; the other pages are below it. */
  home: string;
  /** The form as sent (a POST), else empty (each page fills in what it shows). */
  values: FormValues;
}

type PageHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  page: ReservationsPage,
) => Promise<FastifyReply>;

/** The messages after a write (`?done=`), each shown on the page it leads to. */
const doneMessages = new Set(['booked', 'deleted', 'saved', 'unchanged', 'status', 'settingsSaved']);

const isDate = (text: string) => /^\d{4}-\d{2}-\d{2}$/.test(text) && DateTime.fromISO(text).isValid;

/**
 * A day's times, its booking interval, and the span of instants its reservations start in (a
 * window past midnight included).
 */
async function dayOf(ctx: Ctx, timezone: string, date: string) {
  const floor = await loadFloor(ctx, [date]);
  const times = slotTimes(floor, date);
  const midnight = DateTime.fromISO(date, { zone: timezone });
  const from = Math.min(midnight.toMillis(), times[0] ?? Number.POSITIVE_INFINITY);
  const until = Math.max(midnight.plus({ days: 1 }).toMillis(), (times.at(-1) ?? 0) + 1);
  return { times, slotMinutes: floor.slotMinutes, from: new Date(from), until: new Date(until) };
}

/*
 * The reservations pages at `/dashboard/restaurants/{id}/reservations`, for the restaurant's
 * owners and staff (anyone else: the restaurant is 404), on the pro and premium plans (the starter
 * plan's page says so and offers nothing):
 * - the day view (`?date=`, default today in the restaurant's zone): a grid of the tables by the
 *   day's times with each reservation across its duration, and the day's list below it;
 * - booking (`/new`), as staff book: any table, any offered time not past, never overbooked;
 * - a reservation's page: change time, party, duration, tables, name and note; the status moves
 *   possible now; deleting (owners, after a confirmation);
 * - the booking settings (`/settings`, owners).
 * Plain forms (post, CSRF-checked, then 303 to the page with what was done), each write through
 * the reservation services in one transaction, so the rules and events are the API's. A refusal
 * (a field, slot_unavailable, invalid_transition) shows the form again with its message beside the
 * field and in the summary; nothing is saved. Times are the restaurant's wall-clock times.
 */
export function reservationsPages(
  app: FastifyInstance,
  signedInPage: Wrap,
  addresses: StorefrontHosts,
): void {
  const withCsrf = { preHandler: app.csrfProtection };
  const base = '/dashboard/restaurants/:restaurantId/reservations';

  const reservationsPage = (roles: readonly Role[], handler: PageHandler) =>
    signedInPage(async (request, reply, signedIn) => {
      const { restaurantId } = request.params as { restaurantId: string };
      const ctx = await restaurantCtxOrNull(signedIn.ctx, restaurantId, roles);
      const role = ctx?.actor.kind === 'account' ? ctx.actor.role : null;
      if (!ctx || !role) return restaurantNotFound(reply, signedIn.view());
      const view = signedIn.view('dashboard-reservations');
      const { store, plan } = await getStoreAndRestaurant(ctx);
      const page: ReservationsPage = {
        // A guest booked here is e-mailed a link to cancel on the storefront.
        ctx: { ...ctx, storefront: storefrontAddress(addresses, store.slug) },
        view: { ...view, nav: restaurantNavigation(view, store.id, 'reservations', role) },
        restaurant: { id: store.id, name: store.name, timezone: store.timezone },
        role,
        home: `/dashboard/restaurants/${store.id}/reservations`,
        values: sentValues(request.method === 'POST' ? request.body : {}),
      };
      if (!(features.reservations.plans as readonly Plan[]).includes(plan))
        return sendPage(
          reply,
          403,
          messagePage(page.view, {
            title: view.t('plan.title'),
            message: view.t('plan.message'),
            link: { href: `/dashboard/restaurants/${store.id}`, text: view.t('plan.back') },
          }),
        );
      return handler(request, reply, page);
    });

  const today = (page: ReservationsPage) => localDate(page.restaurant.timezone, page.ctx.clock.now());

  /** A page's template with what every reservations page uses: formatting in the restaurant's zone. */
  const show = (
    reply: FastifyReply,
    page: ReservationsPage,
    template: string,
    data: object,
    status = 200,
  ) => {
    const { locale } = page.view;
    const zone = page.restaurant.timezone;
    const timeFormat = new Intl.DateTimeFormat(locale, {
      hour: 'numeric',
      minute: '2-digit',
      timeZone: zone,
    });
    const time = (at: number | Date) => timeFormat.format(at);
    const dateFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeZone: 'UTC' });
    return sendPage(
      reply,
      status,
      renderPage(`dashboard/pages/${template}`, page.view, {
        restaurant: page.restaurant,
        role: page.role,
        home: page.home,
        values: page.values,
        errors: [],
        time,
        hour: new Intl.DateTimeFormat(locale, { hour: 'numeric', timeZone: zone }).format,
        minute: (at: number) => DateTime.fromMillis(at, { zone }).minute,
        timeRange: (reservation: Reservation) =>
          `${time(reservation.starts_at)}–${time(reservation.starts_at.getTime() + reservation.duration_minutes * 60_000)}`,
        dateLabel: (date: string) => dateFormat.format(new Date(`${date}T00:00:00Z`)),
        ...data,
      }),
    );
  };

  const statusOf = (errors: readonly FormError[], conflict: boolean) =>
    errors.length === 0 ? 200 : conflict ? 409 : 400;

  const notFound = (reply: FastifyReply, page: ReservationsPage) =>
    sendPage(
      reply,
      404,
      messagePage(page.view, {
        title: page.view.t('reservation.notFoundTitle'),
        message: page.view.t('reservation.notFound'),
        link: { href: page.home, text: page.view.t('day.back') },
      }),
    );

  /**
   * Runs a write in one transaction and sends the browser on to `done`. Fields the form could not
   * read, and the services' refusals (400 with `param`, 409 slot_unavailable or
   * invalid_transition), go to `refused` with their messages; a reservation gone meanwhile is the
   * 404 page. Anything else is not the form's and fails the request.
   */
  async function write<T>(
    reply: FastifyReply,
    page: ReservationsPage,
    form: FormReader,
    work: (ctx: Ctx) => Promise<T>,
    done: (result: T) => string,
    refused: {
      of: (code: string, param: string | undefined) => Refusal;
      show: (errors: FormError[], conflict: boolean) => FastifyReply | Promise<FastifyReply>;
    },
  ): Promise<FastifyReply> {
    if (form.invalid.length > 0)
      return refused.show(
        formErrors(
          page.view.t,
          form.invalid.map((field) => ({ field, key: field.replace(/^durations-\d+-/, 'durations_') })),
        ),
        false,
      );
    let result: T;
    try {
      result = await writeTransaction(page.ctx.db, (trx) => work({ ...page.ctx, db: trx }));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'not_found') return notFound(reply, page);
      if (error.code === 'invalid_transition')
        return refused.show(formErrors(page.view.t, [{ key: 'invalidTransition' }]), true);
      if (error.code !== 'invalid_request' && error.code !== 'slot_unavailable') throw error;
      return refused.show(
        formErrors(page.view.t, [refused.of(error.code, error.param)]),
        error.code === 'slot_unavailable',
      );
    }
    return reply.redirect(done(result), 303);
  }

  const floorOf = async (ctx: Ctx) => {
    const everything = { after: null };
    return { areas: await listAreas(ctx, everything), tables: await listTables(ctx, everything) };
  };

  /** A table as the forms name it: its label, seats and area. */
  const tableChoices = (page: ReservationsPage, floor: Awaited<ReturnType<typeof floorOf>>) =>
    floor.tables.map((table: DashboardTable) => {
      const area = floor.areas.find((candidate) => candidate.id === table.area_id);
      return {
        value: table.id,
        label: page.view.t(area ? 'form.tableInArea' : 'form.table', {
          label: table.label,
          count: table.seats,
          area: area?.name,
        }),
      };
    });

  /** The times a booking can take on `date`: those offered and not past, and `keep` (a reservation's own). */
  const timeChoices = async (page: ReservationsPage, date: string, keep?: Date) => {
    const now = page.ctx.clock.now().getTime();
    const { times } = await dayOf(page.ctx, page.restaurant.timezone, date);
    const kept = keep === undefined ? [] : [keep.getTime()];
    return [...new Set([...times.filter((time) => time >= now), ...kept])]
      .sort((a, b) => a - b)
      .map((time) => new Date(time).toISOString());
  };

  /** The date a page asks for (`?date=`): today when none; an error when it is no date. */
  const askedDate = (request: FastifyRequest, page: ReservationsPage) => {
    const { date } = request.query as { date?: unknown };
    if (date === undefined || date === '') return { date: today(page), errors: [] };
    if (typeof date === 'string' && isDate(date)) return { date, errors: [] };
    return { date: today(page), errors: formErrors(page.view.t, [{ field: 'date', key: 'date' }]) };
  };

  const doneOf = (request: FastifyRequest) => {
    const { done } = request.query as { done?: string };
    return done !== undefined && doneMessages.has(done) ? done : null;
  };

  // The day view.
  app.get(
    base,
    reservationsPage(hosts, async (request, reply, page) => {
      const { date, errors } = askedDate(request, page);
      const { times, slotMinutes, from, until } = await dayOf(page.ctx, page.restaurant.timezone, date);
      const columns = gridColumns(times, slotMinutes);
      const reservations = await listReservations(
        page.ctx,
        { starts_from: from, starts_until: until },
        { after: null },
      );
      const floor = await floorOf(page.ctx);
      const day = DateTime.fromISO(date);
      return show(
        reply,
        { ...page, values: { date } },
        'reservations',
        {
          date,
          today: today(page),
          previous: day.minus({ days: 1 }).toISODate(),
          next: day.plus({ days: 1 }).toISODate(),
          times,
          columns,
          groups: times.length === 0 ? [] : dayGrid(columns, floor.areas, floor.tables, reservations),
          reservations,
          tableLabels: (reservation: Reservation) =>
            reservation.table_ids
              .map((id) => floor.tables.find((table) => table.id === id)?.label)
              .filter((label) => label !== undefined)
              .join(', '),
          done: doneOf(request),
          errors,
        },
        errors.length > 0 ? 400 : 200,
      );
    }),
  );

  // Booking.
  const showBooking = async (
    reply: FastifyReply,
    page: ReservationsPage,
    date: string,
    errors: FormError[],
    conflict = false,
  ) =>
    show(
      reply,
      page,
      'reservations-book',
      {
        date,
        times: await timeChoices(page, date),
        tables: tableChoices(page, await floorOf(page.ctx)),
        errors,
      },
      statusOf(errors, conflict),
    );

  app.get(
    `${base}/new`,
    reservationsPage(hosts, async (request, reply, page) => {
      const { date, errors } = askedDate(request, page);
      return showBooking(reply, { ...page, values: { ...newBookingValues, date } }, date, errors);
    }),
  );
  app.post(
    base,
    withCsrf,
    reservationsPage(hosts, async (_request, reply, page) => {
      const form = new FormReader(page.values);
      const input = bookingInput(form);
      form.check(ReservationInputSchema, input, (param) => param.replace(/\[\d+\]$/, ''));
      const date = isDate(form.text('date')) ? form.text('date') : today(page);
      return write(
        reply,
        page,
        form,
        (ctx) => createReservation(ctx, checkedInput(ReservationInputSchema, input), 'staff'),
        (reservation) =>
          `${page.home}?date=${localDate(page.restaurant.timezone, reservation.starts_at)}&done=booked`,
        { of: bookingRefusal, show: (errors, conflict) => showBooking(reply, page, date, errors, conflict) },
      );
    }),
  );

  // The booking settings (before `/:reservationId`, which would take `settings` for an id).
  const showSettings = async (
    reply: FastifyReply,
    page: ReservationsPage,
    errors: FormError[],
    done: string | null,
  ) => {
    const settings = await getReservationSettings(page.ctx);
    const floor = await floorOf(page.ctx);
    const labelOf = (id: string) => floor.tables.find((table) => table.id === id)?.label ?? '?';
    const values = errors.length > 0 ? page.values : settingsValues(settings);
    return show(
      reply,
      { ...page, values },
      'reservations-settings',
      {
        durationRows: durationRowCount(values),
        combinations: settings.combinations.map((ids) => ({
          value: ids.join(','),
          label: ids.map(labelOf).join(' + '),
        })),
        tables: tableChoices(page, floor),
        errors,
        done,
      },
      statusOf(errors, false),
    );
  };

  app.get(
    `${base}/settings`,
    reservationsPage(owners, async (request, reply, page) => showSettings(reply, page, [], doneOf(request))),
  );
  app.post(
    `${base}/settings`,
    withCsrf,
    reservationsPage(owners, async (_request, reply, page) => {
      const form = new FormReader(page.values);
      const { patch, durationRows } = settingsPatch(form);
      const kept = form.list('combinations').length;
      form.check(
        ReservationSettingsPatchSchema,
        patch,
        (param) => settingsRefusal(param, durationRows, kept).field ?? param,
      );
      return write(
        reply,
        page,
        form,
        (ctx) => updateReservationSettings(ctx, checkedInput(ReservationSettingsPatchSchema, patch)),
        () => `${page.home}/settings?done=settingsSaved`,
        {
          of: (_code, param) => settingsRefusal(param, durationRows, kept),
          show: (errors) => showSettings(reply, page, errors, null),
        },
      );
    }),
  );

  // A reservation's page.
  const reservationId = (request: FastifyRequest) =>
    (request.params as { reservationId: string }).reservationId;

  /**
   * The reservation's page: its facts, its form (the times of `date`, by default its own day), the
   * status moves possible now. `errors` of a refused form show with the form as sent.
   */
  const showReservation = async (
    reply: FastifyReply,
    page: ReservationsPage,
    reservation: Reservation,
    options: { date?: string; errors?: FormError[]; conflict?: boolean; done?: string | null } = {},
  ) => {
    const errors = options.errors ?? [];
    const date = options.date ?? localDate(page.restaurant.timezone, reservation.starts_at);
    const floor = await floorOf(page.ctx);
    const changeable = reservation.status === 'pending' || reservation.status === 'confirmed';
    return show(
      reply,
      {
        ...page,
        values: {
          ...reservationValues(reservation),
          ...(errors.length > 0 ? page.values : {}),
          date,
        },
      },
      'reservations-reservation',
      {
        reservation,
        action: `${page.home}/${reservation.id}`,
        date,
        dateOfReservation: localDate(page.restaurant.timezone, reservation.starts_at),
        changeable,
        times: changeable ? await timeChoices(page, date, reservation.starts_at) : [],
        tables: tableChoices(page, floor),
        tableLabels: reservation.table_ids
          .map((id) => floor.tables.find((table) => table.id === id)?.label)
          .filter((label) => label !== undefined)
          .join(', '),
        moves: reservationTransitions[reservation.status],
        errors,
        done: options.done ?? null,
      },
      statusOf(errors, options.conflict ?? false),
    );
  };

  /** The reservation the path names, or the 404 page. */
  const withReservation = (
    roles: readonly Role[],
    handler: (
      request: FastifyRequest,
      reply: FastifyReply,
      page: ReservationsPage,
      reservation: Reservation,
    ) => Promise<FastifyReply>,
  ) =>
    reservationsPage(roles, async (request, reply, page) => {
      let reservation: Reservation;
      try {
        reservation = await getReservation(page.ctx, reservationId(request));
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return notFound(reply, page);
        throw error;
      }
      return handler(request, reply, page, reservation);
    });

  app.get(
    `${base}/:reservationId`,
    withReservation(hosts, async (request, reply, page, reservation) => {
      const { date, errors } = askedDate(request, page);
      const asked = (request.query as { date?: unknown }).date !== undefined && errors.length === 0;
      return showReservation(reply, page, reservation, {
        ...(asked && { date }),
        errors,
        done: doneOf(request),
      });
    }),
  );
  app.post(
    `${base}/:reservationId`,
    withCsrf,
    withReservation(hosts, async (_request, reply, page, reservation) => {
      const form = new FormReader(page.values);
      const patch = reservationPatch(form, reservation);
      const date = isDate(form.text('date')) ? form.text('date') : undefined;
      return write(
        reply,
        page,
        form,
        async (ctx) => {
          if (Object.keys(patch).length === 0) return 'unchanged';
          await updateReservation(ctx, reservation.id, checkedInput(ReservationPatchSchema, patch));
          return 'saved';
        },
        (done) => `${page.home}/${reservation.id}?done=${done}`,
        {
          of: bookingRefusal,
          show: (errors, conflict) =>
            showReservation(reply, page, reservation, { ...(date && { date }), errors, conflict }),
        },
      );
    }),
  );

  // A status move: the buttons of the moves possible now.
  app.post(
    `${base}/:reservationId/status`,
    withCsrf,
    withReservation(hosts, async (_request, reply, page, reservation) => {
      const form = new FormReader(page.values);
      const status = form.choice('status', reservationStatuses);
      if (status === null) form.invalid.push('status');
      return write(
        reply,
        page,
        form,
        (ctx) =>
          updateReservation(
            ctx,
            reservation.id,
            checkedInput(ReservationPatchSchema, { status: status ?? undefined }),
          ),
        () => `${page.home}/${reservation.id}?done=status`,
        {
          of: () => ({ key: 'other' }),
          show: (errors, conflict) => showReservation(reply, page, reservation, { errors, conflict }),
        },
      );
    }),
  );

  // Deleting, for owners: first the confirmation, then the write.
  app.get(
    `${base}/:reservationId/delete`,
    withReservation(owners, async (_request, reply, page, reservation) =>
      show(reply, page, 'reservations-delete', { reservation }),
    ),
  );
  app.post(
    `${base}/:reservationId/delete`,
    withCsrf,
    withReservation(owners, async (_request, reply, page, reservation) =>
      write(
        reply,
        page,
        new FormReader({}),
        (ctx) => deleteReservation(ctx, reservation.id),
        () => `${page.home}?date=${localDate(page.restaurant.timezone, reservation.starts_at)}&done=deleted`,
        { of: () => ({ key: 'other' }), show: () => notFound(reply, page) },
      ),
    ),
  );
}
