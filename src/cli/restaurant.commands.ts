import { parseArgs } from 'node:util';
import { findAccountByEmail } from '../domain/accounts/accounts.service.ts';
import {
  createRestaurant,
  findRestaurant,
  type Language,
  setSubscriptionActive,
} from '../domain/restaurants/restaurants.service.ts';
import { InputError } from '../domain/shared/errors.ts';
import type { Plan } from '../domain/shared/scopes.ts';
import { inAdminTransaction } from './admin-transaction.ts';
import { onlyArgument, optionalText, parseCommandLine, printResult, required } from './command-line.ts';

/**
 * `servery restaurant create --name <n> --owner <email> [--owner …] --plan starter|pro|premium
 * (--live | --test) --timezone <IANA> --currency <ISO 4217> [--country <XX>] [--language <l>] [--slug <s>]`
 */
export async function createRestaurantCommand(args: string[]): Promise<void> {
  const command = 'restaurant create';
  const { values } = parseCommandLine(command, () =>
    parseArgs({
      args,
      options: {
        name: { type: 'string' },
        owner: { type: 'string', multiple: true },
        plan: { type: 'string' },
        live: { type: 'boolean', default: false },
        test: { type: 'boolean', default: false },
        timezone: { type: 'string' },
        currency: { type: 'string' },
        country: { type: 'string' },
        language: { type: 'string' },
        slug: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    }),
  );
  const name = required(command, 'name', values.name);
  const ownerEmails = (values.owner ?? []).map((email) => email.trim()).filter((email) => email !== '');
  if (ownerEmails.length === 0) throw new InputError(`${command}: --owner is required`);
  const plan = required(command, 'plan', values.plan) as Plan;
  if (values.live === values.test) throw new InputError(`${command}: give either --live or --test`);
  const timezone = required(command, 'timezone', values.timezone);
  const currency = required(command, 'currency', values.currency).toUpperCase();
  const country = optionalText(values.country)?.toUpperCase() ?? null;

  const { restaurant, owners } = await inAdminTransaction(async (ctx) => {
    const owners = new Map<string, string>();
    for (const email of ownerEmails) {
      const account = await findAccountByEmail(ctx, email);
      if (!account) throw new InputError(`no account with the e-mail ${email}`);
      owners.set(account.id, account.email);
    }
    const restaurant = await createRestaurant(ctx, {
      name,
      timezone,
      currency,
      country,
      plan,
      livemode: values.live,
      ownerIds: [...owners.keys()],
      ...(values.language === undefined ? {} : { language: values.language.trim() as Language }),
      ...(values.slug === undefined ? {} : { slug: values.slug.trim() }),
    });
    return { restaurant, owners: [...owners].map(([id, email]) => ({ id, email })) };
  });
  printResult(
    values.json,
    { restaurant, owners },
    `created restaurant "${restaurant.name}" (slug ${restaurant.slug}, id ${restaurant.id}), ` +
      `${restaurant.plan} plan, ${restaurant.livemode ? 'live' : 'test'}, owned by ` +
      owners.map((owner) => owner.email).join(', '),
  );
}

/** `servery restaurant subscription <slug-or-id> --active true|false` */
export async function restaurantSubscriptionCommand(args: string[]): Promise<void> {
  const command = 'restaurant subscription';
  const { values, positionals } = parseCommandLine(command, () =>
    parseArgs({
      args,
      options: { active: { type: 'string' }, json: { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: true,
    }),
  );
  const idOrSlug = onlyArgument(command, "restaurant's slug or id", positionals);
  const activeText = required(command, 'active', values.active);
  if (activeText !== 'true' && activeText !== 'false')
    throw new InputError(`${command}: --active must be true or false, not "${activeText}"`);
  const active = activeText === 'true';
  const restaurant = await inAdminTransaction(async (ctx) => {
    const restaurant = await findRestaurant(ctx, idOrSlug);
    if (!restaurant) throw new InputError(`no restaurant with the slug or id ${idOrSlug}`);
    await setSubscriptionActive(ctx, restaurant.id, active);
    return restaurant;
  });
  printResult(
    values.json,
    { restaurant: { ...restaurant, subscription_active: active } },
    `restaurant "${restaurant.name}" (slug ${restaurant.slug}): subscription ${active ? 'active' : 'inactive'}`,
  );
}
