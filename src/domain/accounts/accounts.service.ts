import type { Ctx } from '../shared/context.ts';
import { InputError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { hashPassword } from './password.ts';

export interface NewAccount {
  email: string;
  name?: string | null;
  password: string;
  developer?: boolean;
}

export interface Account {
  id: string;
  email: string;
  name: string | null;
  developer: boolean;
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createAccount(ctx: Ctx, input: NewAccount): Promise<Account> {
  const email = input.email.trim();
  if (!emailPattern.test(email) || email.length > 200)
    throw new InputError(`not an e-mail address: "${email}"`);
  if (input.password.length < 10) throw new InputError('the password must have at least 10 characters');
  const taken = await ctx.db
    .selectFrom('accounts')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  if (taken) throw new InputError(`an account with the e-mail ${email} exists already`);
  const account = { id: newId(), email, name: input.name ?? null, developer: input.developer ?? false };
  await ctx.db
    .insertInto('accounts')
    .values({ ...account, password_hash: await hashPassword(input.password), created_at: ctx.clock.now() })
    .execute();
  return account;
}

export async function findAccountByEmail(ctx: Ctx, email: string): Promise<Account | undefined> {
  return ctx.db
    .selectFrom('accounts')
    .select(['id', 'email', 'name', 'developer'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
    .executeTakeFirst();
}

/** Whether the account is a developer's (only those use the developer console). */
export async function isDeveloper(ctx: Ctx, accountId: string): Promise<boolean> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select('developer')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return account?.developer === true;
}
