import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectAnotherApp } from '../events/events-helpers.ts';
import { buildTestApp, makeTenant, type Tenant, type TestApp } from '../harness.ts';
import { assertError, ok, request } from './menu-helpers.ts';

/*
 * external_id is per app on the single-object endpoints (issue 26, item 1; spec: Category,
 * "only the owning app's own value is ever visible"; Errors, external_id_taken is for a value "the
 * app already uses"): two apps of a restaurant may each use a value for an object of their own,
 * each app's `?external_id=` filter finds its own, and 409 external_id_taken is only for a value the
 * calling app already uses for another object of the kind. The whole-menu sync: menu-sync.test.ts.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

interface Kind {
  name: string;
  /** The kind's list and single-object path. */
  path: string;
  /** POST path and body of a new object (the restaurant's group for options). */
  create(tenant: Tenant): Promise<{ url: string; body: Record<string, unknown> }>;
}

const kinds: Kind[] = [
  {
    name: 'category',
    path: '/menu/categories',
    create: async () => ({ url: '/menu/categories', body: { name: 'Pizza' } }),
  },
  {
    name: 'product',
    path: '/menu/products',
    create: async () => ({ url: '/menu/products', body: { name: 'Margherita', price: 900 } }),
  },
  {
    name: 'option group',
    path: '/menu/option-groups',
    create: async () => ({ url: '/menu/option-groups', body: { name: 'Extras' } }),
  },
  {
    name: 'option',
    path: '/menu/options',
    create: async (tenant) => {
      const [group] = (await ok(t, tenant.token, 'GET', '/menu/option-groups')).data;
      const groupId =
        group?.id ?? (await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' })).id;
      return { url: `/menu/option-groups/${groupId}/options`, body: { name: 'Cheese', price_delta: 150 } };
    },
  },
];

const idsOf = (list: { data: { id: string }[] }) => list.data.map((object) => object.id);

for (const kind of kinds)
  describe(`${kind.name}: external_id is per app`, () => {
    test('another app uses the same value for its own object; each app’s filter finds its own; 409 only for a value the app already uses', async () => {
      const tenant = await makeTenant(t.ctx);
      const other = await connectAnotherApp(t.ctx, tenant);
      const create = async (app: Tenant, externalId?: string) => {
        const { url, body } = await kind.create(app);
        return ok(t, app.token, 'POST', url, { ...body, ...(externalId && { external_id: externalId }) });
      };
      const mine = await create(tenant, 'x');
      const theirs = await create(other, 'x');
      assert.notEqual(theirs.id, mine.id);
      assert.equal(theirs.external_id, 'x');
      assert.equal((await ok(t, tenant.token, 'GET', `${kind.path}/${theirs.id}`)).external_id, null);
      assert.equal((await ok(t, other.token, 'GET', `${kind.path}/${mine.id}`)).external_id, null);
      assert.deepEqual(idsOf(await ok(t, tenant.token, 'GET', `${kind.path}?external_id=x`)), [mine.id]);
      assert.deepEqual(idsOf(await ok(t, other.token, 'GET', `${kind.path}?external_id=x`)), [theirs.id]);

      // The second app already uses "x": another object of its own, or the first app's, cannot take it.
      const { url, body } = await kind.create(other);
      assertError(
        await request(t, other.token, 'POST', url, { ...body, external_id: 'x' }),
        409,
        'external_id_taken',
        'external_id',
      );
      const plain = await create(other);
      for (const target of [plain.id, mine.id])
        assertError(
          await request(t, other.token, 'PATCH', `${kind.path}/${target}`, { external_id: 'x' }),
          409,
          'external_id_taken',
          'external_id',
        );
      assert.deepEqual(
        await ok(t, tenant.token, 'GET', `${kind.path}/${mine.id}`),
        mine,
        'refused: unchanged',
      );
      assert.equal((await ok(t, other.token, 'GET', `${kind.path}/${plain.id}`)).external_id, null);

      // A value only the first app uses is free for the second app.
      const firstY = await create(tenant, 'y');
      const renamed = await ok(t, other.token, 'PATCH', `${kind.path}/${plain.id}`, { external_id: 'y' });
      assert.equal(renamed.external_id, 'y');
      assert.deepEqual(idsOf(await ok(t, other.token, 'GET', `${kind.path}?external_id=y`)), [plain.id]);
      assert.deepEqual(idsOf(await ok(t, tenant.token, 'GET', `${kind.path}?external_id=y`)), [firstY.id]);
    });
  });

describe('sold-out reporting by external_id', () => {
  test('names the calling app’s own object of the value, never the other app’s', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await connectAnotherApp(t.ctx, tenant);
    const mine = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'A',
      price: 1,
      external_id: 'x',
    });
    const theirs = await ok(t, other.token, 'POST', '/menu/products', {
      name: 'B',
      price: 2,
      external_id: 'x',
    });
    await ok(
      t,
      other.token,
      'POST',
      '/menu/availability',
      { entries: [{ type: 'product', external_id: 'x', available: false }] },
      200,
    );
    assert.equal((await ok(t, tenant.token, 'GET', `/menu/products/${theirs.id}`)).available, false);
    assert.equal((await ok(t, tenant.token, 'GET', `/menu/products/${mine.id}`)).available, true);
  });
});
