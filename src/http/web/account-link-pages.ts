import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountTokenMinutes, findAccountToken } from '../../domain/accounts/account-tokens.ts';
import { checkEmail } from '../../domain/accounts/accounts.service.ts';
import { confirmEmailChange } from '../../domain/accounts/email-change.ts';
import { requestPasswordReset, resetPassword } from '../../domain/accounts/password-change.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import { InputError } from '../../domain/shared/errors.ts';
import type { Limiters } from '../../domain/shared/limits.ts';
import { writeTransaction } from '../../domain/shared/write-collisions.ts';
import { type FormError, formField, messagePage, type PageView, renderPage, sendPage } from './page.ts';

/** The address of a surface's page that a mailed link opens (`appUrl`, else `baseUrl`). */
export function mailedLink(
  config: { baseUrl: string; appUrl?: string },
  path: string,
  token: string,
): string {
  return `${config.appUrl ?? config.baseUrl}${path}?token=${encodeURIComponent(token)}`;
}

/*
 * "Forgot password" requests per client address (5 in 15 minutes) and per e-mail address (3 an
 * hour), on every surface together. Over either the page answers as always and no mail goes.
 */
const forgotAddressLimit = { keyPrefix: 'password-reset-address', points: 5, durationSeconds: 15 * 60 };
const forgotAccountLimit = { keyPrefix: 'password-reset-account', points: 3, durationSeconds: 60 * 60 };

/*
 * The pages of a surface (`/console`, `/dashboard`) for people not signed in, about its mailed
 * links (account-tokens.ts):
 * - `<path>/forgot-password`: an e-mail address; the answer is the same page whether an account
 *   has it, and whether a mail went or a limit held it back;
 * - `<path>/reset-password?token=`: a new password (sign-up's rules); it ends every session of
 *   the account and sends the browser to sign in with it (`<path>/sign-in?done=password`);
 * - `<path>/confirm-email?token=`: a button that makes the new address the account's (a page that
 *   only looks, like a mail scanner opening the link, changes nothing).
 * A link that does not work (any more) gets a page saying so, with the way to a new one.
 */
export function accountLinkPages(
  app: FastifyInstance,
  options: {
    base: string;
    ctx: Ctx;
    limiters: Limiters;
    config: { baseUrl: string; appUrl?: string };
    viewOf: (request: FastifyRequest) => PageView;
    csrfToken: (request: FastifyRequest, reply: FastifyReply) => string;
  },
): void {
  const { base, ctx, viewOf } = options;
  const withCsrf = { preHandler: app.csrfProtection };
  const forgotPath = `${base}/forgot-password`;
  const resetPath = `${base}/reset-password`;
  const confirmPath = `${base}/confirm-email`;
  const addressLimiter = options.limiters.createLimiter(forgotAddressLimit);
  const accountLimiter = options.limiters.createLimiter(forgotAccountLimit);

  const page = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    name: string,
    data: Record<string, unknown>,
  ) => {
    const view = viewOf(request);
    return sendPage(
      reply,
      status,
      renderPage(`web/views/${name}`, view, {
        csrfToken: options.csrfToken(request, reply),
        signIn: `${base}/sign-in`,
        errors: [],
        ...data,
      }),
    );
  };
  const linkGone = (request: FastifyRequest, reply: FastifyReply, kind: 'reset' | 'email') => {
    const view = viewOf(request);
    const link =
      kind === 'reset'
        ? { href: forgotPath, text: view.t('links.newLink') }
        : { href: `${base}/account`, text: view.t('links.toAccount') };
    const message = view.t(kind === 'reset' ? 'links.resetGone' : 'links.emailGone');
    return sendPage(reply, 400, messagePage(view, { title: view.t('links.goneTitle'), message, link }));
  };
  const tokenOf = (request: FastifyRequest) =>
    formField(request.body, 'token') ?? formField(request.query, 'token') ?? '';

  app.get(forgotPath, async (request, reply) =>
    page(request, reply, 200, 'forgot-password', { action: forgotPath, email: '' }),
  );

  app.post(forgotPath, withCsrf, async (request, reply) => {
    const view = viewOf(request);
    const email = (formField(request.body, 'email') ?? '').trim();
    const errors: FormError[] = [];
    if (!email) errors.push({ message: view.t('forgot.enterEmail'), field: 'email' });
    else if (!looksLikeEmail(email)) errors.push({ message: view.t('forgot.notEmail'), field: 'email' });
    if (errors.length > 0)
      return page(request, reply, 400, 'forgot-password', { action: forgotPath, email, errors });
    const within =
      (await addressLimiter.consume(request.ip)).allowed &&
      (await accountLimiter.consume(email.toLowerCase())).allowed;
    if (within) {
      const linkOf = (token: string) => mailedLink(options.config, resetPath, token);
      await writeTransaction(ctx.db, (trx) =>
        requestPasswordReset({ ...ctx, db: trx }, email, { linkOf, locale: view.locale }),
      );
    }
    return page(request, reply, 200, 'forgot-password-sent', { email, minutes: accountTokenMinutes });
  });

  app.get(resetPath, async (request, reply) => {
    const token = tokenOf(request);
    if (!(await findAccountToken(ctx, 'password_reset', token))) return linkGone(request, reply, 'reset');
    return page(request, reply, 200, 'reset-password', { action: resetPath, token });
  });

  app.post(resetPath, withCsrf, async (request, reply) => {
    const token = tokenOf(request);
    const password = formField(request.body, 'password') ?? '';
    try {
      const done = await writeTransaction(ctx.db, (trx) =>
        resetPassword({ ...ctx, db: trx }, token, password),
      );
      if (!done) return linkGone(request, reply, 'reset');
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      const message = viewOf(request).t('reset.passwordRules');
      return page(request, reply, 400, 'reset-password', {
        action: resetPath,
        token,
        errors: [{ message, field: 'password' }],
      });
    }
    return reply.redirect(`${base}/sign-in?done=password`, 303);
  });

  app.get(confirmPath, async (request, reply) => {
    const token = tokenOf(request);
    const found = await findAccountToken(ctx, 'email_change', token);
    if (!found) return linkGone(request, reply, 'email');
    return page(request, reply, 200, 'confirm-email', {
      action: confirmPath,
      token,
      newEmail: found.newEmail,
    });
  });

  app.post(confirmPath, withCsrf, async (request, reply) => {
    const view = viewOf(request);
    const token = tokenOf(request);
    const email = await writeTransaction(ctx.db, (trx) =>
      confirmEmailChange({ ...ctx, db: trx }, token, view.locale),
    );
    if (!email) return linkGone(request, reply, 'email');
    const link = { href: `${base}/sign-in`, text: view.t('confirm.signIn') };
    const message = view.t('confirm.done', { email });
    return sendPage(reply, 200, messagePage(view, { title: view.t('confirm.doneTitle'), message, link }));
  });
}

function looksLikeEmail(email: string): boolean {
  try {
    checkEmail(email);
    return true;
  } catch {
    return false;
  }
}
