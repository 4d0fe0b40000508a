import { pickLocale } from '../../i18n/i18n.ts';
import { createAccount, EmailTakenError, findAccountByEmail } from '../accounts/accounts.service.ts';
import { queueEmail } from '../email/email-outbox.ts';
import { type Ctx, type Role, tenantOf } from '../shared/context.ts';
import { ApiError, InputError } from '../shared/errors.ts';
import { isUuid, newId, newSecret, sha256 } from '../shared/ids.ts';
import { currentRestaurant } from './restaurant-gate.ts';

/*
 * Invitations to a restaurant's team (the dashboard's Team page). An owner invites an e-mail
 * address as owner or staff; the address gets a link with a random token (stored as its SHA-256
 * only) in the restaurant's language. The link works once, for 7 days, until withdrawn; inviting
 * the address again replaces the earlier invitation (its link stops working). Opening it, someone
 * with an account of that address accepts while signed in to it; anyone else sets a name and a
 * password and gets an account (not a developer's) with the membership.
 */
export const invitationLifetimeDays = 7;

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  created_at: Date;
  expires_at: Date;
}

/** An invitation as its link finds it: the restaurant, and whether its address has an account. */
export interface OpenInvitation extends Invitation {
  tenantId: string;
  restaurant: string;
  accountId: string | null;
}

/** The invited address belongs to a member of the restaurant already. */
export class AlreadyMemberError extends InputError {
  override name = 'AlreadyMemberError';

  constructor(email: string) {
    super(`${email} is a member already`, { param: 'email' });
  }
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const columns = ['id', 'email', 'role', 'created_at', 'expires_at'] as const;

/**
 * Invites `email` as `role` and queues the mail with the link (`link(token)`). Refused (InputError
 * on `email`): no e-mail address, or one of a member already (AlreadyMemberError).
 */
export async function inviteToTeam(
  ctx: Ctx,
  input: { email: string; role: Role },
  link: (token: string) => string,
): Promise<void> {
  const tenantId = tenantOf(ctx);
  const email = input.email.trim();
  if (!emailPattern.test(email) || email.length > 200)
    throw new InputError(`not an e-mail address: "${email}"`, { param: 'email' });
  const restaurant = await currentRestaurant(ctx, true);
  const member = await ctx.db
    .selectFrom('restaurant_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select('m.account_id')
    .where('m.tenant_id', '=', tenantId)
    .where((eb) => eb(eb.fn('lower', ['a.email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  if (member) throw new AlreadyMemberError(email);
  await ctx.db
    .deleteFrom('invitations')
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .execute();
  const token = newSecret('');
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('invitations')
    .values({
      tenant_id: tenantId,
      id: newId(),
      email,
      role: input.role,
      token_hash: sha256(token),
      created_at: now,
      expires_at: new Date(now.getTime() + invitationLifetimeDays * 24 * 60 * 60 * 1000),
    })
    .execute();
  const { language } = await ctx.db
    .selectFrom('restaurants')
    .select('language')
    .where('id', '=', tenantId)
    .executeTakeFirstOrThrow();
  await queueEmail(ctx, {
    template: 'teamInvitation',
    params: { restaurant: restaurant.name, role: input.role, url: link(token), days: invitationLifetimeDays },
    tenantId,
    to: email,
    locale: pickLocale([language]),
  });
}

/** The restaurant's invitations not accepted or withdrawn (expired ones too), newest first. */
export async function listInvitations(ctx: Ctx): Promise<Invitation[]> {
  return ctx.db
    .selectFrom('invitations')
    .select(columns)
    .where('tenant_id', '=', tenantOf(ctx))
    .orderBy('created_at', 'desc')
    .execute();
}

/** Withdraws an invitation: its link stops working (not found: another restaurant's, or gone). */
export async function withdrawInvitation(ctx: Ctx, id: string): Promise<void> {
  const deleted = isUuid(id)
    ? await ctx.db
        .deleteFrom('invitations')
        .where('tenant_id', '=', tenantOf(ctx))
        .where('id', '=', id)
        .executeTakeFirst()
    : null;
  if (!deleted || Number(deleted.numDeletedRows) === 0)
    throw new ApiError('not_found', `No invitation ${id}.`);
}

/** The invitation of a link's token, while it works (not expired, used or withdrawn); else null. */
export async function openInvitation(ctx: Ctx, token: string, lock = false): Promise<OpenInvitation | null> {
  const query = ctx.db
    .selectFrom('invitations as i')
    .innerJoin('restaurants as r', 'r.id', 'i.tenant_id')
    .leftJoin('accounts as a', (join) =>
      join.on((eb) => eb(eb.fn('lower', ['a.email']), '=', eb.fn('lower', ['i.email']))),
    )
    .select(['i.id', 'i.email', 'i.role', 'i.created_at', 'i.expires_at', 'i.tenant_id as tenantId'])
    .select(['r.name as restaurant', 'a.id as accountId'])
    .where('i.token_hash', '=', sha256(token))
    .where('i.expires_at', '>', ctx.clock.now());
  const found = await (lock ? query.forUpdate('i') : query).executeTakeFirst();
  return found ?? null;
}

/**
 * Accepts the invitation of `token` for the signed-in account `accountId`, which must have its
 * address; the link is used up. Returns the restaurant, or null where the link does not work (or
 * names another address).
 */
export async function acceptInvitation(ctx: Ctx, token: string, accountId: string): Promise<string | null> {
  const invitation = await openInvitation(ctx, token, true);
  if (!invitation || invitation.accountId !== accountId) return null;
  await join(ctx, invitation, accountId);
  return invitation.tenantId;
}

/**
 * A new account for the invitation's address (name, password: the rules of createAccount), with
 * the membership; the link is used up. Returns the restaurant and the address, or null where the
 * link does not work; EmailTakenError where the address has an account (meanwhile).
 */
export async function joinWithNewAccount(
  ctx: Ctx,
  token: string,
  input: { name: string; password: string },
): Promise<{ tenantId: string; email: string } | null> {
  const invitation = await openInvitation(ctx, token, true);
  if (!invitation) return null;
  if (invitation.accountId || (await findAccountByEmail(ctx, invitation.email)))
    throw new EmailTakenError(invitation.email);
  const account = await createAccount(ctx, {
    email: invitation.email,
    name: input.name || null,
    password: input.password,
  });
  await join(ctx, invitation, account.id);
  return { tenantId: invitation.tenantId, email: account.email };
}

async function join(ctx: Ctx, invitation: OpenInvitation, accountId: string): Promise<void> {
  await ctx.db
    .insertInto('restaurant_members')
    .values({
      tenant_id: invitation.tenantId,
      account_id: accountId,
      role: invitation.role,
      created_at: ctx.clock.now(),
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'account_id']).doUpdateSet({ role: invitation.role }))
    .execute();
  await ctx.db
    .deleteFrom('invitations')
    .where('tenant_id', '=', invitation.tenantId)
    .where('id', '=', invitation.id)
    .execute();
}
