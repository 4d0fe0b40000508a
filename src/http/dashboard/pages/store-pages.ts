import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { imagePath } from '../../../domain/menu/menu-images.ts';
import { usableOrderStatuses } from '../../../domain/orders/order-status.ts';
import { restaurantCtxOrNull } from '../../../domain/restaurants/restaurant-gate.ts';
import type { Ctx, Role } from '../../../domain/shared/context.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import type { ImageFetcher } from '../../../domain/shared/image-fetcher.ts';
import type { Plan } from '../../../domain/shared/scopes.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { guestOrderLimit, setGuestOrderLimit } from '../../../domain/store/guest-limits.ts';
import { localDate } from '../../../domain/store/schedule.ts';
import {
  ClosureInputSchema,
  orderTypes,
  PauseInputSchema,
  type Store,
  StoreHoursInputSchema,
  StoreSettingsPatchSchema,
} from '../../../domain/store/store.schema.ts';
import {
  deleteClosure,
  getStoreAndRestaurant,
  pauseStore,
  plansWithOrderType,
  putStoreHours,
  resumeStore,
  updateStore,
  upsertClosure,
} from '../../../domain/store/store.service.ts';
import {
  type StorefrontLook,
  type StorefrontPicture,
  setAccentColor,
  setStorefrontPicture,
} from '../../../domain/store/storefront-look.ts';
import { maxVatId, setStoreVatId, storeVatId } from '../../../domain/store/vat-id.ts';
import { formatDateTime } from '../../../i18n/local-time.ts';
import { checkedInput } from '../../shared/validation.ts';
import { type FormError, messagePage, type PageView, renderPage, sendPage } from '../../web/page.ts';
import type { SignedInPageHandler } from '../../web/signed-in-pages.ts';
import { FormReader, type FormValues, sentValues } from './menu-forms.ts';
import { restaurantNavigation, restaurantNotFound } from './restaurant-page.ts';
import {
  busyDurations,
  busyFieldOf,
  busyInput,
  hourLists,
  hoursFieldOf,
  hoursInput,
  hoursValues,
  pauseInput,
  pauseValues,
  rowId,
  sentRows,
  settingsFieldOf,
  settingsInput,
  settingsValues,
  specialDayFieldOf,
  specialDayInput,
  specialDayRows,
} from './store-forms.ts';
import { sentPicture, storefrontPictures } from './store-pictures.ts';
import {
  sentZoneRows,
  zoneErrorKey,
  zoneField,
  zoneFieldOf,
  zonesInput,
  zonesValues,
} from './store-zone-forms.ts';

/** Who manages the store: its owners, as in the JSON API (store.route.ts). */
const storeManagers: readonly Role[] = ['owner'];

/** What every store page has: the owner's ctx in the restaurant, its store and plan. */
interface StorePage {
  ctx: Ctx;
  view: PageView;
  store: Store;
  plan: Plan;
  /** The storefront's colour and pictures (storefront-look.ts). */
  look: StorefrontLook;
  /** The store page's path; the other pages are below it. */
  home: string;
  /** The form as sent (a POST), else empty (each page fills in what it shows). */
  values: FormValues;
}

type StorePageHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  page: StorePage,
) => Promise<FastifyReply>;
type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** The store's pages (`<home><path>`) and their templates, in the order of their tabs. */
const sections = [
  { path: '', template: 'store', tab: 'settings' },
  { path: '/hours', template: 'store-hours', tab: 'hours' },
  { path: '/special-days', template: 'store-special-days', tab: 'specialDays' },
  { path: '/delivery-zones', template: 'store-zones', tab: 'zones' },
  { path: '/pause', template: 'store-pause', tab: 'pause' },
] as const;
type Section = (typeof sections)[number];

/** The messages after a write (`?done=`), each shown on its page. */
const doneMessages = new Set([
  'settingsSaved',
  'hoursSaved',
  'dayAdded',
  'daySaved',
  'dayDeleted',
  'zonesSaved',
  'paused',
  'pauseChanged',
  'resumed',
  'busyStarted',
  'busyEnded',
]);

/** A form as a page shows it: its values, the errors of a refused one, or what was just done. */
interface ShownForm {
  values: FormValues;
  errors?: FormError[];
  done?: string | null;
}

/** A refused field: where its error shows, and its message (`errors.<key>`). */
interface Refusal {
  field?: string;
  key: string;
}

/*
 * The store's pages at `/dashboard/restaurants/{id}/store`, for the restaurant's owners (anyone
 * else: the restaurant is 404): the store's state and settings, the weekly opening and delivery
 * hours, the special days, and the pause and busy mode. Plain forms (post, CSRF-checked, then 303
 * to the page with what was done), each write through the store's domain service in one
 * transaction, so the rules and events (store.updated, store.paused, store.resumed) are the JSON
 * API's, with the owner as actor. A refused input shows the form again (400) with the error beside
 * its field (the refusal's `param`) and in the summary above; nothing is saved. Times are the
 * restaurant's wall-clock times, whatever the browser's zone.
 */
export function storePages(app: FastifyInstance, signedInPage: Wrap, pictures?: ImageFetcher): void {
  const withCsrf = { preHandler: app.csrfProtection };
  const base = '/dashboard/restaurants/:restaurantId/store';

  const storePage = (handler: StorePageHandler) =>
    signedInPage(async (request, reply, signedIn) => {
      const { restaurantId } = request.params as { restaurantId: string };
      const ctx = await restaurantCtxOrNull(signedIn.ctx, restaurantId, storeManagers);
      if (!ctx) return restaurantNotFound(reply, signedIn.view());
      const view = signedIn.view('dashboard-store');
      const { store, plan, look } = await getStoreAndRestaurant(ctx);
      return handler(request, reply, {
        ctx,
        view: { ...view, nav: restaurantNavigation(view, store.id, 'store', 'owner') },
        store,
        plan,
        look,
        home: `/dashboard/restaurants/${store.id}/store`,
        values: sentValues(request.method === 'POST' ? request.body : {}),
      });
    });

  /** A store page: its template with the tabs, the store's state and what every form uses. */
  const show = (reply: FastifyReply, page: StorePage, section: Section, form: ShownForm, data: object) => {
    const { locale } = page.view;
    const { store } = page;
    const errors = form.errors ?? [];
    return sendPage(
      reply,
      errors.length > 0 ? 400 : 200,
      renderPage(`dashboard/pages/${section.template}`, page.view, {
        store,
        home: page.home,
        tabs: sections.map((other) => ({
          href: `${page.home}${other.path}`,
          label: page.view.t(`tabs.${other.tab}`),
          current: other === section,
        })),
        values: form.values,
        errors,
        done: form.done ?? null,
        time: (at: Date | string) => formatDateTime(at, store.timezone, locale),
        ...data,
      }),
    );
  };

  const doneOf = (request: FastifyRequest) => {
    const { done } = request.query as { done?: string };
    return done !== undefined && doneMessages.has(done) ? done : null;
  };

  const errorsOf = (view: PageView, refusals: readonly Refusal[]): FormError[] =>
    refusals.map(({ field, key }) => ({
      ...(field === undefined ? {} : { field }),
      message: view.t(`errors.${key}`, { defaultValue: view.t('errors.other') }),
    }));

  /**
   * Runs a write in one transaction, then sends the browser to `to` with the `done` message (the
   * write's answer may choose it). Fields the form could not read (`form.invalid`) or a refusal of
   * the service (its `param` → `fieldOf`; the message `errors.<keyOf(field)>`) are shown by
   * `refused.show`, and nothing is written; a special day gone meanwhile is a 404 page.
   */
  async function write<T>(
    reply: FastifyReply,
    page: StorePage,
    form: FormReader,
    work: (ctx: Ctx) => Promise<T>,
    done: { to: string; message: string | ((result: T) => string) },
    refused: {
      fieldOf: (param: string) => string;
      keyOf?: (field: string) => string;
      show: (errors: FormError[]) => FastifyReply;
    },
  ): Promise<FastifyReply> {
    const keyOf = refused.keyOf ?? ((field: string) => field);
    if (form.invalid.length > 0)
      return refused.show(
        errorsOf(
          page.view,
          form.invalid.map((field) => ({ field, key: keyOf(field) })),
        ),
      );
    let result: T;
    try {
      result = await writeTransaction(page.ctx.db, (trx) => work({ ...page.ctx, db: trx }));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'not_found') return notFound(reply, page);
      const field = error.param === undefined ? undefined : refused.fieldOf(error.param);
      if (error.code === 'plan_required')
        return refused.show(errorsOf(page.view, [{ field, key: 'planRequired' }]));
      if (error.code === 'limit_exceeded') return refused.show(errorsOf(page.view, [{ key: 'tooManyDays' }]));
      if (error.code !== 'invalid_request') throw error;
      return refused.show(
        errorsOf(page.view, [{ field, key: field === undefined ? 'other' : keyOf(field) }]),
      );
    }
    const message = typeof done.message === 'string' ? done.message : done.message(result);
    return reply.redirect(`${done.to}?done=${message}`, 303);
  }

  const notFound = (reply: FastifyReply, page: StorePage) =>
    sendPage(
      reply,
      404,
      messagePage(page.view, {
        title: page.view.t('specialDays.notFoundTitle'),
        message: page.view.t('specialDays.notFound'),
        link: { href: `${page.home}/special-days`, text: page.view.t('specialDays.back') },
      }),
    );

  // The store's state and settings.
  const [settings, hours, specialDays, zones, pause] = sections;

  /** Each order type, whether it is offered, and the plans that include it when this one does not. */
  const orderTypeChoices = (page: StorePage) =>
    orderTypes.map((type) => {
      const plans = plansWithOrderType(type);
      const outside = plans !== null && !plans.includes(page.plan);
      // A type already on stays switchable (off is always allowed), even outside the plan.
      return { type, plans: outside ? plans : null, disabled: outside && !page.store.order_types[type] };
    });
  const showSettings = (reply: FastifyReply, page: StorePage, form: ShownForm) =>
    show(reply, page, settings, form, {
      orderTypeChoices: orderTypeChoices(page),
      orderStatuses: usableOrderStatuses,
      pictures: pictures ? storefrontPictures : [],
      shownPicture: (name: StorefrontPicture) => {
        const sizes = page.look[name];
        return sizes && imagePath(sizes['400']);
      },
    });

  app.get(
    base,
    storePage(async (request, reply, page) =>
      showSettings(reply, page, {
        values: {
          ...settingsValues(page.store, page.view.locale),
          guest_orders_per_minute: String(await guestOrderLimit(page.ctx)),
          vat_id: (await storeVatId(page.ctx)) ?? '',
          accent_color: page.look.accentColor ?? '',
        },
        done: doneOf(request),
      }),
    ),
  );

  app.post(
    base,
    withCsrf,
    storePage(async (request, reply, page) => {
      const form = new FormReader(page.values);
      const patch = settingsInput(form, page.store.currency);
      form.check(StoreSettingsPatchSchema, patch, settingsFieldOf);
      // Not fields of the API's store: the guest limit, the storefront's look and the VAT id are
      // the owner's alone (guest-limits.ts, storefront-look.ts, vat-id.ts).
      const guestOrders = form.integer('guest_orders_per_minute');
      if (guestOrders === undefined) form.invalid.push('guest_orders_per_minute');
      const accent = form.optionalText('accent_color');
      const vatId = form.optionalText('vat_id');
      if (vatId !== null && vatId.trim().length > maxVatId) form.invalid.push('vat_id');
      const sent = await Promise.all(
        storefrontPictures.map(
          async (name) => [name, await sentPicture(request, form, name, pictures)] as const,
        ),
      );
      form.check(StoreSettingsPatchSchema, patch, settingsFieldOf);
      return write(
        reply,
        page,
        form,
        async (ctx) => {
          await updateStore(ctx, checkedInput(StoreSettingsPatchSchema, patch));
          await setGuestOrderLimit(ctx, guestOrders ?? 0);
          await setAccentColor(ctx, accent ?? null);
          await setStoreVatId(ctx, vatId);
          for (const [name, sizes] of sent)
            if (sizes !== undefined) await setStorefrontPicture(ctx, name, sizes);
        },
        { to: page.home, message: 'settingsSaved' },
        {
          fieldOf: settingsFieldOf,
          show: (errors) => showSettings(reply, page, { values: page.values, errors }),
        },
      );
    }),
  );

  // The weekly hours: each weekday's ranges, those shown plus an empty one to add.
  const showHours = (reply: FastifyReply, page: StorePage, form: ShownForm & { sent: boolean }) => {
    const rowsOf = (list: (typeof hourLists)[number], weekday: number) => {
      const shown = page.store[list].filter((window) => window.weekday === weekday).length;
      const count = form.sent ? sentRows(form.values, list, weekday) : shown + 1;
      return Array.from({ length: Math.max(count, 1) }, (_, index) => rowId(list, weekday, index));
    };
    return show(reply, page, hours, form, { hourLists, rowsOf });
  };

  app.get(
    `${base}/hours`,
    storePage(async (request, reply, page) =>
      showHours(reply, page, { values: hoursValues(page.store), sent: false, done: doneOf(request) }),
    ),
  );

  app.post(
    `${base}/hours`,
    withCsrf,
    storePage(async (_request, reply, page) => {
      const form = new FormReader(page.values);
      const { input, rows } = hoursInput(form);
      form.check(StoreHoursInputSchema, input, (param) => hoursFieldOf(param, rows));
      return write(
        reply,
        page,
        form,
        (ctx) => putStoreHours(ctx, checkedInput(StoreHoursInputSchema, input)),
        { to: `${page.home}/hours`, message: 'hoursSaved' },
        {
          fieldOf: (param) => hoursFieldOf(param, rows),
          keyOf: (field) => (/-\d+-\d+$/.test(field) ? 'range' : field),
          show: (errors) => showHours(reply, page, { values: page.values, sent: true, errors }),
        },
      );
    }),
  );

  // The special days: the list, a form to add one (or change the one of its date), delete.
  const showSpecialDays = (reply: FastifyReply, page: StorePage, form: ShownForm) =>
    show(reply, page, specialDays, form, {
      today: localDate(page.store.timezone, page.ctx.clock.now()),
      specialDayRows,
    });

  app.get(
    `${base}/special-days`,
    storePage(async (request, reply, page) =>
      showSpecialDays(reply, page, { values: { closed: 'true' }, done: doneOf(request) }),
    ),
  );

  app.post(
    `${base}/special-days`,
    withCsrf,
    storePage(async (_request, reply, page) => {
      const form = new FormReader(page.values);
      const input = specialDayInput(form);
      form.check(ClosureInputSchema, input, specialDayFieldOf);
      return write(
        reply,
        page,
        form,
        (ctx) => upsertClosure(ctx, checkedInput(ClosureInputSchema, input)),
        { to: `${page.home}/special-days`, message: ({ created }) => (created ? 'dayAdded' : 'daySaved') },
        {
          fieldOf: specialDayFieldOf,
          show: (errors) => showSpecialDays(reply, page, { values: page.values, errors }),
        },
      );
    }),
  );

  app.post(
    `${base}/special-days/:date/delete`,
    withCsrf,
    storePage(async (request, reply, page) => {
      const { date } = request.params as { date: string };
      return write(
        reply,
        page,
        new FormReader({}),
        (ctx) => deleteClosure(ctx, date),
        { to: `${page.home}/special-days`, message: 'dayDeleted' },
        { fieldOf: () => 'date', show: () => notFound(reply, page) },
      );
    }),
  );

  // The delivery zones: each zone's row (with a box to remove it), and an empty one to add a zone.
  const showZones = (reply: FastifyReply, page: StorePage, form: ShownForm & { rows: number }) =>
    show(reply, page, zones, form, {
      rows: Array.from({ length: form.rows }, (_, row) => row),
      zones: page.store.delivery_zones.length,
      zoneField,
    });

  app.get(
    `${base}/delivery-zones`,
    storePage(async (request, reply, page) =>
      showZones(reply, page, { ...zonesValues(page.store, page.view.locale), done: doneOf(request) }),
    ),
  );

  app.post(
    `${base}/delivery-zones`,
    withCsrf,
    storePage(async (_request, reply, page) => {
      const form = new FormReader(page.values);
      const { input, rows } = zonesInput(form, page.store.currency);
      const fieldOf = (param: string) => zoneFieldOf(param, rows);
      form.check(StoreSettingsPatchSchema, input, fieldOf);
      return write(
        reply,
        page,
        form,
        (ctx) => updateStore(ctx, checkedInput(StoreSettingsPatchSchema, input)),
        { to: `${page.home}/delivery-zones`, message: 'zonesSaved' },
        {
          fieldOf,
          keyOf: zoneErrorKey,
          show: (errors) =>
            showZones(reply, page, { values: page.values, rows: sentZoneRows(page.values), errors }),
        },
      );
    }),
  );

  // The pause (until a time or until ended) and busy mode (extra minutes for a while).
  const showPause = (reply: FastifyReply, page: StorePage, form: ShownForm) =>
    show(reply, page, pause, form, { busyDurations });

  app.get(
    `${base}/pause`,
    storePage(async (request, reply, page) =>
      showPause(reply, page, {
        values: pauseValues(page.store),
        done: doneOf(request),
      }),
    ),
  );

  app.post(
    `${base}/pause`,
    withCsrf,
    storePage(async (_request, reply, page) => {
      const form = new FormReader(page.values);
      const input = pauseInput(form, page.store.timezone);
      form.check(PauseInputSchema, input);
      const wasPaused = page.store.status === 'paused';
      return write(
        reply,
        page,
        form,
        (ctx) => pauseStore(ctx, checkedInput(PauseInputSchema, input)),
        { to: `${page.home}/pause`, message: wasPaused ? 'pauseChanged' : 'paused' },
        {
          fieldOf: (param) => param,
          keyOf: (field) => (field === 'note' ? 'pauseNote' : field),
          show: (errors) =>
            showPause(reply, page, { values: { ...pauseValues(page.store), ...page.values }, errors }),
        },
      );
    }),
  );

  app.post(
    `${base}/pause/end`,
    withCsrf,
    storePage(async (_request, reply, page) =>
      write(
        reply,
        page,
        new FormReader({}),
        (ctx) => resumeStore(ctx),
        { to: `${page.home}/pause`, message: 'resumed' },
        {
          fieldOf: (param) => param,
          show: (errors) => showPause(reply, page, { values: pauseValues(page.store), errors }),
        },
      ),
    ),
  );

  app.post(
    `${base}/busy`,
    withCsrf,
    storePage(async (_request, reply, page) => {
      const form = new FormReader(page.values);
      const patch = busyInput(form, page.ctx.clock.now());
      form.check(StoreSettingsPatchSchema, patch, busyFieldOf);
      return write(
        reply,
        page,
        form,
        (ctx) => updateStore(ctx, checkedInput(StoreSettingsPatchSchema, patch)),
        { to: `${page.home}/pause`, message: 'busyStarted' },
        {
          fieldOf: busyFieldOf,
          show: (errors) =>
            showPause(reply, page, { values: { ...pauseValues(page.store), ...page.values }, errors }),
        },
      );
    }),
  );

  app.post(
    `${base}/busy/end`,
    withCsrf,
    storePage(async (_request, reply, page) =>
      write(
        reply,
        page,
        new FormReader({}),
        (ctx) => updateStore(ctx, { busy: null }),
        { to: `${page.home}/pause`, message: 'busyEnded' },
        {
          fieldOf: busyFieldOf,
          show: (errors) => showPause(reply, page, { values: pauseValues(page.store), errors }),
        },
      ),
    ),
  );
}
