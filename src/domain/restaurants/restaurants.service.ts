import type { Ctx } from '../shared/context.ts';
import { InputError } from '../shared/errors.ts';
import { isUuid, newId } from '../shared/ids.ts';
import { type Plan, plans } from '../shared/scopes.ts';
import { characterCount } from '../shared/text.ts';

export const languages = ['de', 'en', 'fr', 'es', 'it'] as const;
export type Language = (typeof languages)[number];

export interface NewRestaurant {
  name: string;
  slug?: string;
  timezone: string;
  currency: string;
  country?: string | null;
  language?: Language;
  plan: Plan;
  livemode: boolean;
  ownerIds: readonly string[];
}

export interface Restaurant {
  id: string;
  name: string;
  slug: string;
  timezone: string;
  currency: string;
  country: string | null;
  language: Language;
  plan: Plan;
  livemode: boolean;
}

const timezones = new Set(Intl.supportedValuesOf('timeZone'));
const currencies = new Set(Intl.supportedValuesOf('currency'));
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

function slugFrom(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
}

function check(input: NewRestaurant): void {
  if (!input.name.trim() || characterCount(input.name) > 120)
    throw new InputError('the name must have 1 to 120 characters');
  // "UTC" and the like are not in Intl's canonical list but are valid IANA names.
  if (!timezones.has(input.timezone) && !isIanaZone(input.timezone)) {
    throw new InputError(`unknown IANA time zone: "${input.timezone}"`);
  }
  if (!currencies.has(input.currency)) throw new InputError(`unknown ISO 4217 currency: "${input.currency}"`);
  if (input.country != null && (!/^[A-Z]{2}$/.test(input.country) || !regionNames.of(input.country))) {
    throw new InputError(`unknown ISO 3166-1 alpha-2 country: "${input.country}"`);
  }
  if (input.language !== undefined && !languages.includes(input.language)) {
    throw new InputError(`language must be one of ${languages.join(', ')}`);
  }
  if (!plans.includes(input.plan)) throw new InputError(`plan must be one of ${plans.join(', ')}`);
  if (input.slug !== undefined && !/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/.test(input.slug)) {
    throw new InputError('the slug must be 1 to 40 lowercase letters, digits and inner hyphens');
  }
}

function isIanaZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

async function freeSlug(ctx: Ctx, wanted: string): Promise<string> {
  const base = wanted || 'restaurant';
  const taken = new Set(
    (
      await ctx.db
        .selectFrom('restaurants')
        .select('slug')
        .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
        .execute()
    ).map((r) => r.slug),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

export async function createRestaurant(ctx: Ctx, input: NewRestaurant): Promise<Restaurant> {
  check(input);
  if (input.ownerIds.length === 0) throw new InputError('a restaurant needs at least one owner');
  const owners = await ctx.db.selectFrom('accounts').select('id').where('id', 'in', input.ownerIds).execute();
  if (owners.length !== new Set(input.ownerIds).size) throw new InputError('an owner account does not exist');
  let slug: string;
  if (input.slug !== undefined) {
    const clash = await ctx.db
      .selectFrom('restaurants')
      .select('id')
      .where('slug', '=', input.slug)
      .executeTakeFirst();
    if (clash) throw new InputError(`the slug "${input.slug}" is taken`);
    slug = input.slug;
  } else {
    slug = await freeSlug(ctx, slugFrom(input.name));
  }
  const restaurant: Restaurant = {
    id: newId(),
    name: input.name.trim(),
    slug,
    timezone: input.timezone,
    currency: input.currency,
    country: input.country ?? null,
    language: input.language ?? 'en',
    plan: input.plan,
    livemode: input.livemode,
  };
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('restaurants')
    .values({ ...restaurant, created_at: now })
    .execute();
  await ctx.db
    .insertInto('restaurant_members')
    .values(
      input.ownerIds.map((accountId) => ({
        tenant_id: restaurant.id,
        account_id: accountId,
        role: 'owner' as const,
        created_at: now,
      })),
    )
    .execute();
  await ctx.db.insertInto('stores').values({ tenant_id: restaurant.id, updated_at: now }).execute();
  // The default booking settings (domain/reservations/reservation-settings.ts).
  await ctx.db
    .insertInto('reservation_settings')
    .values({ tenant_id: restaurant.id, updated_at: now })
    .execute();
  return restaurant;
}

export async function setSubscriptionActive(ctx: Ctx, restaurantId: string, active: boolean): Promise<void> {
  const result = await ctx.db
    .updateTable('restaurants')
    .set({ subscription_active: active })
    .where('id', '=', restaurantId)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw new InputError(`no restaurant ${restaurantId}`);
}

/** The restaurant an operator names by its id or its slug, if there is one. */
export async function findRestaurant(
  ctx: Ctx,
  idOrSlug: string,
): Promise<{ id: string; name: string; slug: string } | undefined> {
  return ctx.db
    .selectFrom('restaurants')
    .select(['id', 'name', 'slug'])
    .where(isUuid(idOrSlug) ? 'id' : 'slug', '=', idOrSlug)
    .executeTakeFirst();
}
