import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import type { Config } from '../../../config.ts';
import { currentRestaurant, restaurantCtxOrNull } from '../../../domain/restaurants/restaurant-gate.ts';
import type { Ctx, Role } from '../../../domain/shared/context.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { createArea, deleteArea, listAreas, updateArea } from '../../../domain/store/areas.service.ts';
import { StoreSettingsPatchSchema } from '../../../domain/store/store.schema.ts';
import { getStore, updateStore } from '../../../domain/store/store.service.ts';
import {
  AreaInputSchema,
  AreaPatchSchema,
  type DashboardArea,
  type DashboardTable,
  TableInputSchema,
  TablePatchSchema,
} from '../../../domain/store/table.schema.ts';
import {
  createTable,
  defaultSeatsOf,
  deleteTable,
  listTables,
  regenerateQrKey,
  updateTable,
} from '../../../domain/store/tables.service.ts';
import { checkedInput } from '../../shared/validation.ts';
import { tableAddress } from '../../storefront/storefront-address.ts';
import { type FormError, messagePage, type PageView, renderPage, sendPage } from '../../web/page.ts';
import type { SignedInPageHandler } from '../../web/signed-in-pages.ts';
import { FormReader, type FormValues, sentValues } from './menu-forms.ts';
import { restaurantNavigation, restaurantNotFound } from './restaurant-page.ts';
import {
  areaInput,
  areaValues,
  fieldErrors,
  newAreaValues,
  newTableValues,
  tableInput,
  tableValues,
} from './tables-forms.ts';

/** Who manages the floor: its owners, as in the JSON API (tables.route.ts). */
const floorEditors: readonly Role[] = ['owner'];

/** What every tables page has: the owner's ctx in the restaurant, its areas and tables. */
interface TablesPage {
  ctx: Ctx;
  view: PageView;
  restaurant: { id: string; name: string };
  areas: DashboardArea[];
  tables: DashboardTable[];
  /** The tables page's path; the others are below it. */
  home: string;
  /** The form as sent (a POST), else as the page shows it first. */
  values: FormValues;
}

type TablesPageHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  page: TablesPage,
) => Promise<FastifyReply>;
type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Where the printed codes lead: the storefront's address (storefront-address.ts). */
export type TablesPagesConfig = Pick<Config, 'baseUrl'> & Partial<Pick<Config, 'storefrontDomain'>>;

/** The messages after a write, shown on the tables page (`?done=`). */
const doneMessages = new Set([
  ...['area', 'table'].flatMap((noun) => ['Created', 'Saved', 'Deleted'].map((done) => `${noun}${done}`)),
  'qrKeyChanged',
  'defaultSeatsSaved',
]);

/** A table as the templates get it: without its key, which only its QR code may carry. */
const shown = ({ qr_key: _, ...table }: DashboardTable) => table;

/** The QR code of a table's address as inline SVG: error correction M survives a smudge. */
const qrSvg = (url: string) => QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M' });

/*
 * The restaurant's floor at `/dashboard/restaurants/{id}/tables`, for its owners (anyone else: the
 * restaurant is 404): its areas with their tables; a page to add, change or delete each; a new QR
 * code for a table (after a confirmation: the printed one stops working); and a page of the codes
 * to print (all, or `?table=` one). Plain forms (post, CSRF-checked, then 303 to the tables page
 * with what was done), each write through the same services as the JSON API in one transaction. A
 * refused input shows the form again (400) with the error beside its field (the refusal's `param`).
 * A table's key is only ever inside its QR code: no page shows it as text, in a link or attribute
 * (whoever holds it can order to that table).
 */
export function tablesPages(app: FastifyInstance, signedInPage: Wrap, config: TablesPagesConfig): void {
  const withCsrf = { preHandler: app.csrfProtection };
  const base = '/dashboard/restaurants/:restaurantId/tables';

  const tablesPage = (handler: TablesPageHandler) =>
    signedInPage(async (request, reply, signedIn) => {
      const { restaurantId } = request.params as { restaurantId: string };
      const ctx = await restaurantCtxOrNull(signedIn.ctx, restaurantId, floorEditors);
      if (!ctx) return restaurantNotFound(reply, signedIn.view());
      const view = signedIn.view('dashboard-tables');
      const restaurant = await currentRestaurant(ctx);
      const everything = { after: null };
      return handler(request, reply, {
        ctx,
        view: { ...view, nav: restaurantNavigation(view, restaurant.id, 'tables', 'owner') },
        restaurant,
        areas: await listAreas(ctx, everything),
        tables: await listTables(ctx, everything),
        home: `/dashboard/restaurants/${restaurant.id}/tables`,
        values: sentValues(request.method === 'POST' ? request.body : {}),
      });
    });

  const show = (reply: FastifyReply, page: TablesPage, template: string, data: object, status = 200) =>
    sendPage(
      reply,
      status,
      renderPage(`dashboard/pages/${template}`, page.view, {
        restaurant: page.restaurant,
        areas: page.areas,
        tables: page.tables.map(shown),
        home: page.home,
        values: page.values,
        errors: [],
        ...data,
      }),
    );

  const notFound = (reply: FastifyReply, page: TablesPage) =>
    sendPage(
      reply,
      404,
      messagePage(page.view, {
        title: page.view.t('tables.notFoundTitle'),
        message: page.view.t('tables.notFound'),
        link: { href: page.home, text: page.view.t('tables.back') },
      }),
    );

  /**
   * Runs a write in one transaction, then sends the browser to the tables page at the object's
   * anchor with the `done` message. An input the form could not read (`invalid` fields) or a
   * service refused (400 with `param`) goes to `refused`; an object gone meanwhile is the 404 page.
   */
  async function write(
    reply: FastifyReply,
    page: TablesPage,
    form: FormReader,
    work: (ctx: Ctx) => Promise<{ id: string } | undefined>,
    done: { message: string; anchor?: string },
    refused: (errors: FormError[]) => FastifyReply | Promise<FastifyReply>,
  ): Promise<FastifyReply> {
    if (form.invalid.length > 0) return refused(fieldErrors(page.view.t, form.invalid));
    let written: { id: string } | undefined;
    try {
      written = await writeTransaction(page.ctx.db, (trx) => work({ ...page.ctx, db: trx }));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'not_found') return notFound(reply, page);
      if (error.code !== 'invalid_request') throw error;
      return refused(fieldErrors(page.view.t, [error.param]));
    }
    const anchor = done.anchor && written ? `#${done.anchor}-${written.id}` : '';
    return reply.redirect(`${page.home}?done=${done.message}${anchor}`, 303);
  }

  const param = (request: FastifyRequest, name: 'areaId' | 'tableId') =>
    (request.params as Record<string, string>)[name] ?? '';
  const findArea = (page: TablesPage, request: FastifyRequest) =>
    page.areas.find((area) => area.id === param(request, 'areaId'));
  const findTable = (page: TablesPage, request: FastifyRequest) =>
    page.tables.find((table) => table.id === param(request, 'tableId'));

  /** The tables page; `errors` of its default size form (then 400, the value as sent). */
  const showTables = async (
    reply: FastifyReply,
    page: TablesPage,
    done: string | null,
    errors: FormError[] = [],
  ) =>
    show(
      reply,
      errors.length > 0
        ? page
        : { ...page, values: { default_table_seats: String(await defaultSeatsOf(page.ctx)) } },
      'tables',
      { done, errors },
      errors.length > 0 ? 400 : 200,
    );

  app.get(
    base,
    tablesPage(async (request, reply, page) => {
      const { done } = request.query as { done?: string };
      return showTables(reply, page, done !== undefined && doneMessages.has(done) ? done : null);
    }),
  );

  // The size of a table without seats of its own (the store's setting, as PATCH /store sets it).
  app.post(
    `${base}/default-seats`,
    withCsrf,
    tablesPage(async (_request, reply, page) => {
      const form = new FormReader(page.values);
      const seats = form.integer('default_table_seats');
      return write(
        reply,
        page,
        form,
        async (ctx) => {
          if (seats === undefined)
            throw new ApiError('invalid_request', 'Enter the size.', { param: 'default_table_seats' });
          await updateStore(ctx, checkedInput(StoreSettingsPatchSchema, { default_table_seats: seats }));
          return undefined;
        },
        { message: 'defaultSeatsSaved' },
        (errors) => showTables(reply, page, null, errors),
      );
    }),
  );

  // Areas.
  const showArea = (
    reply: FastifyReply,
    page: TablesPage,
    area: DashboardArea | null,
    errors: FormError[] = [],
  ) =>
    show(
      reply,
      page,
      'tables-area',
      { area, action: `${page.home}/areas${area ? `/${area.id}` : ''}`, errors },
      errors.length > 0 ? 400 : 200,
    );

  app.get(
    `${base}/areas/new`,
    tablesPage(async (_request, reply, page) => showArea(reply, { ...page, values: newAreaValues }, null)),
  );
  app.post(
    `${base}/areas`,
    withCsrf,
    tablesPage(async (_request, reply, page) => {
      const form = new FormReader(page.values);
      const input = areaInput(form);
      form.check(AreaInputSchema, input);
      return write(
        reply,
        page,
        form,
        (ctx) => createArea(ctx, checkedInput(AreaInputSchema, input)),
        { message: 'areaCreated', anchor: 'area' },
        (errors) => showArea(reply, page, null, errors),
      );
    }),
  );
  app.get(
    `${base}/areas/:areaId`,
    tablesPage(async (request, reply, page) => {
      const area = findArea(page, request);
      if (!area) return notFound(reply, page);
      return showArea(reply, { ...page, values: areaValues(area) }, area);
    }),
  );
  app.post(
    `${base}/areas/:areaId`,
    withCsrf,
    tablesPage(async (request, reply, page) => {
      const area = findArea(page, request);
      if (!area) return notFound(reply, page);
      const form = new FormReader(page.values);
      const patch = areaInput(form);
      form.check(AreaPatchSchema, patch);
      return write(
        reply,
        page,
        form,
        (ctx) => updateArea(ctx, area.id, checkedInput(AreaPatchSchema, patch)),
        { message: 'areaSaved', anchor: 'area' },
        (errors) => showArea(reply, page, area, errors),
      );
    }),
  );
  app.post(
    `${base}/areas/:areaId/delete`,
    withCsrf,
    tablesPage(async (request, reply, page) =>
      write(
        reply,
        page,
        new FormReader({}),
        async (ctx) => {
          await deleteArea(ctx, param(request, 'areaId'));
          return undefined;
        },
        { message: 'areaDeleted' },
        () => notFound(reply, page),
      ),
    ),
  );

  // Tables.
  const showTable = (
    reply: FastifyReply,
    page: TablesPage,
    table: DashboardTable | null,
    errors: FormError[] = [],
  ) =>
    show(
      reply,
      page,
      'tables-table',
      { table: table && shown(table), action: `${page.home}${table ? `/${table.id}` : ''}`, errors },
      errors.length > 0 ? 400 : 200,
    );

  app.get(
    `${base}/new`,
    tablesPage(async (request, reply, page) => {
      // The area's "add a table here" link names the area.
      const { area_id } = request.query as { area_id?: unknown };
      const areaId = page.areas.some((area) => area.id === area_id) ? (area_id as string) : '';
      return showTable(reply, { ...page, values: newTableValues(areaId) }, null);
    }),
  );
  app.post(
    base,
    withCsrf,
    tablesPage(async (_request, reply, page) => {
      const form = new FormReader(page.values);
      const input = tableInput(form);
      form.check(TableInputSchema, input);
      return write(
        reply,
        page,
        form,
        (ctx) => createTable(ctx, checkedInput(TableInputSchema, input)),
        { message: 'tableCreated', anchor: 'table' },
        (errors) => showTable(reply, page, null, errors),
      );
    }),
  );

  /*
   * The printable QR codes: every table's (in the tables page's order), or `?table=` one's. Each
   * card has the table's name and its code; the key is in the code only.
   */
  app.get(
    `${base}/qr-codes`,
    tablesPage(async (request, reply, page) => {
      const { table: only } = request.query as { table?: unknown };
      const tables = only === undefined ? page.tables : page.tables.filter((table) => table.id === only);
      if (only !== undefined && tables.length === 0) return notFound(reply, page);
      const { slug } = await getStore(page.ctx);
      const cards = await Promise.all(
        tables.map(async (table) => ({
          id: table.id,
          label: table.label,
          svg: await qrSvg(tableAddress(config, slug, table.qr_key)),
        })),
      );
      return show(reply, page, 'tables-qr-codes', { cards, single: only !== undefined });
    }),
  );

  app.get(
    `${base}/:tableId`,
    tablesPage(async (request, reply, page) => {
      const table = findTable(page, request);
      if (!table) return notFound(reply, page);
      return showTable(reply, { ...page, values: tableValues(table) }, table);
    }),
  );
  app.post(
    `${base}/:tableId`,
    withCsrf,
    tablesPage(async (request, reply, page) => {
      const table = findTable(page, request);
      if (!table) return notFound(reply, page);
      const form = new FormReader(page.values);
      const patch = tableInput(form);
      form.check(TablePatchSchema, patch);
      return write(
        reply,
        page,
        form,
        (ctx) => updateTable(ctx, table.id, checkedInput(TablePatchSchema, patch)),
        { message: 'tableSaved', anchor: 'table' },
        (errors) => showTable(reply, page, table, errors),
      );
    }),
  );
  app.post(
    `${base}/:tableId/delete`,
    withCsrf,
    tablesPage(async (request, reply, page) =>
      write(
        reply,
        page,
        new FormReader({}),
        async (ctx) => {
          await deleteTable(ctx, param(request, 'tableId'));
          return undefined;
        },
        { message: 'tableDeleted' },
        () => notFound(reply, page),
      ),
    ),
  );

  // A new QR code: first the confirmation (the printed code stops working), then the write.
  app.get(
    `${base}/:tableId/qr-key`,
    tablesPage(async (request, reply, page) => {
      const table = findTable(page, request);
      if (!table) return notFound(reply, page);
      return show(reply, page, 'tables-qr-key', { table: shown(table) });
    }),
  );
  app.post(
    `${base}/:tableId/qr-key`,
    withCsrf,
    tablesPage(async (request, reply, page) =>
      write(
        reply,
        page,
        new FormReader({}),
        (ctx) => regenerateQrKey(ctx, param(request, 'tableId')),
        { message: 'qrKeyChanged', anchor: 'table' },
        () => notFound(reply, page),
      ),
    ),
  );
}
