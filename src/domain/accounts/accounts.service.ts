import type { Ctx } from '../shared/context.ts';
import { InputError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { characterCount } from '../shared/text.ts';
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
// Sign-in refuses longer passwords without hashing them (http/shared/sessions.ts).
const longestPassword = 1000;
const longestName = 100;

/** The e-mail address belongs to another account already (in any letter case). */
export class EmailTakenError extends InputError {
  override name = 'EmailTakenError';

  constructor(email: string) {
    super(`an account with the e-mail ${email} exists already`, { param: 'email' });
  }
}

/*
 * A new account, refused (an InputError whose `param` names the field) unless:
 * - the e-mail looks like one and has at most 200 characters, and no account has it in any letter
 *   case (EmailTakenError; the unique index on lower(email) settles a race between two);
 * - the password has 10 to 1000 characters; the name, if any, at most 100.
 */
export async function createAccount(ctx: Ctx, input: NewAccount): Promise<Account> {
  const email = input.email.trim();
  checkEmail(email);
  checkNewPassword(input.password);
  if (input.name && characterCount(input.name) > longestName)
    throw new InputError(`the name must have at most ${longestName} characters`, { param: 'name' });
  const taken = await ctx.db
    .selectFrom('accounts')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  if (taken) throw new EmailTakenError(email);
  const account = { id: newId(), email, name: input.name ?? null, developer: input.developer ?? false };
  try {
    await ctx.db
      .insertInto('accounts')
      .values({ ...account, password_hash: await hashPassword(input.password), created_at: ctx.clock.now() })
      .execute();
  } catch (error) {
    // The e-mail is the one unique key a new account can collide on (its id is new). Told by the
    // code alone: on Citus the error comes from a node, without the constraint's name.
    if ((error as { code?: string }).code === '23505') throw new EmailTakenError(email);
    throw error;
  }
  return account;
}

/** A new password, as sign-up takes it: 10 to 1000 characters (an InputError of `param` otherwise). */
export function checkNewPassword(password: string, param = 'password'): void {
  if (password.length < 10 || password.length > longestPassword)
    throw new InputError(`the password must have 10 to ${longestPassword} characters`, { param });
}

/** An e-mail address, as sign-up takes it: one that looks like one, at most 200 characters. */
export function checkEmail(email: string): void {
  if (!emailPattern.test(email) || email.length > 200)
    throw new InputError(`not an e-mail address: "${email}"`, { param: 'email' });
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
