import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { buildTestApp, type TestApp, testBaseUrl } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { type OrderingTenant, orderingTenant } from '../orders/order-helpers.ts';

/*
 * The storefront keeps a restaurant's menu between pages under the menu's version (kept-menus.ts).
 * Two processes of the service on one database: one shows the menu (and keeps it), the other
 * changes it through each kind of menu write; the first shows every change on its next page, and
 * a sold-out time that passes without any write.
 */
let shows: TestApp;
let writes: Awaited<ReturnType<typeof buildApp>>;
let tenant: OrderingTenant;

before(async () => {
  shows = await buildTestApp();
  writes = await buildApp({ config: { baseUrl: testBaseUrl }, db: shows.database.db, clock: shows.clock });
  tenant = await orderingTenant(shows);
});
after(async () => {
  await writes.close();
  await shows.close();
});

/** The menu page as the first process shows it, tags dropped. */
async function menuPage(): Promise<string> {
  const res = await shows.app.inject({ url: `/s/${tenant.slug}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
}

/** A menu write through the other process's API. */
async function write(method: 'PATCH' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) {
  const res = await writes.inject({
    method,
    url: `/v1${url}`,
    headers: {
      authorization: `Bearer ${tenant.token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

test('a menu change made by another process is on the next menu page, whichever write made it', async () => {
  assert.match(await menuPage(), /Pizza €12\.00/);

  await write('PATCH', `/menu/products/${tenant.products.pizza}`, { name: 'Pizza Margherita', price: 1250 });
  assert.match(await menuPage(), /Pizza Margherita €12\.50/, 'a product changed');

  const categories = (await ok(shows, tenant.token, 'GET', '/menu/categories')).data as { id: string }[];
  await write('PATCH', `/menu/categories/${categories[0]?.id}`, { name: 'Cold drinks' });
  assert.match(await menuPage(), /Cold drinks/, 'a category renamed');

  await write('POST', '/menu/availability', {
    entries: [{ type: 'product', id: tenant.products.pizza, available: false }],
  });
  assert.match(await menuPage(), /Pizza Margherita €12\.50 Sold out/, 'sold out');

  await write('PUT', '/menu', {
    mode: 'merge',
    products: [{ external_id: 'tiramisu', name: 'Tiramisu', price: 600 }],
  });
  assert.match(await menuPage(), /Tiramisu €6\.00/, 'a whole-menu sync');

  await write('DELETE', `/menu/products/${tenant.products.lemonade}`);
  assert.doesNotMatch(await menuPage(), /Lemonade/, 'a product deleted');
});

test('a sold-out time that passes shows the product on sale again, with no write in between', async () => {
  const until = new Date(shows.clock.now().getTime() + 60 * 60_000).toISOString();
  await write('POST', '/menu/availability', {
    entries: [{ type: 'product', id: tenant.products.soldOut, available: false, until }],
  });
  assert.match(await menuPage(), /Calzone €11\.00 Sold out/);
  shows.clock.advance(61 * 60_000);
  assert.match(await menuPage(), /Calzone €11\.00 (?!Sold out)/);
});
