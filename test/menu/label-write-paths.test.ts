import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  buildTestApp,
  call,
  developerSession,
  json,
  makeTenant,
  type Tenant,
  type TestApp,
} from '../harness.ts';
import { assertError, ok, request } from './menu-helpers.ts';

/*
 * Every write path of a product's allergens and diets keeps a name of the other list as an own
 * label of the list it was sent in (issue 26, item 3; spec: Product, "anything else is kept verbatim
 * as the restaurant's own label"; diets "never mixed with allergens"), within that list's limits:
 * the whole-menu sync, POST and PATCH /v1/menu/products, the dashboard's JSON API and its forms.
 * The names and limits themselves: allergens.test.ts.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const mixed = { allergens: ['vegan', 'Milch'], diets: ['milk', 'Vegetarisch'] };
const asStored = { allergens: ['vegan', 'milk'], diets: ['milk', 'vegetarian'] };
const labelsOf = (product: { allergens: string[]; diets: string[] }) => ({
  allergens: product.allergens,
  diets: product.diets,
});
const productOf = (tenant: Tenant, id: string) => ok(t, tenant.token, 'GET', `/menu/products/${id}`);

test('PUT /v1/menu, creating and updating a product; 21 own allergen labels → 400 on the list', async () => {
  const tenant = await makeTenant(t.ctx);
  const product = { external_id: 'p-1', name: 'Falafel', price: 800 };
  const first = await ok(t, tenant.token, 'PUT', '/menu', {
    mode: 'merge',
    products: [{ ...product, ...mixed }],
  });
  const id = first.ids.products['p-1'];
  assert.deepEqual(labelsOf(await productOf(tenant, id)), asStored);
  await ok(t, tenant.token, 'PUT', '/menu', {
    mode: 'merge',
    products: [{ external_id: 'p-1', allergens: ['Lupin', 'végétalien'], diets: ['Sesam'] }],
  });
  assert.deepEqual(labelsOf(await productOf(tenant, id)), {
    allergens: ['lupin', 'végétalien'],
    diets: ['Sesam'],
  });
  const ownLabels = Array.from({ length: 20 }, (_, index) => `Label ${index}`);
  assertError(
    await request(t, tenant.token, 'PUT', '/menu', {
      mode: 'merge',
      products: [{ external_id: 'p-1', allergens: [...ownLabels, 'vegan'] }],
    }),
    400,
    'invalid_request',
    'products[0].allergens',
  );
  assert.deepEqual(labelsOf(await productOf(tenant, id)), {
    allergens: ['lupin', 'végétalien'],
    diets: ['Sesam'],
  });
});

test('POST and PATCH /v1/menu/products', async () => {
  const tenant = await makeTenant(t.ctx);
  const created = await ok(t, tenant.token, 'POST', '/menu/products', {
    name: 'Falafel',
    price: 800,
    ...mixed,
  });
  assert.deepEqual(labelsOf(created), asStored);
  const patched = await ok(t, tenant.token, 'PATCH', `/menu/products/${created.id}`, {
    allergens: ['halal'],
    diets: ['Erdnüsse'],
  });
  assert.deepEqual(labelsOf(patched), { allergens: ['halal'], diets: ['Erdnüsse'] });
});

test('the dashboard’s JSON API and its product forms', async () => {
  const tenant = await makeTenant(t.ctx);
  const cookie = await developerSession(t, tenant, 'dashboard');
  const api = `/dashboard/api/restaurants/${tenant.restaurantId}/menu/products`;
  const created = await call(t.app, 'POST', api, cookie, { name: 'Falafel', price: 800, ...mixed });
  assert.equal(created.statusCode, 201, created.body);
  assert.deepEqual(labelsOf(json(created)), asStored);
  const patched = await call(t.app, 'PATCH', `${api}/${json(created).id}`, cookie, {
    allergens: ['kosher'],
    diets: ['Sellerie'],
  });
  assert.equal(patched.statusCode, 200, patched.body);
  assert.deepEqual(labelsOf(json(patched)), { allergens: ['kosher'], diets: ['Sellerie'] });

  // The forms: the keys' checkboxes and the own labels typed beside them.
  const pages = `/dashboard/restaurants/${tenant.restaurantId}/menu`;
  const form = await t.app.inject({ method: 'GET', url: `${pages}/products/new`, headers: { cookie } });
  assert.equal(form.statusCode, 200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  const cookies = [cookie, ...form.cookies.map((c) => `${c.name}=${c.value}`)].join('; ');
  const post = (url: string, fields: string[][]) =>
    t.app.inject({
      method: 'POST',
      url: `${pages}${url}`,
      headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams([['_csrf', csrf], ['lang', 'en'], ...fields]).toString(),
    });
  const fields = [
    ['name', 'Hummus'],
    ['price', '6.50'],
    ['allergens', 'sesame'],
    ['allergens_other', 'vegan, Hausgemacht'],
    ['diets', 'vegetarian'],
    ['diets_other', 'Milch'],
  ];
  const saved = await post('/products', fields);
  assert.equal(saved.statusCode, 303, saved.body);
  const menu = await ok(t, tenant.token, 'GET', '/menu');
  const hummus = menu.products.find((product: { name: string }) => product.name === 'Hummus');
  assert.deepEqual(labelsOf(hummus), {
    allergens: ['sesame', 'vegan', 'Hausgemacht'],
    diets: ['vegetarian', 'Milch'],
  });
  const edited = await post(`/products/${hummus.id}`, [
    ...fields.slice(0, 2),
    ['allergens_other', 'halal'],
    ['diets_other', 'Gluten'],
  ]);
  assert.equal(edited.statusCode, 303, edited.body);
  assert.deepEqual(labelsOf(await productOf(tenant, hummus.id)), { allergens: ['halal'], diets: ['Gluten'] });
});
