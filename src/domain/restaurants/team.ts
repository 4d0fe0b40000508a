import { type Ctx, type Role, tenantOf } from '../shared/context.ts';
import { ApiError, InputError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import { currentRestaurant } from './restaurant-gate.ts';

/*
 * A restaurant's team (the dashboard's Team page): its members with their roles. Every query is
 * scoped by the restaurant the ctx acts in; a member of another restaurant is not found. Changes
 * lock the restaurant's row, so two owners demoting each other at once cannot leave it without
 * one: the last owner can be neither removed nor made staff.
 */

export interface Member {
  account_id: string;
  name: string | null;
  email: string;
  role: Role;
  created_at: Date;
}

const memberNotFound = (accountId: string) => new ApiError('not_found', `No member ${accountId}.`);

/** The members, owners first, then by name and e-mail. */
export async function listMembers(ctx: Ctx): Promise<Member[]> {
  return ctx.db
    .selectFrom('restaurant_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['m.account_id', 'a.name', 'a.email', 'm.role', 'm.created_at'])
    .where('m.tenant_id', '=', tenantOf(ctx))
    .orderBy('m.role')
    .orderBy('a.email')
    .execute();
}

/** One member of the restaurant (not found: another restaurant's, or no one's id). */
export async function findMember(ctx: Ctx, accountId: string): Promise<Member> {
  if (!isUuid(accountId)) throw memberNotFound(accountId);
  const member = await ctx.db
    .selectFrom('restaurant_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['m.account_id', 'a.name', 'a.email', 'm.role', 'm.created_at'])
    .where('m.tenant_id', '=', tenantOf(ctx))
    .where('m.account_id', '=', accountId)
    .executeTakeFirst();
  if (!member) throw memberNotFound(accountId);
  return member;
}

/** Gives a member another role; the last owner stays owner (InputError on `role`). */
export async function changeRole(ctx: Ctx, accountId: string, role: Role): Promise<void> {
  await currentRestaurant(ctx, true);
  const member = await findMember(ctx, accountId);
  if (member.role === role) return;
  if (member.role === 'owner') await refuseLastOwner(ctx, 'role');
  await ctx.db
    .updateTable('restaurant_members')
    .set({ role })
    .where('tenant_id', '=', tenantOf(ctx))
    .where('account_id', '=', accountId)
    .execute();
}

/**
 * Takes a member off the team: their next request to the restaurant is not found. Someone left
 * in no restaurant is signed out of the dashboard (their dashboard sessions end). The last owner
 * stays (InputError).
 */
export async function removeMember(ctx: Ctx, accountId: string): Promise<void> {
  await currentRestaurant(ctx, true);
  const member = await findMember(ctx, accountId);
  if (member.role === 'owner') await refuseLastOwner(ctx, 'account_id');
  await ctx.db
    .deleteFrom('restaurant_members')
    .where('tenant_id', '=', tenantOf(ctx))
    .where('account_id', '=', accountId)
    .execute();
  const elsewhere = await ctx.db
    .selectFrom('restaurant_members')
    .select('tenant_id')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!elsewhere)
    await ctx.db
      .deleteFrom('sessions')
      .where('account_id', '=', accountId)
      .where('surface', '=', 'dashboard')
      .execute();
}

async function refuseLastOwner(ctx: Ctx, param: string): Promise<void> {
  const owners = await ctx.db
    .selectFrom('restaurant_members')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('tenant_id', '=', tenantOf(ctx))
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  if (Number(owners.count) <= 1) throw new InputError('the restaurant needs an owner', { param });
}
