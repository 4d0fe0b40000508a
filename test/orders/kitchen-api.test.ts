import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { scopes } from '../../src/domain/shared/scopes.ts';
import {
  buildTestApp,
  call,
  developerSession,
  json,
  newAccount,
  signInTo,
  type TestApp,
  tokenFor,
} from '../harness.ts';
import { assertError, ok } from '../menu/menu-helpers.ts';
import { hangCatcherMs, settled } from '../waiting.ts';
import { type OrderingTenant, orderingTenant, pickupOrder, place } from './order-helpers.ts';

/*
 * The order board in the dashboard's JSON API (src/http/dashboard/orders.route.ts): the board
 * lists the restaurant's current orders; owners and staff move them with the public API's state
 * machine and events (a cancellation by the restaurant); other restaurants' orders and people
 * are refused; a reason over 200 characters is 400; the stream announces a new order.
 */
let t: TestApp;
let tenant: OrderingTenant;
let other: OrderingTenant;
let owner: string;
let staff: string;
let otherStaff: string;

async function staffOf(restaurantId: string): Promise<string> {
  const account = await newAccount(t, false);
  await t.database.db
    .insertInto('restaurant_members')
    .values({ tenant_id: restaurantId, account_id: account.id, role: 'staff' })
    .execute();
  return signInTo(t.app, 'dashboard', account.email);
}

before(async () => {
  t = await buildTestApp();
  tenant = await orderingTenant(t);
  other = await orderingTenant(t);
  owner = await developerSession(t, tenant, 'dashboard');
  staff = await staffOf(tenant.restaurantId);
  otherStaff = await staffOf(other.restaurantId);
});
after(() => t.close());

const boardUrl = (restaurant: OrderingTenant = tenant) =>
  `/dashboard/api/restaurants/${restaurant.restaurantId}/orders`;

async function board(cookie: string = owner) {
  const res = await call(t.app, 'GET', boardUrl(), cookie);
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

async function move(cookie: string, id: string, action: string, body: unknown = {}) {
  const res = await call(t.app, 'POST', `${boardUrl()}/${id}/${action}`, cookie, body);
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

/** The order events of one order as recorded: type, data (the order without its own times) and who acted. */
async function eventsOf(orderId: string) {
  const rows = await t.database.db
    .selectFrom('events')
    .select(['type', 'data', 'actor'])
    .where('tenant_id', '=', tenant.restaurantId)
    .where('type', 'like', 'order.%')
    .where(sql`data -> 'object' ->> 'id'`, '=', orderId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => row as { type: string; data: Record<string, unknown>; actor: { kind: string } });
}

describe('the order board', () => {
  it('lists current orders oldest first, recently final ones too, with the statuses in use and busy mode', async () => {
    const first = await place(t, tenant);
    const unpaid = await place(t, tenant, pickupOrder(tenant, { payment_method: 'online' }));
    const gone = await place(t, tenant);
    await ok(t, tenant.token, 'POST', `/orders/${gone.order.id}/cancel`, { reason: 'Closed early' }, 200);

    for (const cookie of [owner, staff]) {
      const shown = await board(cookie);
      assert.equal(shown.object, 'order_board');
      assert.deepEqual(shown.order_statuses, [
        'pending',
        'confirmed',
        'preparing',
        'ready',
        'completed',
        'cancelled',
      ]);
      assert.equal(shown.busy, null);
      assert.equal(shown.timezone, 'Europe/Berlin');
      assert.equal(shown.currency, 'EUR');
      const ids = shown.orders.map((order: { id: string }) => order.id);
      assert.ok(ids.indexOf(first.order.id) < ids.indexOf(gone.order.id));
      assert.ok(!ids.includes(unpaid.order.id), 'an unpaid online order is on no board');
      const mine = shown.orders.find((order: { id: string }) => order.id === first.order.id);
      assert.deepEqual(mine, await ok(t, tenant.token, 'GET', `/orders/${first.order.id}`));
    }

    // Busy mode and the statuses in use come from the store settings.
    const until = new Date(t.clock.now().getTime() + 60 * 60_000).toISOString();
    const settings = await call(
      t.app,
      'PATCH',
      `/dashboard/api/restaurants/${tenant.restaurantId}/store`,
      owner,
      {
        busy: { extra_minutes: 30, until },
      },
    );
    assert.equal(settings.statusCode, 200, settings.body);
    assert.deepEqual((await board(staff)).busy, { extra_minutes: 30, until });

    // Three hours after its last change a final order leaves the board; the others stay.
    t.clock.advance(3 * 60 * 60_000 + 1000);
    const later = (await board()).orders.map((order: { id: string }) => order.id);
    assert.ok(later.includes(first.order.id));
    assert.ok(!later.includes(gone.order.id));
    assert.equal((await board()).busy, null, 'busy mode is over after its hour');
    // The apps' access tokens live an hour: new ones for the tests that follow.
    tenant.token = await tokenFor(t.ctx, tenant, scopes);
    other.token = await tokenFor(t.ctx, other, scopes);
  });

  it('its version changes with an order’s move and with the statuses in use', async () => {
    const placed = await place(t, tenant);
    const before = (await board()).version;
    assert.equal((await board()).version, before);
    await move(owner, placed.order.id, 'accept');
    const accepted = (await board()).version;
    assert.notEqual(accepted, before);
    t.clock.advance(1000);
    const settings = await call(
      t.app,
      'PATCH',
      `/dashboard/api/restaurants/${tenant.restaurantId}/store`,
      owner,
      {
        order_statuses: ['pending', 'preparing', 'ready'],
      },
    );
    assert.equal(settings.statusCode, 200, settings.body);
    const shown = await board();
    assert.notEqual(shown.version, accepted);
    assert.deepEqual(shown.order_statuses, ['pending', 'preparing', 'ready', 'completed', 'cancelled']);
    await call(t.app, 'PATCH', `/dashboard/api/restaurants/${tenant.restaurantId}/store`, owner, {
      order_statuses: ['pending', 'confirmed', 'preparing', 'ready'],
    });
  });
});

describe('moves by owners and staff', () => {
  it('accept with prep_minutes, advance, cancel with a reason: by owner and staff, cancellation by the restaurant', async () => {
    const { order } = await place(t, tenant);
    const accepted = await move(staff, order.id, 'accept', { prep_minutes: 25 });
    assert.equal(accepted.status, 'confirmed');
    assert.equal(new Date(accepted.estimated_ready_at).getTime(), t.clock.now().getTime() + 25 * 60_000);
    assert.equal(
      (await move(owner, order.id, 'accept')).status,
      'confirmed',
      'accepting again changes nothing',
    );
    assert.equal((await move(owner, order.id, 'advance')).status, 'preparing');
    assert.equal((await move(staff, order.id, 'advance', { status: 'ready' })).status, 'ready');
    const cancelled = await move(staff, order.id, 'cancel', { reason: 'Oven broke down' });
    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual(cancelled.cancellation, { reason: 'Oven broke down', by: 'restaurant' });
    const seen = await ok(t, tenant.token, 'GET', `/orders/${order.id}`);
    assert.deepEqual(seen.cancellation, { reason: 'Oven broke down', by: 'restaurant' });

    const rejected = await move(owner, (await place(t, tenant)).order.id, 'reject', { reason: 'Too busy' });
    assert.deepEqual(rejected.cancellation, { reason: 'Too busy', by: 'restaurant' });
  });

  it('records the same events as the public API’s moves, with the account as actor', async () => {
    const mine = (await place(t, tenant)).order.id;
    const apps = (await place(t, tenant)).order.id;
    await move(owner, mine, 'accept', { prep_minutes: 10 });
    await ok(t, tenant.token, 'POST', `/orders/${apps}/accept`, { prep_minutes: 10 }, 200);
    await move(staff, mine, 'advance');
    await ok(t, tenant.token, 'POST', `/orders/${apps}/advance`, {}, 200);
    await move(staff, mine, 'cancel', { reason: 'No gas' });
    await ok(t, tenant.token, 'POST', `/orders/${apps}/cancel`, { reason: 'No gas' }, 200);

    const ours = await eventsOf(mine);
    const theirs = await eventsOf(apps);
    const shape = (events: typeof ours) =>
      events.map(({ type, data }) => ({
        type,
        keys: Object.keys(data).sort(),
        previous_status: data.previous_status,
        reason: data.reason,
        status: (data.object as { status: string }).status,
      }));
    assert.deepEqual(shape(ours), shape(theirs));
    assert.deepEqual(
      ours.map((event) => event.type),
      ['order.created', 'order.status_changed', 'order.status_changed', 'order.cancelled'],
    );
    assert.deepEqual(
      ours.slice(1).map((event) => [event.actor.kind, (event.actor as { role?: string }).role]),
      [
        ['account', 'owner'],
        ['account', 'staff'],
        ['account', 'staff'],
      ],
    );
    const cancelledBy = (events: typeof ours) =>
      (events.at(-1)?.data.object as { cancellation: { by: string } } | undefined)?.cancellation.by;
    assert.equal(cancelledBy(ours), 'restaurant');
    assert.equal(cancelledBy(theirs), 'app');
  });

  it('refuses what the state machine refuses: 409 invalid_transition and stage_not_used, 400 advance to cancelled', async () => {
    const { order } = await place(t, tenant);
    const url = `${boardUrl()}/${order.id}`;
    assertError(
      await call(t.app, 'POST', `${url}/advance`, staff, { status: 'cancelled' }),
      400,
      'invalid_request',
      'status',
    );
    await move(owner, order.id, 'accept');
    assertError(await call(t.app, 'POST', `${url}/reject`, staff, {}), 409, 'invalid_transition');
    assertError(
      await call(t.app, 'POST', `${url}/advance`, staff, { status: 'pending' }),
      409,
      'invalid_transition',
    );
    await call(t.app, 'PATCH', `/dashboard/api/restaurants/${tenant.restaurantId}/store`, owner, {
      order_statuses: ['pending', 'confirmed', 'ready'],
    });
    assertError(
      await call(t.app, 'POST', `${url}/advance`, staff, { status: 'preparing' }),
      409,
      'stage_not_used',
      'status',
    );
    assert.equal((await move(staff, order.id, 'advance')).status, 'ready', 'the next status in use');
    await call(t.app, 'PATCH', `/dashboard/api/restaurants/${tenant.restaurantId}/store`, owner, {
      order_statuses: ['pending', 'confirmed', 'preparing', 'ready'],
    });
    await move(staff, order.id, 'advance');
    assertError(await call(t.app, 'POST', `${url}/cancel`, staff, {}), 409, 'invalid_transition');
  });

  it('a reason over 200 characters: 400 on reason, nothing changes', async () => {
    const { order } = await place(t, tenant);
    const before = await eventsOf(order.id);
    for (const action of ['cancel', 'reject'])
      assertError(
        await call(t.app, 'POST', `${boardUrl()}/${order.id}/${action}`, owner, { reason: 'x'.repeat(201) }),
        400,
        'invalid_request',
        'reason',
      );
    assert.equal((await ok(t, tenant.token, 'GET', `/orders/${order.id}`)).status, 'pending');
    assert.deepEqual(await eventsOf(order.id), before);
    assert.equal((await move(owner, order.id, 'cancel', { reason: 'x'.repeat(200) })).status, 'cancelled');
  });
});

describe('other restaurants', () => {
  it('another restaurant’s order under this restaurant: 404 not_found, unchanged', async () => {
    const { order } = await place(t, other);
    for (const action of ['accept', 'advance', 'cancel', 'reject'])
      assertError(
        await call(t.app, 'POST', `${boardUrl()}/${order.id}/${action}`, owner, {}),
        404,
        'not_found',
      );
    assert.equal((await ok(t, other.token, 'GET', `/orders/${order.id}`)).status, 'pending');
    assert.ok(!(await board()).orders.some((shown: { id: string }) => shown.id === order.id));
  });

  it('a staff member of another restaurant: 404 on the board, its stream and its moves', async () => {
    const { order } = await place(t, tenant);
    assertError(await call(t.app, 'GET', boardUrl(), otherStaff), 404, 'not_found');
    assertError(await call(t.app, 'GET', `${boardUrl()}/stream`, otherStaff), 404, 'not_found');
    for (const action of ['accept', 'advance', 'cancel', 'reject'])
      assertError(
        await call(t.app, 'POST', `${boardUrl()}/${order.id}/${action}`, otherStaff, {}),
        404,
        'not_found',
      );
    assert.equal((await ok(t, tenant.token, 'GET', `/orders/${order.id}`)).status, 'pending');
    assert.equal((await call(t.app, 'GET', boardUrl(other), otherStaff)).statusCode, 200);
  });
});

describe('the stream', () => {
  /** The `orders` events of an open stream, as they arrive. */
  function openStream(port: number, cookie: string) {
    const versions: string[] = [];
    const waiters: Array<() => void> = [];
    let response: IncomingMessage | undefined;
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path: `${boardUrl()}/stream`,
      headers: { cookie, accept: 'text/event-stream' },
    });
    const opened = new Promise<IncomingMessage>((resolve, reject) => {
      req.on('response', (res) => {
        response = res;
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end = buffer.indexOf('\n\n');
          while (end >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const lines = block.split('\n');
            if (lines.includes('event: orders'))
              versions.push(lines.find((line) => line.startsWith('data: '))?.slice(6) ?? '');
            for (const wake of waiters.splice(0)) wake();
            end = buffer.indexOf('\n\n');
          }
        });
        resolve(res);
      });
      req.on('error', reject);
    });
    req.end();
    /** Waits for the `count`th event. */
    const nth = async (count: number): Promise<string> => {
      while (versions.length < count)
        await settled(
          `event ${count} (got ${versions.length})`,
          new Promise<void>((resolve) => waiters.push(resolve)),
        );
      return versions[count - 1] as string;
    };
    return { opened, nth, close: () => (response ? response.destroy() : req.destroy()) };
  }

  it('sends the board’s version at once, then an event when a guest’s order arrives', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const stream = openStream(port, staff);
    const res = await stream.opened;
    try {
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/event-stream/);
      assert.equal(res.headers['cache-control'], 'no-store');
      const first = await stream.nth(1);
      assert.equal(first, (await board()).version);
      const { order } = await place(t, tenant);
      const second = await stream.nth(2);
      assert.notEqual(second, first);
      const shown = await board();
      assert.equal(second, shown.version);
      assert.ok(shown.orders.some((listed: { id: string }) => listed.id === order.id));
    } finally {
      stream.close();
    }
  });

  it('an open stream does not keep the app from closing', { timeout: hangCatcherMs }, async () => {
    const { port } = t.app.server.address() as AddressInfo;
    const stream = openStream(port, owner);
    await stream.opened;
    await stream.nth(1);
    // It closes at all: an open stream that held it would hold it until the hang-catcher.
    await settled('the app to close', t.app.close());
    stream.close();
  });
});
