import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  buildTestApp,
  developerSession,
  makeTenant,
  newAccount,
  signInTo,
  type TestApp,
} from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';

/*
 * The menu editor's forms over HTTP, where the browser test does not go: each form page opens,
 * what a form cannot read or a service refuses is shown beside its field (400), options and
 * option groups are written, a deleted object's form is 404, staff get the restaurant's 404.
 */
let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

test('every form page opens; refusals beside their fields; writes go on to the menu page', async () => {
  const tenant = await makeTenant(t.ctx);
  const pizza = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Pizza' });
  const margherita = await ok(t, tenant.token, 'POST', '/menu/products', {
    name: 'M',
    price: 950,
    category_id: pizza.id,
  });
  const extras = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
  const cheese = await ok(t, tenant.token, 'POST', `/menu/option-groups/${extras.id}/options`, {
    name: 'Cheese',
    price_delta: 150,
  });
  const cookie = await developerSession(t, tenant, 'dashboard');
  const base = `/dashboard/restaurants/${tenant.restaurantId}/menu`;
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
  const headingOf = (body: string) => /<h1>(.*?)<\/h1>/.exec(body)?.[1];
  for (const [url, heading] of [
    [`${base}/categories/new`, 'Add a category'],
    [`${base}/categories/${pizza.id}`, 'Edit category Pizza'],
    [`${base}/products/new?category_id=${pizza.id}`, 'Add a product'],
    [`${base}/products/${margherita.id}`, 'Edit product M'],
    [`${base}/option-groups/new?product_id=${margherita.id}`, 'Add an option group'],
    [`${base}/option-groups/${extras.id}`, 'Edit option group Extras'],
    [`${base}/options/new?group_id=${extras.id}`, 'Add an option to Extras'],
    [`${base}/options/${cheese.id}`, 'Edit option Cheese'],
  ]) {
    const page = await get(url as string);
    assert.equal(page.statusCode, 200, url);
    assert.equal(headingOf(page.body), heading);
  }
  assert.equal((await get(`${base}/options/${pizza.id}`)).statusCode, 404);

  const form = await get(`${base}/options/new?group_id=${extras.id}`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  const cookies = [cookie, ...form.cookies.map((c) => `${c.name}=${c.value}`)].join('; ');
  const post = (url: string, fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: `${base}${url}`,
      headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, lang: 'en', ...fields }).toString(),
    });
  /** The refused form's errors beside fields: [field id, message]. */
  const errorsOf = async (url: string, fields: Record<string, string>) => {
    const response = await post(url, fields);
    assert.equal(response.statusCode, 400, response.body);
    return [...response.body.matchAll(/<p class="field-error" id="([^"]+)-error">(.*?)<\/p>/g)].map((m) => [
      m[1],
      m[2],
    ]);
  };

  const created = await post('/options', {
    group_id: extras.id,
    name: 'Olives',
    price_delta: '-0,5',
    position: '',
  });
  assert.equal(created.statusCode, 303);
  assert.match(created.headers.location as string, /\/menu\?done=optionCreated#option-/);
  const menu = await ok(t, tenant.token, 'GET', '/menu');
  assert.deepEqual(
    menu.option_groups[0].options.map((o: { name: string; price_delta: number }) => [o.name, o.price_delta]),
    [
      ['Cheese', 150],
      ['Olives', -50],
    ],
  );
  assert.deepEqual(await errorsOf('/options', { group_id: extras.id, name: 'X', price_delta: '1.555' }), [
    ['price_delta', 'Enter the extra charge as an amount, for example 1.50 or -0.50.'],
  ]);
  assert.deepEqual(await errorsOf('/products', { name: 'X', price: '-1' }), [
    ['price', 'Enter the price as an amount, for example 9.50.'],
  ]);
  // Every error of a submit at once, in the form's order: what the form cannot read and what the
  // API's schema refuses alike.
  assert.deepEqual(
    await errorsOf('/products', {
      name: '',
      description: 'd'.repeat(2001),
      price: '-1',
      position: '1000001',
    }),
    [
      ['name', 'Enter a name, without control characters and not too long.'],
      ['description', 'Enter a description of at most 2000 characters.'],
      ['price', 'Enter the price as an amount, for example 9.50.'],
      ['position', 'Enter a whole number from 0 to 100000, or leave it empty.'],
    ],
  );
  assert.deepEqual(await errorsOf('/categories', { name: '', position: '-2' }), [
    ['name', 'Enter a name, without control characters and not too long.'],
    ['position', 'Enter a whole number from 0 to 100000, or leave it empty.'],
  ]);
  assert.deepEqual(
    await errorsOf(`/option-groups/${extras.id}`, { name: 'Extras', min_select: '3', max_select: '2' }),
    [['min_select', 'Enter a whole number from 0 to 20, not more than the most to choose.']],
  );
  assert.deepEqual(
    await errorsOf(`/products/${margherita.id}`, {
      name: 'M',
      price: '9.50',
      allergens_other: 'x'.repeat(41),
    }),
    [['allergens_other', 'Check the other allergens: at most 20, each up to 40 characters.']],
  );
  assert.deepEqual(
    await errorsOf(`/products/${margherita.id}`, { name: 'M', price: '9.50', position: '999999' }),
    [['position', 'Enter a whole number from 0 to 100000, or leave it empty.']],
  );
  assert.deepEqual(
    await errorsOf(`/options/${cheese.id}/availability`, { available: 'false', until: '2020-01-01T10:00' }),
    [[`until-${cheese.id}`, 'Enter a time in the future, or leave it empty.']],
  );
  assert.deepEqual(await errorsOf('/refresh-requests', { note: 'x'.repeat(501) }), [
    ['note', 'Enter a note of at most 500 characters.'],
  ]);

  const linked = await post(`/products/${margherita.id}`, {
    name: 'M',
    price: '9.50',
    option_group_ids: extras.id,
  });
  assert.equal(linked.statusCode, 303);
  assert.deepEqual((await ok(t, tenant.token, 'GET', `/menu/products/${margherita.id}`)).option_group_ids, [
    extras.id,
  ]);
  assert.equal((await post(`/categories/${pizza.id}/delete`, {})).statusCode, 303);
  assert.equal((await post(`/categories/${pizza.id}/delete`, {})).statusCode, 404);
  assert.equal((await ok(t, tenant.token, 'GET', `/menu/products/${margherita.id}`)).category_id, null);
});

test('staff: the menu editor is the restaurant’s 404, and the overview does not link it', async () => {
  const tenant = await makeTenant(t.ctx);
  const staff = await newAccount(t, false);
  await t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: tenant.restaurantId, account_id: staff.id, role: 'staff' })
    .execute();
  const cookie = await signInTo(t.app, 'dashboard', staff.email);
  const home = `/dashboard/restaurants/${tenant.restaurantId}`;
  const menu = await t.app.inject({ method: 'GET', url: `${home}/menu`, headers: { cookie } });
  assert.equal(menu.statusCode, 404);
  assert.match(menu.body, /Restaurant not found/);
  const overview = await t.app.inject({ method: 'GET', url: home, headers: { cookie } });
  assert.equal(overview.statusCode, 200);
  assert.doesNotMatch(overview.body, /href="[^"]*\/menu"/);
});
