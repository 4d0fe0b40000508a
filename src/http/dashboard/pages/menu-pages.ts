import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { allergenKeys } from '../../../domain/menu/allergen-names.ts';
import { createCategory, deleteCategory, updateCategory } from '../../../domain/menu/categories.service.ts';
import { dietKeys } from '../../../domain/menu/diet-names.ts';
import {
  CategoryInputSchema,
  CategoryPatchSchema,
  type Menu,
  OptionGroupInputSchema,
  OptionGroupPatchSchema,
  OptionInputSchema,
  OptionPatchSchema,
  type Product,
  ProductInputSchema,
  ProductPatchSchema,
} from '../../../domain/menu/menu.schema.ts';
import { getMenu } from '../../../domain/menu/menu.service.ts';
import { MenuRefreshInputSchema } from '../../../domain/menu/menu-refresh.schema.ts';
import { requestMenuRefresh } from '../../../domain/menu/menu-refresh.service.ts';
import {
  createOptionGroup,
  deleteOptionGroup,
  updateOptionGroup,
} from '../../../domain/menu/option-groups.service.ts';
import { createOption, deleteOption, updateOption } from '../../../domain/menu/options.service.ts';
import { createProduct, deleteProduct, updateProduct } from '../../../domain/menu/products.service.ts';
import { currentRestaurant, restaurantCtxOrNull } from '../../../domain/restaurants/restaurant-gate.ts';
import type { Ctx, Role } from '../../../domain/shared/context.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { formatDateTime, parseLocalDateTime } from '../../../i18n/local-time.ts';
import { formatMoney } from '../../../i18n/money.ts';
import { checkedInput } from '../../shared/validation.ts';
import { type FormError, messagePage, type PageView, renderPage, sendPage } from '../../web/page.ts';
import type { SignedInPageHandler } from '../../web/signed-in-pages.ts';
import {
  categoryInput,
  categoryValues,
  FormReader,
  type FormValues,
  fieldErrors,
  fieldOf,
  optionGroupInput,
  optionGroupValues,
  optionInput,
  optionValues,
  productInput,
  productValues,
  sentValues,
} from './menu-forms.ts';
import { type PhotoUploads, photoShown, type SentPhoto, sentPhoto } from './menu-photo.ts';
import { restaurantNavigation, restaurantNotFound } from './restaurant-page.ts';

/** Who edits the menu: its owners, as in the JSON API (menu.route.ts). */
const menuEditors: readonly Role[] = ['owner'];

/** What every menu page has: the owner's ctx in the restaurant, the restaurant and its menu. */
interface MenuPage {
  ctx: Ctx;
  view: PageView;
  restaurant: { id: string; name: string; timezone: string };
  menu: Menu;
  /** The menu page's path; the forms' paths are below it. */
  home: string;
  /** The form as sent (a POST), else as the page shows it first. */
  values: FormValues;
}

type MenuPageHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  page: MenuPage,
) => Promise<FastifyReply>;
type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** A kind of menu object and its form page (`<template>.eta`), at `<menu>/<path>/new` and `/<id>`. */
interface ObjectForm {
  path: 'categories' | 'products' | 'option-groups' | 'options';
  template: string;
  /** Its `done` messages (`<noun>Created`, …) and anchor on the menu page (`<noun>-<id>`). */
  noun: 'category' | 'product' | 'group' | 'option';
  /** Query fields the `new` form starts with (`?category_id=` from the category's link). */
  presets: readonly string[];
  /** Its form carries a photo (menu-photo.ts). */
  photo?: true;
  find(menu: Menu, id: string): object | undefined;
  shown(object: never, page: MenuPage): FormValues;
  /** The sent form as the service's input, read before the write (so `form.invalid` is complete). */
  read(form: FormReader, page: MenuPage): object;
  /** The API's schemas of that input, checked before the write for every refused field at once. */
  schemas: { create: object; update: object };
  create(ctx: Ctx, input: never, form: FormReader): Promise<{ id: string }>;
  update(ctx: Ctx, id: string, patch: never): Promise<unknown>;
  remove(ctx: Ctx, id: string): Promise<unknown>;
}

/**
 * A product form's input checked as the API's, but for its image_url, which the service checks
 * (acceptedImageUrl): an upload's address on a deployment without TLS is http, which the API's
 * schema refuses.
 */
function checkedWithPhoto<T extends { image_url?: string | null }>(schema: object, input: T): T {
  const { image_url, ...fields } = input;
  return { ...checkedInput(schema, fields), ...(image_url !== undefined && { image_url }) } as T;
}

const optionsOf = (menu: Menu) => menu.option_groups.flatMap((group) => group.options);

/*
 * Each form is read (menu-forms.ts), checked against the API's schema of the input (limits the
 * services leave to it) and given to the service, as the API's route would.
 */
const objectForms: readonly ObjectForm[] = [
  {
    path: 'categories',
    template: 'menu-category',
    noun: 'category',
    presets: [],
    find: (menu, id) => menu.categories.find((category) => category.id === id),
    shown: categoryValues,
    read: categoryInput,
    schemas: { create: CategoryInputSchema, update: CategoryPatchSchema },
    create: (ctx, input) => createCategory(ctx, checkedInput(CategoryInputSchema, input)),
    update: (ctx, id, patch) => updateCategory(ctx, id, checkedInput(CategoryPatchSchema, patch)),
    remove: deleteCategory,
  },
  {
    path: 'products',
    template: 'menu-product',
    noun: 'product',
    presets: ['category_id'],
    photo: true,
    find: (menu, id) => menu.products.find((product) => product.id === id),
    shown: (product, page) => productValues(product, page.menu.currency, page.view.locale),
    read: (form, page) => productInput(form, page.menu.currency),
    schemas: { create: ProductInputSchema, update: ProductPatchSchema },
    create: (ctx, input) => createProduct(ctx, checkedWithPhoto(ProductInputSchema, input)),
    update: (ctx, id, patch) => updateProduct(ctx, id, checkedWithPhoto(ProductPatchSchema, patch)),
    remove: deleteProduct,
  },
  {
    path: 'option-groups',
    template: 'menu-option-group',
    noun: 'group',
    presets: ['product_id'],
    find: (menu, id) => menu.option_groups.find((group) => group.id === id),
    shown: optionGroupValues,
    read: optionGroupInput,
    schemas: { create: OptionGroupInputSchema, update: OptionGroupPatchSchema },
    create: (ctx, input) => createOptionGroup(ctx, checkedInput(OptionGroupInputSchema, input)),
    update: (ctx, id, patch) => updateOptionGroup(ctx, id, checkedInput(OptionGroupPatchSchema, patch)),
    remove: deleteOptionGroup,
  },
  {
    path: 'options',
    template: 'menu-option',
    noun: 'option',
    // An option is added to a group: the group's link names it, the form sends it back.
    presets: ['group_id'],
    find: (menu, id) => optionsOf(menu).find((option) => option.id === id),
    shown: (option, page) => optionValues(option, page.menu.currency, page.view.locale),
    read: (form, page) => optionInput(form, page.menu.currency),
    schemas: { create: OptionInputSchema, update: OptionPatchSchema },
    create: (ctx, input, form) =>
      createOption(ctx, form.text('group_id'), checkedInput(OptionInputSchema, input)),
    update: (ctx, id, patch) => updateOption(ctx, id, checkedInput(OptionPatchSchema, patch)),
    remove: deleteOption,
  },
];

/** The messages after a write, shown on the menu page (`?done=`). */
const doneMessages = new Set([
  ...objectForms.flatMap(({ noun }) => ['Created', 'Saved', 'Deleted'].map((done) => `${noun}${done}`)),
  'availability',
  'refreshSent',
]);

/** A form may carry a description of 2000 characters, percent-encoded up to 12 bytes each. */
const formBodyLimit = 64 * 1024;

/*
 * The menu editor at `/dashboard/restaurants/{id}/menu`, for the restaurant's owners (anyone else:
 * the restaurant is 404): the menu page lists categories with their products and the shared option
 * groups with their options, each with its sold-out switch; a page per object to add, change or
 * delete it; and the refresh request to the connected apps. Plain forms (post, CSRF-checked, then
 * 303 to the menu page with what was done), each write through the menu's domain services in one
 * transaction, so the rules and events are the API's, with the owner as actor. A refused input
 * shows the form again (400) with the error beside its field (the refusal's `param`) and in the
 * summary above.
 */
export function menuPages(app: FastifyInstance, signedInPage: Wrap, photos?: PhotoUploads): void {
  const withCsrf = { preHandler: app.csrfProtection, bodyLimit: formBodyLimit };
  const base = '/dashboard/restaurants/:restaurantId/menu';

  const menuPage = (handler: MenuPageHandler) =>
    signedInPage(async (request, reply, signedIn) => {
      const { restaurantId } = request.params as { restaurantId: string };
      const ctx = await restaurantCtxOrNull(signedIn.ctx, restaurantId, menuEditors);
      if (!ctx) return restaurantNotFound(reply, signedIn.view());
      const view = signedIn.view();
      const restaurant = await currentRestaurant(ctx);
      return handler(request, reply, {
        ctx,
        view: { ...view, nav: restaurantNavigation(view, restaurant.id, 'menu', 'owner') },
        restaurant,
        menu: await getMenu(ctx),
        home: `/dashboard/restaurants/${restaurant.id}/menu`,
        values: sentValues(request.method === 'POST' ? request.body : {}),
      });
    });

  /** A page of the menu editor: its template with what every one uses (amounts, times, labels). */
  const show = (reply: FastifyReply, page: MenuPage, template: string, data: object, status = 200) => {
    const { locale } = page.view;
    return sendPage(
      reply,
      status,
      renderPage(`dashboard/pages/${template}`, page.view, {
        restaurant: page.restaurant,
        menu: page.menu,
        home: page.home,
        values: page.values,
        errors: [],
        allergenKeys,
        dietKeys,
        money: (minor: number, signed = false) => formatMoney(minor, page.menu.currency, locale, signed),
        time: (at: Date | string) => formatDateTime(at, page.restaurant.timezone, locale),
        ...data,
      }),
    );
  };

  const notOnMenu = (reply: FastifyReply, page: MenuPage) =>
    sendPage(
      reply,
      404,
      messagePage(page.view, {
        title: page.view.t('menu.notFoundTitle'),
        message: page.view.t('menu.notFound'),
        link: { href: page.home, text: page.view.t('menu.back') },
      }),
    );

  const showMenu = (reply: FastifyReply, page: MenuPage, done: string | null, errors: FormError[] = []) =>
    show(reply, page, 'menu', { done, errors }, errors.length > 0 ? 400 : 200);

  /**
   * Runs a write in one transaction, then sends the browser to the menu page, at `anchor` (the
   * write's answer gives its id) with the `done` message. An input the form could not read
   * (`invalid` fields, or `attached` errors of what came with it: a photo) or a service refused
   * (400 with `param`) goes to `refused`; an object gone meanwhile is the not-on-the-menu page.
   */
  async function write(
    reply: FastifyReply,
    page: MenuPage,
    form: FormReader,
    work: (ctx: Ctx) => Promise<unknown>,
    done: { message: string; anchor?: (id: string) => string },
    refused: (errors: FormError[]) => FastifyReply,
    attached: readonly FormError[] = [],
  ): Promise<FastifyReply> {
    if (form.invalid.length > 0 || attached.length > 0)
      return refused([...fieldErrors(page.view.t, form.invalid), ...attached]);
    let result: unknown;
    try {
      result = await writeTransaction(page.ctx.db, (trx) => work({ ...page.ctx, db: trx }));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'not_found') return notOnMenu(reply, page);
      if (error.code !== 'invalid_request') throw error;
      return refused(
        fieldErrors(page.view.t, [error.param === undefined ? undefined : fieldOf(error.param)]),
      );
    }
    const id = (result as { id?: unknown } | undefined)?.id;
    const anchor = done.anchor && typeof id === 'string' ? `#${done.anchor(id)}` : '';
    return reply.redirect(`${page.home}?done=${done.message}${anchor}`, 303);
  }

  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

  app.get(
    base,
    menuPage(async (request, reply, page) => {
      const { done } = request.query as { done?: string };
      return showMenu(reply, page, done !== undefined && doneMessages.has(done) ? done : null);
    }),
  );

  app.post(
    `${base}/refresh-requests`,
    withCsrf,
    menuPage(async (_request, reply, page) => {
      const form = new FormReader(page.values);
      const input = { note: form.optionalText('note') };
      return write(
        reply,
        page,
        form,
        (ctx) => requestMenuRefresh(ctx, checkedInput(MenuRefreshInputSchema, input)),
        { message: 'refreshSent' },
        (errors) => showMenu(reply, page, null, errors),
      );
    }),
  );

  /*
   * The sold-out switch of a product or option: `available` true or false; with false an optional
   * `until`, the restaurant's wall-clock time at which it goes back on sale by itself. A refusal
   * shows the menu page with the error beside that item's time field (`until-<id>`).
   */
  const availability =
    (
      noun: 'product' | 'option',
      update: (
        ctx: Ctx,
        id: string,
        patch: { available: boolean; unavailable_until?: string },
      ) => Promise<unknown>,
    ): MenuPageHandler =>
    async (request, reply, page) => {
      const id = idOf(request);
      const form = new FormReader(page.values);
      const available = form.text('available') === 'true';
      const untilText = available ? '' : form.text('until').trim();
      const until = untilText === '' ? undefined : parseLocalDateTime(untilText, page.restaurant.timezone);
      if (until === null) form.invalid.push('until');
      const patch = { available, ...(until && { unavailable_until: until }) };
      return write(
        reply,
        page,
        form,
        async (ctx) => {
          await update(ctx, id, patch);
          return { id };
        },
        { message: 'availability', anchor: (found) => `${noun}-${found}` },
        (errors) =>
          showMenu(
            reply,
            page,
            null,
            errors.map(() => ({ field: `until-${id}`, message: page.view.t('menuForm.errors.until') })),
          ),
      );
    };
  app.post(`${base}/products/:id/availability`, withCsrf, menuPage(availability('product', updateProduct)));
  app.post(`${base}/options/:id/availability`, withCsrf, menuPage(availability('option', updateOption)));

  for (const kind of objectForms) {
    const showForm = (reply: FastifyReply, page: MenuPage, object: object | null, errors: FormError[] = []) =>
      show(
        reply,
        page,
        kind.template,
        {
          object,
          action: `${page.home}/${kind.path}${object ? `/${(object as { id: string }).id}` : ''}`,
          errors,
          uploads: kind.photo && photos !== undefined,
          photo:
            kind.photo && photos
              ? photoShown(object as Product | null, String(page.values.image_url ?? ''), photos.baseUrl)
              : null,
        },
        errors.length > 0 ? 400 : 200,
      );
    const anchor = (id: string) => `${kind.noun}-${id}`;
    /** The form's photo, if it has one; the form shown again keeps the one taken. */
    const attached = async (request: FastifyRequest, page: MenuPage, form: FormReader) => {
      const sent: SentPhoto = kind.photo
        ? await sentPhoto(request, page.ctx, form, page.view, photos)
        : { input: {}, errors: [] };
      const taken = sent.input.image_url;
      const values = taken === undefined ? page.values : { ...page.values, image_url: taken ?? '' };
      return { ...sent, page: { ...page, values } };
    };

    app.get(
      `${base}/${kind.path}/new`,
      menuPage(async (request, reply, page) => {
        const query = sentValues(request.query);
        const values = Object.fromEntries(
          kind.presets.flatMap((name) => (query[name] ? [[name, query[name]]] : [])),
        );
        return showForm(reply, { ...page, values }, null);
      }),
    );
    app.post(
      `${base}/${kind.path}`,
      withCsrf,
      menuPage(async (request, reply, sentPage) => {
        const form = new FormReader(sentPage.values);
        const { input: photo, errors, page } = await attached(request, sentPage, form);
        const read = kind.read(form, page);
        form.check(kind.schemas.create, read, fieldOf);
        const input = { ...read, ...photo };
        return write(
          reply,
          page,
          form,
          (ctx) => kind.create(ctx, input as never, form),
          { message: `${kind.noun}Created`, anchor },
          (refusals) => showForm(reply, page, null, refusals),
          errors,
        );
      }),
    );
    app.get(
      `${base}/${kind.path}/:id`,
      menuPage(async (request, reply, page) => {
        const object = kind.find(page.menu, idOf(request));
        if (!object) return notOnMenu(reply, page);
        return showForm(reply, { ...page, values: kind.shown(object as never, page) }, object);
      }),
    );
    app.post(
      `${base}/${kind.path}/:id`,
      withCsrf,
      menuPage(async (request, reply, sentPage) => {
        const id = idOf(request);
        const object = kind.find(sentPage.menu, id);
        if (!object) return notOnMenu(reply, sentPage);
        const form = new FormReader(sentPage.values);
        const { input: photo, errors, page } = await attached(request, sentPage, form);
        const read = kind.read(form, page);
        form.check(kind.schemas.update, read, fieldOf);
        const patch = { ...read, ...photo };
        return write(
          reply,
          page,
          form,
          async (ctx) => {
            await kind.update(ctx, id, patch as never);
            return { id };
          },
          { message: `${kind.noun}Saved`, anchor },
          (refusals) => showForm(reply, page, object, refusals),
          errors,
        );
      }),
    );
    app.post(
      `${base}/${kind.path}/:id/delete`,
      withCsrf,
      menuPage(async (request, reply, page) =>
        write(
          reply,
          page,
          new FormReader({}),
          (ctx) => kind.remove(ctx, idOf(request)),
          { message: `${kind.noun}Deleted` },
          () => notOnMenu(reply, page),
        ),
      ),
    );
  }
}
