import type { FastifyInstance, FastifyReply } from 'fastify';
import { EmailTakenError } from '../../../domain/accounts/accounts.service.ts';
import {
  acceptInvitation,
  joinWithNewAccount,
  type OpenInvitation,
  openInvitation,
} from '../../../domain/restaurants/invitations.ts';
import { systemCtx } from '../../../domain/shared/context.ts';
import { InputError } from '../../../domain/shared/errors.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { type FormError, formField, messagePage, renderPage, sendPage } from '../../web/page.ts';
import { tooManySignIns } from '../../web/sign-in-errors.ts';
import type { SignedInPagesOptions, SignedInPageWrapper, SignedOutPage } from '../../web/signed-in-pages.ts';

const namespace = 'dashboard-team';

/*
 * An invitation's link, `/dashboard/invitations/{token}` (invitations.ts), open to anyone holding
 * it while it works; a link expired, used or withdrawn is a 404 page saying so.
 * - No account has the invited address: the person sets a name and a password (the sign-up's
 *   rules) and gets an account with the membership, in one transaction, and is signed in.
 * - The address has an account: signed in to it, one button joins; otherwise its password does
 *   (under the dashboard's sign-in limit). With a second factor the person gives the code first
 *   (the dashboard's second-factor page) and opens the link again.
 * Then the browser goes to the restaurant's overview.
 */
export function invitationPage(
  app: FastifyInstance,
  signedInPage: SignedInPageWrapper,
  options: Pick<SignedInPagesOptions, 'db' | 'clock'>,
): void {
  const path = '/dashboard/invitations/:token';
  const ctx = systemCtx(options.db, options.clock);

  const gone = (reply: FastifyReply, page: SignedOutPage) => {
    const view = page.view(namespace);
    return sendPage(
      reply,
      404,
      messagePage(view, {
        title: view.t('invitation.goneTitle'),
        message: view.t('invitation.gone'),
        link: { href: '/dashboard', text: view.t('invitation.toDashboard') },
      }),
    );
  };

  const show = (
    reply: FastifyReply,
    page: SignedOutPage,
    invitation: OpenInvitation,
    input: { token: string; signedIn: boolean; status?: number; name?: string; errors?: FormError[] },
  ) => {
    const view = page.view(namespace);
    return sendPage(
      reply,
      input.status ?? 200,
      renderPage('dashboard/pages/invitation', view, {
        invitation: { ...invitation, role: view.t(`invitation.roles.${invitation.role}`) },
        token: input.token,
        existing: invitation.accountId !== null,
        signedIn: input.signedIn,
        csrfToken: page.csrfToken(),
        name: input.name ?? '',
        errors: input.errors ?? [],
      }),
    );
  };

  app.get(
    path,
    signedInPage.signedOut(async (request, reply, page) => {
      const { token } = request.params as { token: string };
      const invitation = await openInvitation(ctx, token);
      if (!invitation) return gone(reply, page);
      const signedIn = (await page.sessions.signedInAccount(request)) === invitation.accountId;
      return show(reply, page, invitation, { token, signedIn: invitation.accountId !== null && signedIn });
    }),
  );

  app.post(
    path,
    { preHandler: app.csrfProtection },
    signedInPage.signedOut(async (request, reply, page) => {
      const { token } = request.params as { token: string };
      const view = page.view(namespace);
      const invitation = await openInvitation(ctx, token);
      if (!invitation) return gone(reply, page);
      const password = formField(request.body, 'password') ?? '';
      const restaurant = `/dashboard/restaurants/${invitation.tenantId}`;

      if (invitation.accountId === null) {
        const name = (formField(request.body, 'name') ?? '').trim();
        const errors: FormError[] = [];
        if (name === '') errors.push({ field: 'name', message: view.t('invitation.errors.name') });
        if (password.length < 10 || password.length > 1000)
          errors.push({ field: 'password', message: view.t('invitation.errors.password') });
        if (errors.length > 0)
          return show(reply, page, invitation, { token, signedIn: false, status: 400, name, errors });
        try {
          const joined = await writeTransaction(options.db, (trx) =>
            joinWithNewAccount({ ...ctx, db: trx }, token, { name, password }),
          );
          if (!joined) return gone(reply, page);
          await page.sessions.signIn(request, reply, { email: joined.email, password });
          return reply.redirect(restaurant, 303);
        } catch (error) {
          if (error instanceof EmailTakenError) return reply.redirect(request.url, 303);
          if (!(error instanceof InputError)) throw error;
          const field = error.param === 'name' ? 'name' : 'password';
          const errors = [{ field, message: view.t(`invitation.errors.${field}`) }];
          return show(reply, page, invitation, { token, signedIn: false, status: 400, name, errors });
        }
      }

      if ((await page.sessions.signedInAccount(request)) !== invitation.accountId) {
        const outcome = await page.sessions.signIn(request, reply, { email: invitation.email, password });
        if (outcome.kind === 'limited')
          return show(reply, page, invitation, {
            token,
            signedIn: false,
            status: 429,
            errors: tooManySignIns(reply, view, outcome.resetSeconds),
          });
        if (outcome.kind === 'refused')
          return show(reply, page, invitation, {
            token,
            signedIn: false,
            status: 400,
            errors: [{ field: 'password', message: view.t('invitation.errors.wrongPassword') }],
          });
        if (outcome.session.secondFactorPending) return reply.redirect('/dashboard/second-factor', 303);
      }
      const accepted = await writeTransaction(options.db, (trx) =>
        acceptInvitation({ ...ctx, db: trx }, token, invitation.accountId as string),
      );
      return accepted ? reply.redirect(`/dashboard/restaurants/${accepted}`, 303) : gone(reply, page);
    }),
  );
}
