import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { EmailTakenError } from '../../domain/accounts/accounts.service.ts';
import { requestEmailChange } from '../../domain/accounts/email-change.ts';
import { changePassword } from '../../domain/accounts/password-change.ts';
import { endSessionsOfAccount, sessionsOfAccount } from '../../domain/accounts/sessions.ts';
import {
  confirmTotpSetup,
  disableTotp,
  hasTotp,
  pendingTotpSetup,
  startTotpSetup,
} from '../../domain/accounts/totp.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import { InputError } from '../../domain/shared/errors.ts';
import { writeTransaction } from '../../domain/shared/write-collisions.ts';
import { type FormError, formField, type NavItem, type PageView, renderPage, sendPage } from './page.ts';
import type { SignedInPage, SignedInPageHandler } from './signed-in-pages.ts';
import { formatInstant } from './webhook-pages.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** An error of a form of the account page, with the status of the page that shows it. */
type AccountFormError = FormError & { status: 400 | 429 };

/** The messages after a change, shown on the account page (`?done=`). */
const doneMessages = new Set(['on', 'off', 'password', 'email', 'others']);

/*
 * The signed-in account's page on a surface (`/console/account`, `/dashboard/account`):
 * - a new e-mail address, with the current password: a link to the new address confirms it
 *   (`<surface>/confirm-email`, account-link-pages.ts);
 * - a new password, with the current one (sign-up's rules): every other session ends;
 * - the account's sessions on every surface, this one marked, and "sign out everywhere else";
 * - wrong current passwords count against the account's sign-in limit, as wrong codes do;
 * - whether its second factor is on, and the forms that change it, over the same domain calls as
 *   the JSON API (account-routes.ts):
 * - "Set up" starts a setup (a new secret, not in force yet) and goes on to the setup page: the
 *   otpauth:// URI as a QR code and the secret as text, and a code of it to put it in force;
 * - turning it off needs a current code;
 * - wrong codes count against the account's sign-in limit as in the API
 *   (Sessions.secondFactorChange): 400 beside the code field, 429 once the limit is reached.
 */
export function accountPages(
  app: FastifyInstance,
  signedInPage: Wrap,
  surface: {
    path: string;
    navigation: (view: PageView) => NavItem[];
    /** The link that confirms a new e-mail address with the token. */
    confirmEmailLink: (token: string) => string;
  },
): void {
  const withCsrf = { preHandler: app.csrfProtection };
  const home = surface.path;
  const setupPath = `${home}/second-factor/setup`;

  const pageView = (page: SignedInPage) => {
    const view = page.view('account-pages');
    return { ...view, nav: surface.navigation(view) };
  };
  const statusOf = (errors: AccountFormError[]) => errors[0]?.status ?? 200;

  const showAccount = async (
    request: FastifyRequest,
    reply: FastifyReply,
    page: SignedInPage,
    input: { done?: string | null; errors?: AccountFormError[]; newEmail?: string } = {},
  ) => {
    const errors = input.errors ?? [];
    const view = pageView(page);
    const current = await page.sessions.current(request);
    const sessions = await sessionsOfAccount(page.ctx, page.accountId, current?.token ?? '');
    return sendPage(
      reply,
      statusOf(errors),
      renderPage('web/views/account', view, {
        home,
        enabled: await hasTotp(page.ctx, page.accountId),
        done: input.done ?? null,
        errors,
        newEmail: input.newEmail ?? '',
        sessions: sessions.map((session) => ({
          ...session,
          createdAt: formatInstant(session.createdAt, 'UTC', view.locale),
          expiresAt: formatInstant(session.expiresAt, 'UTC', view.locale),
        })),
      }),
    );
  };

  const showSetup = async (reply: FastifyReply, page: SignedInPage, errors: AccountFormError[] = []) => {
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
  ): Promise<AccountFormError[]> => {
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

  /**
   * Runs `change` (false: the current password is wrong) in one transaction under the account's
   * sign-in limit: the errors to show (none when it was made); an InputError names its field.
   */
  const changeWithPassword = async (
    reply: FastifyReply,
    page: SignedInPage,
    fields: { password: string; [param: string]: string },
    change: (ctx: Ctx) => Promise<boolean>,
  ): Promise<AccountFormError[]> => {
    const t = page.view('account-pages').t;
    const key = `password ${page.accountId}`;
    const limit = await page.sessions.limiter.peek(key);
    if (!limit.allowed) {
      reply.header('retry-after', String(limit.resetSeconds));
      const minutes = Math.ceil(limit.resetSeconds / 60);
      return [
        { message: t('account.tooManyPasswords', { count: minutes }), field: fields.password, status: 429 },
      ];
    }
    try {
      if (await writeTransaction(page.ctx.db, (trx) => change({ ...page.ctx, db: trx }))) return [];
    } catch (error) {
      if (error instanceof EmailTakenError)
        return [{ message: t('account.emailTaken'), field: fields.email, status: 400 }];
      if (!(error instanceof InputError) || !error.param) throw error;
      const message = t(error.param === 'email' ? 'account.emailInvalid' : 'account.passwordRules');
      return [{ message, field: fields[error.param], status: 400 }];
    }
    await page.sessions.limiter.consume(key);
    return [{ message: t('account.wrongPassword'), field: fields.password, status: 400 }];
  };

  app.post(
    `${home}/password`,
    withCsrf,
    signedInPage(async (request, reply, page) => {
      const current = formField(request.body, 'current_password') ?? '';
      const password = formField(request.body, 'new_password') ?? '';
      const keep = (await page.sessions.current(request))?.token ?? '';
      const fields = { password: 'current_password', new_password: 'new_password' };
      const errors = await changeWithPassword(reply, page, fields, (ctx) =>
        changePassword(ctx, page.accountId, { current, password, keep }),
      );
      return errors.length === 0
        ? reply.redirect(`${home}?done=password`, 303)
        : showAccount(request, reply, page, { errors });
    }),
  );

  app.post(
    `${home}/email`,
    withCsrf,
    signedInPage(async (request, reply, page) => {
      const email = formField(request.body, 'new_email') ?? '';
      const password = formField(request.body, 'email_password') ?? '';
      const mail = { linkOf: surface.confirmEmailLink, locale: pageView(page).locale };
      const fields = { password: 'email_password', email: 'new_email' };
      const errors = await changeWithPassword(reply, page, fields, (ctx) =>
        requestEmailChange(ctx, page.accountId, { email, password }, mail),
      );
      return errors.length === 0
        ? reply.redirect(`${home}?done=email`, 303)
        : showAccount(request, reply, page, { errors, newEmail: email });
    }),
  );

  app.post(
    `${home}/sessions/end-others`,
    withCsrf,
    signedInPage(async (request, reply, page) => {
      const keep = (await page.sessions.current(request))?.token ?? '';
      await writeTransaction(page.ctx.db, (trx) =>
        endSessionsOfAccount({ ...page.ctx, db: trx }, page.accountId, keep),
      );
      return reply.redirect(`${home}?done=others`, 303);
    }),
  );

  app.get(
    home,
    signedInPage(async (request, reply, page) => {
      const { done } = request.query as { done?: string };
      return showAccount(request, reply, page, {
        done: done !== undefined && doneMessages.has(done) ? done : null,
      });
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
        : showAccount(request, reply, page, { errors });
    }),
  );
}
