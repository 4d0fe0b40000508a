import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectAnotherApp, feedAll } from '../events/events-helpers.ts';
import { buildTestApp, makeTenant, type TestApp, tokenFor } from '../harness.ts';
import { assertError, ok, request } from './menu-helpers.ts';

/* /v1/menu/options and POST /v1/menu/option-groups/{id}/options: create, read, change, delete, lists, events. */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const now = () => t.clock.now().toISOString();
const menuEvents = async (token: string, types = 'menu.*') =>
  (await feedAll(t, token, `&types=${types}`)).map((event) => ({ type: event.type, data: event.data }));
const ids = (items: { id: string }[]) => items.map((item) => item.id);
const optionsUrl = (groupId: string) => `/menu/option-groups/${groupId}/options`;

describe('create, retrieve, change, delete', () => {
  test('a new option answers 201 with every field; defaults; last in its group without a position', async () => {
    const tenant = await makeTenant(t.ctx);
    const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
    const other = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Sauces' });
    t.clock.advance(60_000);
    const res = await request(t, tenant.token, 'POST', optionsUrl(group.id), {
      name: ' Extra cheese ',
      price_delta: 150,
      external_id: 'opt-1',
    });
    assert.equal(res.statusCode, 201, res.body);
    const cheese = res.json();
    assert.deepEqual(cheese, {
      object: 'option',
      id: cheese.id,
      external_id: 'opt-1',
      group_id: group.id,
      name: 'Extra cheese',
      price_delta: 150,
      available: true,
      unavailable_until: null,
      position: 0,
      updated_at: now(),
    });
    const without = await ok(t, tenant.token, 'POST', optionsUrl(group.id), {
      name: 'No onions',
      price_delta: -30,
      available: false,
    });
    assert.deepEqual([without.price_delta, without.available, without.position], [-30, false, 1]);
    // Positions count per group.
    assert.equal(
      (await ok(t, tenant.token, 'POST', optionsUrl(other.id), { name: 'Garlic', price_delta: 0 })).position,
      0,
    );
    const placed = await ok(t, tenant.token, 'POST', optionsUrl(group.id), {
      name: 'Olives',
      price_delta: 50,
      position: 8,
    });
    assert.equal(placed.position, 8);
    assert.equal(
      (await ok(t, tenant.token, 'POST', optionsUrl(group.id), { name: 'Ham', price_delta: 100 })).position,
      9,
    );
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/options/${cheese.id}`), cheese);
    // The group's updated_at stays (its own fields only).
    assert.deepEqual(
      (await ok(t, tenant.token, 'GET', `/menu/option-groups/${group.id}`)).updated_at,
      group.updated_at,
    );
  });

  test('PATCH changes only the sent fields; null clears external_id; group_id moves it; events carry changed and previous', async () => {
    const tenant = await makeTenant(t.ctx);
    const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
    const other = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Sauces' });
    const product = await ok(t, tenant.token, 'POST', '/menu/products', {
      name: 'Margherita',
      price: 950,
      option_group_ids: [group.id],
    });
    const created = await ok(t, tenant.token, 'POST', optionsUrl(group.id), {
      name: 'Cheese',
      price_delta: 150,
      external_id: 'o-1',
    });
    t.clock.advance(60_000);
    const cheaper = await ok(t, tenant.token, 'PATCH', `/menu/options/${created.id}`, {
      price_delta: -20,
      available: false,
    });
    assert.deepEqual(cheaper, { ...created, price_delta: -20, available: false, updated_at: now() });
    t.clock.advance(60_000);
    const moved = await ok(t, tenant.token, 'PATCH', `/menu/options/${created.id}`, {
      external_id: null,
      group_id: other.id,
      name: 'Mozzarella',
      position: 3,
    });
    assert.deepEqual(moved, {
      ...cheaper,
      external_id: null,
      group_id: other.id,
      name: 'Mozzarella',
      position: 3,
      updated_at: now(),
    });
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/options/${created.id}`), moved);
    assert.deepEqual((await ok(t, tenant.token, 'GET', `/menu/option-groups/${group.id}`)).options, []);
    assert.deepEqual((await ok(t, tenant.token, 'GET', `/menu/option-groups/${other.id}`)).options, [moved]);
    assert.deepEqual(await menuEvents(tenant.token, 'menu.option.*'), [
      { type: 'menu.option.created', data: { object: { ...created, external_id: null } } },
      {
        type: 'menu.option.updated',
        data: {
          object: { ...cheaper, external_id: null },
          changed: ['price_delta', 'available'],
          previous: { price_delta: 150, available: true },
        },
      },
      {
        type: 'menu.option.updated',
        data: {
          object: moved,
          changed: ['external_id', 'group_id', 'name', 'position'],
          previous: { external_id: null, group_id: group.id, name: 'Cheese', position: 0 },
        },
      },
    ]);
    // Options change neither the groups nor the products using them.
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`), product);
    assert.equal(
      (await ok(t, tenant.token, 'GET', `/menu/option-groups/${other.id}`)).updated_at,
      other.updated_at,
    );
  });

  test('a PATCH that changes nothing keeps updated_at and emits nothing', async () => {
    const tenant = await makeTenant(t.ctx);
    const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
    const created = await ok(t, tenant.token, 'POST', optionsUrl(group.id), {
      name: 'Cheese',
      price_delta: 150,
      external_id: 'same',
    });
    t.clock.advance(60_000);
    for (const body of [
      {},
      { name: ' Cheese ' },
      { external_id: 'same', group_id: group.id, price_delta: 150, available: true, position: 0 },
    ]) {
      assert.deepEqual(await ok(t, tenant.token, 'PATCH', `/menu/options/${created.id}`, body), created);
    }
    assert.deepEqual(
      (await menuEvents(tenant.token, 'menu.option.*')).map((event) => event.type),
      ['menu.option.created'],
    );
  });

  test('DELETE answers {object, id, deleted} and emits menu.option.deleted with the option as it was', async () => {
    const tenant = await makeTenant(t.ctx);
    const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
    const option = await ok(t, tenant.token, 'POST', optionsUrl(group.id), {
      name: 'Cheese',
      price_delta: 1,
    });
    const keep = await ok(t, tenant.token, 'POST', optionsUrl(group.id), { name: 'Ham', price_delta: 2 });
    assert.deepEqual(await ok(t, tenant.token, 'DELETE', `/menu/options/${option.id}`), {
      object: 'option',
      id: option.id,
      deleted: true,
    });
    assertError(await request(t, tenant.token, 'GET', `/menu/options/${option.id}`), 404, 'not_found');
    assertError(await request(t, tenant.token, 'DELETE', `/menu/options/${option.id}`), 404, 'not_found');
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/option-groups/${group.id}`), {
      ...group,
      options: [keep],
    });
    assert.deepEqual((await menuEvents(tenant.token, 'menu.option.*')).at(-1), {
      type: 'menu.option.deleted',
      data: { object: option },
    });
  });
});

describe('external_id', () => {
  test('only the app that set it sees it; a value the app already uses for another option is 409 external_id_taken', async () => {
    const tenant = await makeTenant(t.ctx);
    const other = await connectAnotherApp(t.ctx, tenant);
    const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
    const mine = await ok(t, tenant.token, 'POST', optionsUrl(group.id), {
      name: 'A',
      price_delta: 1,
      external_id: 'taken',
    });
    const second = await ok(t, tenant.token, 'POST', optionsUrl(group.id), { name: 'B', price_delta: 1 });
    assert.equal((await ok(t, other.token, 'GET', `/menu/options/${mine.id}`)).external_id, null);
    assert.deepEqual((await ok(t, other.token, 'GET', '/menu/options?external_id=taken')).data, []);
    assert.deepEqual(ids((await ok(t, tenant.token, 'GET', '/menu/options?external_id=taken')).data), [
      mine.id,
    ]);
    assert.equal((await ok(t, other.token, 'GET', '/menu')).option_groups[0].options[0].external_id, null);
    assertError(
      await request(t, tenant.token, 'POST', optionsUrl(group.id), {
        name: 'C',
        price_delta: 1,
        external_id: 'taken',
      }),
      409,
      'external_id_taken',
      'external_id',
    );
    assertError(
      await request(t, tenant.token, 'PATCH', `/menu/options/${second.id}`, {
        external_id: 'taken',
        price_delta: 5,
      }),
      409,
      'external_id_taken',
      'external_id',
    );
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/options/${second.id}`), second);
    assert.equal((await ok(t, tenant.token, 'GET', '/menu/options')).data.length, 2);
    for (const event of await feedAll(t, tenant.token, '&types=menu.*'))
      assert.equal((event.data.object as { external_id: unknown }).external_id, null);
  });
});

describe('lists', () => {
  test('ascending updated_at across pages; filters external_id and updated_since; a cursor keeps its filters', async () => {
    const tenant = await makeTenant(t.ctx);
    const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
    const start = t.clock.now().getTime();
    const at = (minutes: number) => new Date(start + minutes * 60_000).toISOString();
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      made.push(
        (
          await ok(t, tenant.token, 'POST', optionsUrl(group.id), {
            name: `O${i}`,
            price_delta: i,
            external_id: `o-${i}`,
          })
        ).id,
      );
      t.clock.advance(60_000);
    }
    await ok(t, tenant.token, 'PATCH', `/menu/options/${made[0]}`, { available: false });
    const order = [...made.slice(1), made[0]];
    const first = await ok(t, tenant.token, 'GET', '/menu/options?limit=2');
    const second = await ok(t, tenant.token, 'GET', `/menu/options?limit=2&cursor=${first.next_cursor}`);
    const last = await ok(t, tenant.token, 'GET', `/menu/options?limit=2&cursor=${second.next_cursor}`);
    assert.deepEqual([first.has_more, last.has_more, last.next_cursor], [true, false, null]);
    assert.deepEqual(ids([...first.data, ...second.data, ...last.data]), order);
    assert.deepEqual(ids((await ok(t, tenant.token, 'GET', '/menu/options?external_id=o-2')).data), [
      made[2],
    ]);
    const since = await ok(t, tenant.token, 'GET', `/menu/options?updated_since=${at(2)}&limit=1`);
    assert.deepEqual(ids(since.data), [made[3]]);
    const more = await ok(
      t,
      tenant.token,
      'GET',
      `/menu/options?updated_since=${at(2)}&cursor=${since.next_cursor}`,
    );
    assert.deepEqual(ids(more.data), [made[4], made[0]]);
    assertError(
      await request(t, tenant.token, 'GET', `/menu/options?cursor=${since.next_cursor}`),
      400,
      'invalid_request',
      'cursor',
    );
    for (const query of ['updated_since=yesterday', 'external_id=x%20', 'group_id=x', 'available=true']) {
      assertError(
        await request(t, tenant.token, 'GET', `/menu/options?${query}`),
        400,
        'invalid_request',
        query.split('=')[0],
      );
    }
  });
});

describe('refused input changes nothing', () => {
  test('fields out of the rules are 400 naming the field, on create and change', async () => {
    const tenant = await makeTenant(t.ctx);
    const stranger = await makeTenant(t.ctx);
    const theirGroup = await ok(t, stranger.token, 'POST', '/menu/option-groups', { name: 'Theirs' });
    const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
    const created = await ok(t, tenant.token, 'POST', optionsUrl(group.id), {
      name: 'Cheese',
      price_delta: 150,
      external_id: 'ok',
    });
    const bad: [Record<string, unknown>, string, ('POST' | 'PATCH')[]][] = [
      [{ name: 'x'.repeat(121) }, 'name', ['POST', 'PATCH']],
      [{ name: ' ' }, 'name', ['POST', 'PATCH']],
      [{ name: 'a\nb' }, 'name', ['POST', 'PATCH']],
      [{ external_id: 'trail ' }, 'external_id', ['POST', 'PATCH']],
      [{ external_id: '' }, 'external_id', ['POST', 'PATCH']],
      [{ price_delta: 1.5 }, 'price_delta', ['POST', 'PATCH']],
      [{ price_delta: '150' }, 'price_delta', ['POST', 'PATCH']],
      [{ price_delta: null }, 'price_delta', ['POST', 'PATCH']],
      [{ price_delta: 100_000_001 }, 'price_delta', ['POST', 'PATCH']],
      [{ price_delta: -100_000_001 }, 'price_delta', ['POST', 'PATCH']],
      [{ available: 'yes' }, 'available', ['POST', 'PATCH']],
      [{ position: -1 }, 'position', ['POST', 'PATCH']],
      [{ colour: 'red' }, 'colour', ['POST', 'PATCH']],
      [{ group_id: group.id }, 'group_id', ['POST']],
      [{ group_id: theirGroup.id }, 'group_id', ['PATCH']],
      [{ group_id: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1d01' }, 'group_id', ['PATCH']],
      [{ group_id: 'extras' }, 'group_id', ['PATCH']],
    ];
    for (const [body, param, methods] of bad) {
      if (methods.includes('POST'))
        assertError(
          await request(t, tenant.token, 'POST', optionsUrl(group.id), {
            name: 'New',
            price_delta: 1,
            ...body,
          }),
          400,
          'invalid_request',
          param,
        );
      if (methods.includes('PATCH'))
        assertError(
          await request(t, tenant.token, 'PATCH', `/menu/options/${created.id}`, body),
          400,
          'invalid_request',
          param,
        );
    }
    assertError(
      await request(t, tenant.token, 'POST', optionsUrl(group.id), { name: 'No price' }),
      400,
      'invalid_request',
      'price_delta',
    );
    await ok(t, tenant.token, 'POST', optionsUrl(group.id), {
      name: '🧀'.repeat(120),
      price_delta: -100_000_000,
    });
    const options = (await ok(t, tenant.token, 'GET', `/menu/option-groups/${group.id}`)).options;
    assert.equal(options.length, 2);
    assert.deepEqual(options[0], created);
    assert.equal((await menuEvents(tenant.token, 'menu.option.*')).length, 2);
  });

  test('another restaurant’s option is 404 not_found; a malformed id is 400 on id', async () => {
    const tenant = await makeTenant(t.ctx);
    const stranger = await makeTenant(t.ctx);
    const group = await ok(t, stranger.token, 'POST', '/menu/option-groups', { name: 'Theirs' });
    const theirs = await ok(t, stranger.token, 'POST', optionsUrl(group.id), { name: 'O', price_delta: 1 });
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const body = method === 'PATCH' ? { name: 'Mine now' } : undefined;
      assertError(
        await request(t, tenant.token, method, `/menu/options/${theirs.id}`, body),
        404,
        'not_found',
      );
      assertError(
        await request(t, tenant.token, method, '/menu/options/not-a-uuid', body),
        400,
        'invalid_request',
        'id',
      );
    }
    assertError(
      await request(t, tenant.token, 'POST', optionsUrl('not-a-uuid'), { name: 'O', price_delta: 1 }),
      400,
      'invalid_request',
      'id',
    );
    assert.deepEqual(await ok(t, stranger.token, 'GET', `/menu/options/${theirs.id}`), theirs);
    assert.deepEqual((await ok(t, tenant.token, 'GET', '/menu/options')).data, []);
  });
});

describe('scopes', () => {
  test('menu:read reads but cannot write (403 insufficient_scope); without menu:read nothing is read', async () => {
    const tenant = await makeTenant(t.ctx);
    const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', { name: 'Extras' });
    const option = await ok(t, tenant.token, 'POST', optionsUrl(group.id), { name: 'O', price_delta: 1 });
    const reader = await tokenFor(t.ctx, tenant, ['menu:read']);
    const writer = await tokenFor(t.ctx, tenant, ['menu:write']);
    await ok(t, reader, 'GET', '/menu/options');
    await ok(t, reader, 'GET', `/menu/options/${option.id}`);
    for (const [method, body] of [
      ['PATCH', { name: 'New' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await request(t, reader, method, `/menu/options/${option.id}`, body);
      assertError(res, 403, 'insufficient_scope');
      assert.match(String(res.headers['www-authenticate']), /scope="menu:write"/);
    }
    for (const url of ['/menu/options', `/menu/options/${option.id}`])
      assertError(await request(t, writer, 'GET', url), 403, 'insufficient_scope');
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/options/${option.id}`), option);
  });
});
