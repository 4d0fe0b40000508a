import type { FastifyReply } from 'fastify';
import type { FormError, PageView } from './page.ts';

/** The sign-in form's own checks: both fields filled in, each error beside its field. */
export function missingSignInFields(view: PageView, input: { email: string; password: string }): FormError[] {
  return [
    !input.email && { message: view.t('signIn.enterEmail'), field: 'email' },
    !input.password && { message: view.t('signIn.enterPassword'), field: 'password' },
  ].filter((error) => error !== false);
}

/** The sign-in limit is reached: when to try again, in minutes on the page and in Retry-After. */
export function tooManySignIns(reply: FastifyReply, view: PageView, resetSeconds: number): FormError[] {
  reply.header('retry-after', String(resetSeconds));
  return [{ message: view.t('signIn.tooMany', { count: Math.ceil(resetSeconds / 60) }) }];
}
