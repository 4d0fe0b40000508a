import type { FastifyInstance, FastifyReply } from 'fastify';
import { EmailTakenError } from '../../../domain/accounts/accounts.service.ts';
import { signUpDeveloper } from '../../../domain/accounts/developer-sign-up.ts';
import { systemCtx } from '../../../domain/shared/context.ts';
import { InputError } from '../../../domain/shared/errors.ts';
import type { LimiterOptions } from '../../../domain/shared/limits.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { type FormError, formField, type PageView, renderPage, sendPage } from '../../web/page.ts';
import type { SignedInPagesOptions, SignedInPageWrapper, SignedOutPage } from '../../web/signed-in-pages.ts';

/** The console's sign-up page and its catalog (which also holds the sign-in page's link to it). */
export const consoleSignUp = { path: '/console/sign-up', namespace: 'console-sign-up' };

/*
 * Sign-ups per client IP address: 10 tries an hour, refused or not, so that one address can
 * neither create accounts in bulk nor probe in bulk which e-mail addresses have an account (a
 * taken address is said beside its field).
 */
export const signUpLimit: LimiterOptions = { keyPrefix: 'sign-up', points: 10, durationSeconds: 60 * 60 };

/** A refusal of the domain beside its field; any other error is not the visitor's to fix. */
function fieldError(view: PageView, error: InputError): FormError | null {
  if (error instanceof EmailTakenError) return { message: view.t('signUp.emailTaken'), field: 'email' };
  if (error.param === 'email') return { message: view.t('signUp.badEmail'), field: 'email' };
  if (error.param === 'password') return { message: view.t('signUp.badPassword'), field: 'password' };
  if (error.param === 'name') return { message: view.t('signUp.longName'), field: 'name' };
  return null;
}

/*
 * `/console/sign-up`: anyone creates a developer account with its test restaurant
 * (signUpDeveloper, one transaction; a refusal creates nothing and is shown beside its field),
 * under the sign-up limit of their IP address; then they are signed in with the password they
 * chose and sent to the console's home. A developer already signed in is sent there at once.
 */
export function signUpPages(
  app: FastifyInstance,
  signedInPage: SignedInPageWrapper,
  options: SignedInPagesOptions,
): void {
  const { path, namespace } = consoleSignUp;
  const limiter = options.limiters.createLimiter(signUpLimit);
  const form = (
    reply: FastifyReply,
    page: SignedOutPage,
    status: number,
    input: { email?: string; name?: string; errors?: FormError[] } = {},
  ) =>
    sendPage(
      reply,
      status,
      renderPage('console/pages/sign-up', page.view(namespace), {
        action: path,
        signIn: '/console/sign-in',
        csrfToken: page.csrfToken(),
        ...input,
      }),
    );

  app.get(
    path,
    signedInPage.signedOut(async (request, reply, page) =>
      (await page.sessions.signedInAccount(request))
        ? reply.redirect('/console', 303)
        : form(reply, page, 200),
    ),
  );

  app.post(
    path,
    { preHandler: app.csrfProtection },
    signedInPage.signedOut(async (request, reply, page) => {
      const view = page.view(namespace);
      const email = formField(request.body, 'email') ?? '';
      const name = (formField(request.body, 'name') ?? '').trim();
      const password = formField(request.body, 'password') ?? '';
      const limit = await limiter.consume(request.ip);
      if (!limit.allowed) {
        reply.header('retry-after', String(limit.resetSeconds));
        const message = view.t('signUp.tooMany', { count: Math.ceil(limit.resetSeconds / 60) });
        return form(reply, page, 429, { email, name, errors: [{ message }] });
      }
      try {
        await writeTransaction(options.db, (trx) =>
          signUpDeveloper(systemCtx(trx, options.clock), { email, name: name || null, password }),
        );
      } catch (error) {
        const refusal = error instanceof InputError ? fieldError(view, error) : null;
        if (!refusal) throw error;
        return form(reply, page, 400, { email, name, errors: [refusal] });
      }
      const outcome = await page.sessions.signIn(request, reply, { email, password });
      return reply.redirect(outcome.kind === 'signed_in' ? '/console' : '/console/sign-in', 303);
    }),
  );
}
