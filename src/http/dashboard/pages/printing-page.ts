import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  defaultPrinterPort,
  type PrintingSettings,
  printingSettings,
  refusedPrintingFields,
  setPrintingSettings,
} from '../../../domain/orders/kitchen-printing.ts';
import { restaurantCtxOrNull } from '../../../domain/restaurants/restaurant-gate.ts';
import type { Ctx } from '../../../domain/shared/context.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { translator } from '../../../i18n/i18n.ts';
import { type FormError, type PageView, renderPage, sendPage } from '../../web/page.ts';
import type { SignedInPageHandler } from '../../web/signed-in-pages.ts';
import { FormReader, type FormValues, sentValues } from './menu-forms.ts';
import { restaurantNavigation, restaurantNotFound } from './restaurant-page.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** The form's fields, in its order (the error summary's order). */
const fields = ['printer_host', 'printer_port'] as const;

function valuesOf(settings: PrintingSettings): FormValues {
  return {
    ...(settings.auto_print && { auto_print: 'on' }),
    printer_host: settings.printer?.host ?? '',
    printer_port: String(settings.printer?.port ?? defaultPrinterPort),
  };
}

/*
 * The printing page at `/dashboard/restaurants/{id}/printing`, for the restaurant's owners (anyone
 * else: the restaurant is 404): the board's automatic printing of kitchen tickets and the network
 * receipt printer (host name or IPv4 address, and port), saved by one plain form (post,
 * CSRF-checked, 303 back with what was done) through kitchen-printing.ts in one transaction. A
 * refused host or port shows the form again (400) with every error beside its field and in the
 * summary above, and saves nothing.
 */
export function printingPage(app: FastifyInstance, signedInPage: Wrap): void {
  const path = '/dashboard/restaurants/:restaurantId/printing';

  const ownerPage = (
    handler: (
      request: FastifyRequest,
      reply: FastifyReply,
      ctx: Ctx,
      view: PageView,
    ) => Promise<FastifyReply>,
  ) =>
    signedInPage(async (request, reply, signedIn) => {
      const { restaurantId } = request.params as { restaurantId: string };
      const ctx = await restaurantCtxOrNull(signedIn.ctx, restaurantId, ['owner']);
      if (!ctx) return restaurantNotFound(reply, signedIn.view());
      const view = signedIn.view();
      return handler(request, reply, ctx, {
        ...view,
        t: translator(view.locale, ['kitchen', 'dashboard', 'pages']),
        nav: restaurantNavigation(view, restaurantId, 'printing', 'owner'),
      });
    });

  const show = (
    reply: FastifyReply,
    ctx: Ctx,
    view: PageView,
    values: FormValues,
    errors: FormError[],
    done: boolean,
  ) =>
    sendPage(
      reply,
      errors.length > 0 ? 400 : 200,
      renderPage('dashboard/pages/printing', view, {
        action: `/dashboard/restaurants/${ctx.tenantId}/printing`,
        board: `/dashboard/restaurants/${ctx.tenantId}/orders`,
        values,
        errors,
        done,
      }),
    );

  app.get(
    path,
    ownerPage(async (request, reply, ctx, view) => {
      const { done } = request.query as { done?: string };
      return show(reply, ctx, view, valuesOf(await printingSettings(ctx)), [], done === 'saved');
    }),
  );

  app.post(
    path,
    { preHandler: app.csrfProtection },
    ownerPage(async (request, reply, ctx, view) => {
      const values = sentValues(request.body);
      const form = new FormReader(values);
      const input = {
        auto_print: form.text('auto_print') === 'on',
        printer_host: form.optionalText('printer_host'),
        printer_port: form.integer('printer_port') ?? null,
      };
      const refused = new Set<string>([...form.invalid, ...refusedPrintingFields(input)]);
      if (refused.size === 0)
        try {
          await writeTransaction(ctx.db, (trx) => setPrintingSettings({ ...ctx, db: trx }, input));
        } catch (error) {
          if (!(error instanceof ApiError) || error.code !== 'invalid_request' || !error.param) throw error;
          refused.add(error.param);
        }
      if (refused.size === 0)
        return reply.redirect(`/dashboard/restaurants/${ctx.tenantId}/printing?done=saved`, 303);
      const errors = fields
        .filter((field) => refused.has(field))
        .map((field) => ({ field, message: view.t(`printing.errors.${field}`) }));
      return show(reply, ctx, view, values, errors, false);
    }),
  );
}
