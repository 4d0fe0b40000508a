import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAccount } from '../../src/domain/accounts/accounts.service.ts';
import { type App, createApp, setAppStatus } from '../../src/domain/apps/apps.service.ts';
import { issueAccessToken } from '../../src/domain/connections/access-tokens.ts';
import { consentToApp } from '../../src/domain/connections/connections.service.ts';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import { scopes } from '../../src/domain/shared/scopes.ts';
import { bearer, buildTestApp, json, password, type TestApp } from '../harness.ts';

/*
 * Product tax_rates through the API (issue 12, item 7): the product's tax_class, else its
 * category's, else food; rates of the restaurant's country (its setting, else its time zone's);
 * null where the country or the rate is unknown, never 0.
 */

let t: TestApp;
let developerId: string;
let app: App;
let serial = 0;

before(async () => {
  t = await buildTestApp();
  const account = await createAccount(t.ctx, {
    email: `tax-rates-${process.pid}@example.test`,
    password,
    developer: true,
  });
  developerId = account.id;
  ({ app } = await createApp(t.ctx, {
    developerId,
    name: 'Tax rates app',
    type: 'confidential',
    redirectUris: ['https://app.example.test/callback'],
    scopes,
  }));
  await setAppStatus(t.ctx, app.clientId, 'approved');
});
after(() => t.close());

/** A restaurant of the country (null: none set) and time zone, with the app connected: its token. */
async function restaurantIn(country: string | null, timezone: string): Promise<string> {
  serial += 1;
  const restaurant = await createRestaurant(t.ctx, {
    name: `Tax ${country ?? 'none'} ${serial}`,
    timezone,
    currency: country === 'CH' || timezone === 'Europe/Zurich' ? 'CHF' : 'EUR',
    country,
    plan: 'pro',
    livemode: true,
    ownerIds: [developerId],
  });
  const connection = await consentToApp(t.ctx, { tenantId: restaurant.id, appId: app.id, scopes });
  const { token } = await issueAccessToken(t.ctx, {
    tenantId: restaurant.id,
    connectionId: connection.connectionId,
    scopes,
  });
  return token;
}

type TaxClass = 'food' | 'drink' | 'alcohol';

async function createProduct(
  token: string,
  body: { name: string; price: number; tax_class?: TaxClass | null; category_id?: string },
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
): Promise<any> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/menu/products',
    headers: bearer(token),
    payload: body,
  });
  assert.equal(res.statusCode, 201, res.body);
  return json(res);
}

async function createCategory(
  token: string,
  body: { name: string; tax_class: TaxClass | null },
): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/menu/categories',
    headers: bearer(token),
    payload: body,
  });
  assert.equal(res.statusCode, 201, res.body);
  const category = json(res);
  assert.equal(category.tax_class, body.tax_class);
  return category.id;
}

function bps(dineIn: number | null, takeaway: number | null) {
  return { dine_in_bps: dineIn, takeaway_bps: takeaway };
}

describe('rates of the restaurant country', () => {
  const cases: { country: string; timezone: string; rates: Record<TaxClass, ReturnType<typeof bps>> }[] = [
    // Germany from 2026: food 7 % served and to take away; drinks and alcohol 19 %.
    {
      country: 'DE',
      timezone: 'Europe/Berlin',
      rates: { food: bps(700, 700), drink: bps(1900, 1900), alcohol: bps(1900, 1900) },
    },
    // Switzerland: 8.1 % served; 2.6 % to take away, except alcohol.
    {
      country: 'CH',
      timezone: 'Europe/Zurich',
      rates: { food: bps(810, 260), drink: bps(810, 260), alcohol: bps(810, 810) },
    },
    // Austria: food 10 %, drinks 20 % either way.
    {
      country: 'AT',
      timezone: 'Europe/Vienna',
      rates: { food: bps(1000, 1000), drink: bps(2000, 2000), alcohol: bps(2000, 2000) },
    },
    // Netherlands: food and soft drinks 9 %, alcohol 21 %.
    {
      country: 'NL',
      timezone: 'Europe/Amsterdam',
      rates: { food: bps(900, 900), drink: bps(900, 900), alcohol: bps(2100, 2100) },
    },
    // United Kingdom: 20 %, takeaway food counted as hot food.
    {
      country: 'GB',
      timezone: 'Europe/London',
      rates: { food: bps(2000, 2000), drink: bps(2000, 2000), alcohol: bps(2000, 2000) },
    },
  ];
  for (const { country, timezone, rates } of cases) {
    test(`${country}: food, drink and alcohol products`, async () => {
      const token = await restaurantIn(country, timezone);
      for (const taxClass of ['food', 'drink', 'alcohol'] as const) {
        const product = await createProduct(token, {
          name: `A ${taxClass}`,
          price: 450,
          tax_class: taxClass,
        });
        assert.equal(product.tax_class, taxClass);
        assert.deepEqual(product.tax_rates, rates[taxClass], `${country} ${taxClass}`);
      }
    });
  }

  test('a rate the table does not know is null, not 0 (Spanish soft drinks to take away)', async () => {
    const token = await restaurantIn('ES', 'Europe/Madrid');
    const product = await createProduct(token, { name: 'Lemonade', price: 300, tax_class: 'drink' });
    assert.deepEqual(product.tax_rates, bps(1000, null));
  });
});

describe('tax class of a product without one', () => {
  test("takes its category's", async () => {
    const token = await restaurantIn('DE', 'Europe/Berlin');
    const drinks = await createCategory(token, { name: 'Drinks', tax_class: 'drink' });
    const product = await createProduct(token, { name: 'Cola', price: 350, category_id: drinks });
    assert.equal(product.tax_class, null);
    assert.deepEqual(product.tax_rates, bps(1900, 1900));
  });

  test('is food in a category without one, and without a category', async () => {
    const token = await restaurantIn('CH', 'Europe/Zurich');
    const mains = await createCategory(token, { name: 'Mains', tax_class: null });
    const inCategory = await createProduct(token, { name: 'Rösti', price: 2200, category_id: mains });
    assert.deepEqual(inCategory.tax_rates, bps(810, 260));
    const alone = await createProduct(token, { name: 'Bread', price: 400 });
    assert.equal(alone.tax_class, null);
    assert.deepEqual(alone.tax_rates, bps(810, 260));
  });

  test("the product's own class wins over its category's", async () => {
    const token = await restaurantIn('DE', 'Europe/Berlin');
    const drinks = await createCategory(token, { name: 'Drinks', tax_class: 'drink' });
    const beer = await createProduct(token, {
      name: 'Beer',
      price: 450,
      category_id: drinks,
      tax_class: 'alcohol',
    });
    assert.equal(beer.tax_class, 'alcohol');
    assert.deepEqual(beer.tax_rates, bps(1900, 1900));
    const cake = await createProduct(token, {
      name: 'Cake',
      price: 450,
      category_id: drinks,
      tax_class: 'food',
    });
    assert.deepEqual(cake.tax_rates, bps(700, 700));
  });
});

describe('country of the restaurant', () => {
  test('without a tax setting, the country of its time zone', async () => {
    const zurich = await restaurantIn(null, 'Europe/Zurich');
    assert.deepEqual((await createProduct(zurich, { name: 'Salad', price: 1500 })).tax_rates, bps(810, 260));
    const vienna = await restaurantIn(null, 'Europe/Vienna');
    const soda = await createProduct(vienna, { name: 'Soda', price: 300, tax_class: 'drink' });
    assert.deepEqual(soda.tax_rates, bps(2000, 2000));
  });

  test('the tax setting wins over the time zone', async () => {
    const token = await restaurantIn('CH', 'Europe/Berlin');
    assert.deepEqual((await createProduct(token, { name: 'Salad', price: 1500 })).tax_rates, bps(810, 260));
  });

  test('a country outside the table gives null rates, never 0', async () => {
    const token = await restaurantIn('US', 'America/New_York');
    for (const taxClass of ['food', 'drink', 'alcohol'] as const) {
      const product = await createProduct(token, { name: `US ${taxClass}`, price: 500, tax_class: taxClass });
      assert.deepEqual(product.tax_rates, bps(null, null));
    }
  });

  test('no country and a time zone of no country (UTC) gives null rates', async () => {
    const token = await restaurantIn(null, 'UTC');
    const product = await createProduct(token, { name: 'Soup', price: 600 });
    assert.strictEqual(product.tax_rates.dine_in_bps, null);
    assert.strictEqual(product.tax_rates.takeaway_bps, null);
  });
});
