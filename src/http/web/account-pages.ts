import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import {
  confirmTotpSetup,
  disableTotp,
  hasTotp,
  pendingTotpSetup,
  startTotpSetup,
} from '../../domain/accounts/totp.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import { writeTransaction } from '../../domain/shared/write-collisions.ts';
import { type FormError, formField, type NavItem, type PageView, renderPage, sendPage } from './page.ts';
import type { SignedInPage, SignedInPageHandler } from './signed-in-pages.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** An error of the code field, with the status of the page that shows it. */
type CodeError = FormError & { status: 400 | 429 };

/** The messages after a change, shown on the account page (`?done=`). */
const doneMessages = new Set(['on', 'off']);

/*
 * The signed-in account's page on a surface (`/console/account`, `/dashboard/account`): whether
 * its second factor is on, and the forms that change it, over the same domain calls as the JSON
 * API (account-routes.ts):
 * - "Set up" starts a setup (a new secret, not in force yet) and goes on to the setup page: the
 *   otpauth:// URI as a QR code and the secret as text, and a code of it to put it in force;
 * - turning it off needs a current code;
 * - wrong codes count against the account's sign-in limit as in the API
 *   (Sessions.secondFactorChange): 400 beside the code field, 429 once the limit is reached.
 */
export function accountPages(
  app: FastifyInstance,
  signedInPage: Wrap,
  surface: { path: string; navigation: (view: PageView) => NavItem[] },
): void {
  const withCsrf = { preHandler: app.csrfProtection };
  const home = surface.path;
  const setupPath = `${home}/second-factor/setup`;

  const pageView = (page: SignedInPage) => {
    const view = page.view('account-pages');
    return { ...view, nav: surface.navigation(view) };
  };
  const statusOf = (errors: CodeError[]) => errors[0]?.status ?? 200;

  const showAccount = async (
    reply: FastifyReply,
    page: SignedInPage,
    input: { done?: string | null; errors?: CodeError[] } = {},
  ) => {
    const errors = input.errors ?? [];
    return sendPage(
      reply,
      statusOf(errors),
      renderPage('web/views/account', pageView(page), {
        home,
        enabled: await hasTotp(page.ctx, page.accountId),
        done: input.done ?? null,
        errors,
      }),
    );
  };

  const showSetup = async (reply: FastifyReply, page: SignedInPage, errors: CodeError[] = []) => {
    const setup = await pendingTotpSetup(page.ctx, page.accountId);
    if (!setup) return reply.redirect(home, 303);
    return sendPage(
      reply,
      statusOf(errors),
      renderPage('web/views/account-setup', pageView(page), {
        home,
        secret: setup.secret,
        // Made by the QR library from our own URI, inserted as markup (inline SVG: no script, no request).
        qrCode: await QRCode.toString(setup.uri, { type: 'svg', margin: 2 }),
        errors,
      }),
    );
  };

  /**
   * Checks the form's code with `change` in one transaction under the limit: the errors to show
   * beside the code field (none when it was accepted).
   */
  const changeWithCode = async (
    request: FastifyRequest,
    reply: FastifyReply,
    page: SignedInPage,
    change: (ctx: Ctx, accountId: string, code: string) => Promise<boolean>,
  ): Promise<CodeError[]> => {
    const t = page.view('account-pages').t;
    const code = formField(request.body, 'code') ?? '';
    const outcome = await writeTransaction(page.ctx.db, (trx) =>
      page.sessions.secondFactorChange({ ...page.ctx, db: trx }, page.accountId, code, change),
    );
    if (outcome.kind === 'accepted') return [];
    if (outcome.kind === 'refused') return [{ message: t('account.wrongCode'), field: 'code', status: 400 }];
    reply.header('retry-after', String(outcome.resetSeconds));
    const minutes = Math.ceil(outcome.resetSeconds / 60);
    return [{ message: t('account.tooMany', { count: minutes }), field: 'code', status: 429 }];
  };

  app.get(
    home,
    signedInPage(async (request, reply, page) => {
      const { done } = request.query as { done?: string };
      return showAccount(reply, page, { done: done !== undefined && doneMessages.has(done) ? done : null });
    }),
  );

  app.post(
    setupPath,
    withCsrf,
    signedInPage(async (_request, reply, page) => {
      await writeTransaction(page.ctx.db, (trx) => startTotpSetup({ ...page.ctx, db: trx }, page.accountId));
      return reply.redirect(setupPath, 303);
    }),
  );

  app.get(
    setupPath,
    signedInPage(async (_request, reply, page) => showSetup(reply, page)),
  );

  app.post(
    `${home}/second-factor/confirm`,
    withCsrf,
    signedInPage(async (request, reply, page) => {
      const errors = await changeWithCode(request, reply, page, confirmTotpSetup);
      return errors.length === 0 ? reply.redirect(`${home}?done=on`, 303) : showSetup(reply, page, errors);
    }),
  );

  app.post(
    `${home}/second-factor/disable`,
    withCsrf,
    signedInPage(async (request, reply, page) => {
      const errors = await changeWithCode(request, reply, page, disableTotp);
      return errors.length === 0
        ? reply.redirect(`${home}?done=off`, 303)
        : showAccount(reply, page, { errors });
    }),
  );
}
