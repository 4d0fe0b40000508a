import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AlreadyMemberError,
  type Invitation,
  inviteToTeam,
  listInvitations,
  withdrawInvitation,
} from '../../../domain/restaurants/invitations.ts';
import { currentRestaurant, restaurantCtxOrNull } from '../../../domain/restaurants/restaurant-gate.ts';
import {
  changeRole,
  findMember,
  listMembers,
  type Member,
  removeMember,
} from '../../../domain/restaurants/team.ts';
import type { Ctx, Role } from '../../../domain/shared/context.ts';
import { ApiError, InputError } from '../../../domain/shared/errors.ts';
import type { Limiter, Limiters } from '../../../domain/shared/limits.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { formatDateTime } from '../../../i18n/local-time.ts';
import { type FormError, messagePage, type PageView, renderPage, sendPage } from '../../web/page.ts';
import type { SignedInPageHandler } from '../../web/signed-in-pages.ts';
import { FormReader, type FormValues, sentValues } from './menu-forms.ts';
import { restaurantNavigation, restaurantNotFound } from './restaurant-page.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Invitations an owner may send per restaurant and day. */
export const invitationLimit = { keyPrefix: 'team-invitations', points: 20, durationSeconds: 24 * 60 * 60 };

const roles: readonly Role[] = ['owner', 'staff'];

interface TeamPage {
  ctx: Ctx;
  view: PageView;
  restaurant: { id: string; name: string; timezone: string };
  accountId: string;
  /** The team page's path; its forms post below it. */
  home: string;
}

type TeamPageHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  page: TeamPage,
) => Promise<FastifyReply>;

/*
 * The restaurant's team at `/dashboard/restaurants/{id}/team`, for its owners (anyone else: the
 * restaurant is 404): the members (name, e-mail, role, since when) with a role change each and
 * "Remove" after a confirmation page, the invitations still open (sent, expiring, "Withdraw"),
 * and the form inviting an e-mail address as owner or staff (invitations.ts mails the link; 20 a
 * day per restaurant). The last owner can be neither made staff nor removed: refused beside the
 * field. Each form posts with the session's CSRF token, changes in one transaction and answers
 * with 303 back to the page saying what was done. A member or invitation of another restaurant
 * is the member-not-found page.
 */
export function teamPages(
  app: FastifyInstance,
  signedInPage: Wrap,
  options: { limiters: Limiters; appUrl: string },
): void {
  const base = '/dashboard/restaurants/:restaurantId/team';
  const invitations: Limiter = options.limiters.createLimiter(invitationLimit);
  const link = (token: string) => `${options.appUrl}/dashboard/invitations/${token}`;

  const teamPage = (handler: TeamPageHandler) =>
    signedInPage(async (request, reply, signedIn) => {
      const { restaurantId } = request.params as { restaurantId: string };
      const ctx = await restaurantCtxOrNull(signedIn.ctx, restaurantId, ['owner']);
      if (!ctx) return restaurantNotFound(reply, signedIn.view());
      const view = signedIn.view('dashboard-team');
      const restaurant = await currentRestaurant(ctx);
      return handler(request, reply, {
        ctx,
        view: { ...view, nav: restaurantNavigation(view, restaurant.id, 'team', 'owner') },
        restaurant,
        accountId: signedIn.accountId,
        home: `/dashboard/restaurants/${restaurant.id}/team`,
      });
    });

  const when = (at: Date, page: TeamPage) => formatDateTime(at, page.restaurant.timezone, page.view.locale);

  const show = async (
    reply: FastifyReply,
    page: TeamPage,
    status: number,
    form: { values?: FormValues; errors?: FormError[]; done?: string | null } = {},
  ) => {
    const now = page.ctx.clock.now();
    const members = await listMembers(page.ctx);
    const open = await listInvitations(page.ctx);
    return sendPage(
      reply,
      status,
      renderPage('dashboard/pages/team', page.view, {
        restaurant: page.restaurant,
        home: page.home,
        roles,
        members: members.map((member: Member) => ({ ...member, since: when(member.created_at, page) })),
        invitations: open.map((invitation: Invitation) => ({
          ...invitation,
          sent: when(invitation.created_at, page),
          expires: when(invitation.expires_at, page),
          expired: invitation.expires_at <= now,
        })),
        values: form.values ?? { role: 'staff' },
        errors: form.errors ?? [],
        done: form.done ?? null,
      }),
    );
  };

  const memberNotFound = (reply: FastifyReply, page: TeamPage) =>
    sendPage(
      reply,
      404,
      messagePage(page.view, {
        title: page.view.t('team.notFoundTitle'),
        message: page.view.t('team.notFound'),
        link: { href: page.home, text: page.view.t('team.back') },
      }),
    );

  /** Runs a change in one transaction; a not-found is the member-not-found page (returned). */
  const change = async (reply: FastifyReply, page: TeamPage, work: (ctx: Ctx) => Promise<void>) => {
    try {
      await writeTransaction(page.ctx.db, (trx) => work({ ...page.ctx, db: trx }));
      return null;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return memberNotFound(reply, page);
      throw error;
    }
  };

  app.get(
    base,
    teamPage(async (request, reply, page) => {
      const { done } = request.query as { done?: string };
      const known = ['invited', 'withdrawn', 'role', 'removed'];
      return show(reply, page, 200, { done: done && known.includes(done) ? done : null });
    }),
  );

  app.post(
    `${base}/invitations`,
    { preHandler: app.csrfProtection },
    teamPage(async (request, reply, page) => {
      const values = sentValues(request.body);
      const form = new FormReader(values);
      const email = form.text('email');
      const role = form.text('role') as Role;
      const errors: FormError[] = [];
      if (!roles.includes(role)) errors.push({ field: 'role', message: page.view.t('invite.errors.role') });
      const limit = await invitations.peek(page.restaurant.id);
      if (errors.length === 0 && !limit.allowed) {
        reply.header('retry-after', String(limit.resetSeconds));
        const message = page.view.t('invite.errors.limit', { count: invitationLimit.points });
        return show(reply, page, 429, { values, errors: [{ field: 'email', message }] });
      }
      if (errors.length === 0)
        try {
          await writeTransaction(page.ctx.db, (trx) =>
            inviteToTeam({ ...page.ctx, db: trx }, { email, role }, link),
          );
          await invitations.consume(page.restaurant.id);
          return reply.redirect(`${page.home}?done=invited`, 303);
        } catch (error) {
          if (!(error instanceof InputError)) throw error;
          const key = error instanceof AlreadyMemberError ? 'invite.errors.member' : 'invite.errors.email';
          errors.unshift({ field: 'email', message: page.view.t(key) });
        }
      return show(reply, page, 400, { values, errors });
    }),
  );

  app.post(
    `${base}/invitations/:invitationId/withdraw`,
    { preHandler: app.csrfProtection },
    teamPage(async (request, reply, page) => {
      const { invitationId } = request.params as { invitationId: string };
      const refused = await change(reply, page, (ctx) => withdrawInvitation(ctx, invitationId));
      return refused ?? reply.redirect(`${page.home}?done=withdrawn`, 303);
    }),
  );

  app.post(
    `${base}/members/:accountId/role`,
    { preHandler: app.csrfProtection },
    teamPage(async (request, reply, page) => {
      const { accountId } = request.params as { accountId: string };
      const role = new FormReader(sentValues(request.body)).text('role') as Role;
      const field = `role-${accountId}`;
      if (!roles.includes(role))
        return show(reply, page, 400, { errors: [{ field, message: page.view.t('members.errors.role') }] });
      try {
        const refused = await change(reply, page, (ctx) => changeRole(ctx, accountId, role));
        return refused ?? reply.redirect(`${page.home}?done=role`, 303);
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        return show(reply, page, 400, {
          errors: [{ field, message: page.view.t('members.errors.lastOwner') }],
        });
      }
    }),
  );

  const removal = async (reply: FastifyReply, page: TeamPage, accountId: string, errors: FormError[]) => {
    const member = await findMember(page.ctx, accountId).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'not_found') return null;
      throw error;
    });
    if (!member) return memberNotFound(reply, page);
    return sendPage(
      reply,
      errors.length > 0 ? 400 : 200,
      renderPage('dashboard/pages/team-remove', page.view, {
        restaurant: page.restaurant,
        home: page.home,
        member: { ...member, since: when(member.created_at, page) },
        errors,
      }),
    );
  };

  app.get(
    `${base}/members/:accountId/remove`,
    teamPage(async (request, reply, page) => {
      const { accountId } = request.params as { accountId: string };
      return removal(reply, page, accountId, []);
    }),
  );

  app.post(
    `${base}/members/:accountId/remove`,
    { preHandler: app.csrfProtection },
    teamPage(async (request, reply, page) => {
      const { accountId } = request.params as { accountId: string };
      try {
        const refused = await change(reply, page, (ctx) => removeMember(ctx, accountId));
        if (refused) return refused;
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        return removal(reply, page, accountId, [
          { field: 'confirm', message: page.view.t('members.errors.lastOwner') },
        ]);
      }
      // Someone who left the team themselves has no team page any more.
      return reply.redirect(accountId === page.accountId ? '/dashboard' : `${page.home}?done=removed`, 303);
    }),
  );
}
