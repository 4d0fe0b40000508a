import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createAccount } from '../domain/accounts/accounts.service.ts';
import { signUpDeveloper } from '../domain/accounts/developer-sign-up.ts';
import { removeTotp } from '../domain/accounts/totp.ts';
import { inAdminTransaction } from './admin-transaction.ts';
import { optionalText, parseCommandLine, printResult, required } from './command-line.ts';

const accountOptions = {
  email: { type: 'string' },
  name: { type: 'string' },
  password: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

/** A password for an account created without one: 16 characters, 96 random bits. */
function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}

function passwordNote(generated: string | null): string {
  return generated ? `; password ${generated} (shown this once)` : '';
}

/** `servery owner create --email <e> [--name <n>] [--password <p>]` */
export async function createOwnerCommand(args: string[]): Promise<void> {
  const command = 'owner create';
  const { values } = parseCommandLine(command, () =>
    parseArgs({ args, options: accountOptions, strict: true }),
  );
  const email = required(command, 'email', values.email);
  const password = values.password ?? generatePassword();
  const generated = values.password === undefined ? password : null;
  const account = await inAdminTransaction((ctx) =>
    createAccount(ctx, { email, name: optionalText(values.name), password }),
  );
  printResult(
    values.json,
    { account, generated_password: generated },
    `created owner ${account.email} (account ${account.id})${passwordNote(generated)}`,
  );
}

/**
 * `servery developer create --email <e> [--name <n>] [--password <p>] [--timezone …] [--currency …] [--country …]`:
 * a developer account and its test restaurant (livemode false, pro plan, owned by the developer).
 */
export async function createDeveloperCommand(args: string[]): Promise<void> {
  const command = 'developer create';
  const { values } = parseCommandLine(command, () =>
    parseArgs({
      args,
      options: {
        ...accountOptions,
        timezone: { type: 'string', default: 'Europe/Berlin' },
        currency: { type: 'string', default: 'EUR' },
        country: { type: 'string', default: 'DE' },
      },
      strict: true,
    }),
  );
  const email = required(command, 'email', values.email);
  const password = values.password ?? generatePassword();
  const generated = values.password === undefined ? password : null;
  const { account, restaurant } = await inAdminTransaction((ctx) =>
    signUpDeveloper(ctx, {
      email,
      name: optionalText(values.name),
      password,
      testRestaurant: { timezone: values.timezone, currency: values.currency, country: values.country },
    }),
  );
  printResult(
    values.json,
    { account, restaurant, generated_password: generated },
    `created developer ${account.email} (account ${account.id}) with the test restaurant ` +
      `"${restaurant.name}" (slug ${restaurant.slug})${passwordNote(generated)}`,
  );
}

/**
 * `servery second-factor off --email <e>`: turns an account's second factor off when its owner
 * lost the device (make sure first who is asking); the account's sessions end.
 */
export async function secondFactorOffCommand(args: string[]): Promise<void> {
  const command = 'second-factor off';
  const { values } = parseCommandLine(command, () =>
    parseArgs({
      args,
      options: { email: { type: 'string' }, json: { type: 'boolean', default: false } },
      strict: true,
    }),
  );
  const email = required(command, 'email', values.email);
  const result = await inAdminTransaction((ctx) => removeTotp(ctx, email));
  printResult(
    values.json,
    { account_id: result.accountId, second_factor_was_on: result.wasOn },
    result.wasOn
      ? `turned off the second factor of ${email}; its sessions ended`
      : `${email} had no second factor; its sessions ended`,
  );
}
