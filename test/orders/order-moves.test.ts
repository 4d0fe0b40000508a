import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { connectAnotherApp, feedAll } from '../events/events-helpers.ts';
import { bearer, buildTestApp, call, developerSession, json, type TestApp } from '../harness.ts';
import { assertError, ok, request } from '../menu/menu-helpers.ts';
import { type OrderingTenant, orderingTenant, place } from './order-helpers.ts';

/*
 * What apps do to an order (spec: Order status; decisions.md, Orders): accept, reject, cancel and
 * advance along the statuses the restaurant uses, each move recorded as its event, and every
 * refused move changing nothing.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/** A restaurant taking orders, using these non-final statuses (set by its owner in the dashboard). */
async function restaurantUsing(statuses: string[] | null): Promise<OrderingTenant & { reader: string }> {
  const tenant = await orderingTenant(t);
  if (statuses !== null) {
    const cookie = await developerSession(t, tenant, 'dashboard');
    const res = await call(
      t.app,
      'PATCH',
      `/dashboard/api/restaurants/${tenant.restaurantId}/store`,
      cookie,
      {
        order_statuses: statuses,
      },
    );
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(json(res).order_statuses, [...statuses, 'completed', 'cancelled']);
  }
  // Another app's connection reads the orders before and after refused moves: requests are
  // counted per connection (120 a minute), and these tests make many.
  return { ...tenant, reader: (await connectAnotherApp(t.ctx, tenant)).token };
}

type OrderEvent = { type: string; data: { object: Record<string, unknown> } & Record<string, unknown> };

/** The order.* events of one order, oldest first, as recorded (the feed serves this data). */
async function eventsOf(tenant: OrderingTenant, id: string): Promise<OrderEvent[]> {
  const rows = await t.database.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('tenant_id', '=', tenant.restaurantId)
    .where('type', 'like', 'order.%')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return (rows as OrderEvent[]).filter((event) => event.data.object.id === id);
}

/** A move that must succeed, a second after the last: the order it answers with. */
async function move(tenant: OrderingTenant, id: string, action: string, body: unknown = {}) {
  t.clock.advance(1000);
  return ok(t, tenant.token, 'POST', `/orders/${id}/${action}`, body, 200);
}

/** Sends a move that must be refused; the order and its events are as they were before. */
async function refused(
  tenant: OrderingTenant & { reader: string },
  id: string,
  action: string,
  body: unknown,
  check: (res: LightMyRequestResponse) => void,
): Promise<void> {
  const before = await ok(t, tenant.reader, 'GET', `/orders/${id}`);
  const eventsBefore = await eventsOf(tenant, id);
  t.clock.advance(1000);
  check(await request(t, tenant.token, 'POST', `/orders/${id}/${action}`, body));
  assert.deepEqual(await ok(t, tenant.reader, 'GET', `/orders/${id}`), before);
  assert.deepEqual(await eventsOf(tenant, id), eventsBefore);
}

const invalidTransition = (res: LightMyRequestResponse) => assertError(res, 409, 'invalid_transition');

describe('a restaurant using every status', () => {
  let tenant: OrderingTenant & { reader: string };
  before(async () => {
    tenant = await restaurantUsing(null);
  });

  it('accept and advance take a request without any body, as with {}', async () => {
    const { order } = await place(t, tenant);
    for (const [action, status] of [
      ['accept', 'confirmed'],
      ['advance', 'preparing'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/orders/${order.id}/${action}`,
        headers: bearer(tenant.token),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).status, status);
    }
  });

  it('accept: pending → confirmed with order.status_changed; the event shows the change, no app’s fields', async () => {
    const { order } = await place(t, tenant);
    assert.equal(order.status, 'pending');
    await ok(t, tenant.token, 'POST', `/orders/${order.id}/acknowledge`, { external_id: 'M-1' }, 200);
    const accepted = await move(tenant, order.id, 'accept', { prep_minutes: 240 });
    assert.equal(accepted.status, 'confirmed');
    assert.equal(accepted.updated_at, t.clock.now().toISOString());
    assert.equal(accepted.estimated_ready_at, new Date(t.clock.now().getTime() + 240 * 60_000).toISOString());
    assert.equal(accepted.external_id, 'M-1');
    const [created, changed] = await eventsOf(tenant, order.id);
    assert.equal(created?.type, 'order.created');
    assert.equal(changed?.type, 'order.status_changed');
    assert.equal(changed?.data.previous_status, 'pending');
    assert.equal(changed?.data.object.status, 'confirmed');
    assert.equal(changed?.data.object.updated_at, accepted.updated_at);
    assert.equal(changed?.data.object.estimated_ready_at, accepted.estimated_ready_at);
    assert.equal(changed?.data.object.external_id, null);
    assert.equal(changed?.data.object.acknowledged_at, null);
    const served = (await feedAll(t, tenant.token, '&types=order.status_changed')).find(
      (event) => event.data.object.id === order.id,
    );
    assert.deepEqual(served?.data, changed?.data);
  });

  it('accept on an order past pending: 200 unchanged, no event; prep_minutes then changes nothing', async () => {
    const { order } = await place(t, tenant);
    await move(tenant, order.id, 'accept');
    const preparing = await move(tenant, order.id, 'advance');
    assert.equal(preparing.status, 'preparing');
    const events = await eventsOf(tenant, order.id);
    const again = await move(tenant, order.id, 'accept', { prep_minutes: 10 });
    assert.deepEqual(again, preparing);
    assert.equal((await eventsOf(tenant, order.id)).length, events.length);
  });

  it('advance: without status to the next in use, after the last to completed; with it, forward only', async () => {
    const { order } = await place(t, tenant);
    const steps = [];
    for (let i = 0; i < 4; i += 1) steps.push((await move(tenant, order.id, 'advance')).status);
    assert.deepEqual(steps, ['confirmed', 'preparing', 'ready', 'completed']);
    const events = await eventsOf(tenant, order.id);
    assert.deepEqual(
      events.slice(1).map((event) => [event.type, event.data.previous_status, event.data.object.status]),
      [
        ['order.status_changed', 'pending', 'confirmed'],
        ['order.status_changed', 'confirmed', 'preparing'],
        ['order.status_changed', 'preparing', 'ready'],
        ['order.status_changed', 'ready', 'completed'],
      ],
    );
    const { order: skipping } = await place(t, tenant);
    assert.equal((await move(tenant, skipping.id, 'advance', { status: 'ready' })).status, 'ready');
    await refused(tenant, skipping.id, 'advance', { status: 'preparing' }, invalidTransition);
    await refused(tenant, skipping.id, 'advance', { status: 'ready' }, invalidTransition);
    await refused(tenant, skipping.id, 'advance', { status: 'pending' }, invalidTransition);
    assert.equal((await move(tenant, skipping.id, 'advance', { status: 'completed' })).status, 'completed');
  });

  it('completed and cancelled are final: accept, advance, reject and cancel are 409, changing nothing', async () => {
    const { order: done } = await place(t, tenant);
    await move(tenant, done.id, 'advance', { status: 'completed' });
    const { order: cancelled } = await place(t, tenant);
    await move(tenant, cancelled.id, 'cancel');
    for (const id of [done.id, cancelled.id]) {
      await refused(tenant, id, 'accept', {}, invalidTransition);
      await refused(tenant, id, 'advance', {}, invalidTransition);
      await refused(tenant, id, 'advance', { status: 'completed' }, invalidTransition);
      await refused(tenant, id, 'reject', {}, invalidTransition);
      await refused(tenant, id, 'cancel', { reason: 'again' }, invalidTransition);
    }
  });

  it('reject: only a pending order, to cancelled, with order.cancelled carrying previous_status and reason', async () => {
    const { order } = await place(t, tenant);
    const rejected = await move(tenant, order.id, 'reject', { reason: 'Kitchen closed early.' });
    assert.equal(rejected.status, 'cancelled');
    assert.deepEqual(rejected.cancellation, { reason: 'Kitchen closed early.', by: 'app' });
    const event = (await eventsOf(tenant, order.id)).at(-1);
    assert.equal(event?.type, 'order.cancelled');
    assert.equal(event?.data.previous_status, 'pending');
    assert.equal(event?.data.reason, 'Kitchen closed early.');
    assert.equal(event?.data.object.status, 'cancelled');
    assert.equal(event?.data.object.updated_at, rejected.updated_at);
    assert.deepEqual(event?.data.object.cancellation, { reason: 'Kitchen closed early.', by: 'app' });

    const { order: confirmed } = await place(t, tenant);
    await move(tenant, confirmed.id, 'accept');
    await refused(tenant, confirmed.id, 'reject', { reason: 'too late' }, invalidTransition);
    const { order: noReason } = await place(t, tenant);
    assert.deepEqual((await move(tenant, noReason.id, 'reject', {})).cancellation, {
      reason: null,
      by: 'app',
    });
    assert.equal((await eventsOf(tenant, noReason.id)).at(-1)?.data.reason, null);
  });

  it('cancel: from every status that is not final, reporting the status it left', async () => {
    for (const steps of [0, 1, 2, 3]) {
      const { order } = await place(t, tenant);
      for (let i = 0; i < steps; i += 1) await move(tenant, order.id, 'advance');
      const from = (await ok(t, tenant.reader, 'GET', `/orders/${order.id}`)).status;
      const cancelled = await move(tenant, order.id, 'cancel', { reason: `from ${from}` });
      assert.equal(cancelled.status, 'cancelled');
      assert.deepEqual(cancelled.cancellation, { reason: `from ${from}`, by: 'app' });
      const event = (await eventsOf(tenant, order.id)).at(-1);
      assert.equal(event?.type, 'order.cancelled');
      assert.equal(event?.data.previous_status, from);
      assert.equal(event?.data.reason, `from ${from}`);
      assert.equal(event?.data.object.updated_at, cancelled.updated_at);
    }
  });

  it('refuses bad input with 400 on its param: status cancelled, a long reason, prep_minutes out of range', async () => {
    const { order } = await place(t, tenant);
    const bad = (param: string) => (res: LightMyRequestResponse) =>
      assertError(res, 400, 'invalid_request', param);
    await refused(tenant, order.id, 'advance', { status: 'cancelled' }, bad('status'));
    await refused(tenant, order.id, 'advance', { status: 'done' }, bad('status'));
    await refused(tenant, order.id, 'cancel', { reason: 'x'.repeat(201) }, bad('reason'));
    await refused(tenant, order.id, 'reject', { reason: 'x'.repeat(201) }, bad('reason'));
    await refused(tenant, order.id, 'accept', { prep_minutes: 0 }, bad('prep_minutes'));
    await refused(tenant, order.id, 'accept', { prep_minutes: 241 }, bad('prep_minutes'));
    await refused(tenant, order.id, 'accept', { prep_minutes: 1.5 }, bad('prep_minutes'));
    await refused(tenant, order.id, 'accept', { note: 'x' }, bad('note'));
    const longest = 'x'.repeat(200);
    assert.deepEqual((await move(tenant, order.id, 'cancel', { reason: longest })).cancellation, {
      reason: longest,
      by: 'app',
    });
  });
});

describe('a restaurant that skips confirmed', () => {
  let tenant: OrderingTenant & { reader: string };
  before(async () => {
    tenant = await restaurantUsing(['pending', 'preparing', 'ready']);
  });

  it('accept moves a pending order to preparing, the next status in use', async () => {
    const { order } = await place(t, tenant);
    assert.equal(order.status, 'pending');
    const accepted = await move(tenant, order.id, 'accept');
    assert.equal(accepted.status, 'preparing');
    const event = (await eventsOf(tenant, order.id)).at(-1);
    assert.equal(event?.data.previous_status, 'pending');
    assert.equal(event?.data.object.status, 'preparing');
  });

  it('advance skips it too, and a move to it is 409 stage_not_used, changing nothing', async () => {
    const { order } = await place(t, tenant);
    const stageNotUsed = (res: LightMyRequestResponse) => assertError(res, 409, 'stage_not_used', 'status');
    await refused(tenant, order.id, 'advance', { status: 'confirmed' }, stageNotUsed);
    assert.equal((await move(tenant, order.id, 'advance')).status, 'preparing');
    assert.equal((await move(tenant, order.id, 'advance')).status, 'ready');
    await refused(tenant, order.id, 'advance', { status: 'preparing' }, invalidTransition);
    assert.equal((await move(tenant, order.id, 'advance')).status, 'completed');
  });
});

describe('a restaurant without pending (orders taken automatically)', () => {
  let tenant: OrderingTenant & { reader: string };
  before(async () => {
    tenant = await restaurantUsing(['confirmed', 'ready']);
  });

  it('starts a new order in its first status; accept is then 200 unchanged with no event', async () => {
    const { order } = await place(t, tenant);
    assert.equal(order.status, 'confirmed');
    const read = await ok(t, tenant.reader, 'GET', `/orders/${order.id}`);
    assert.equal(read.status, 'confirmed');
    assert.deepEqual(await move(tenant, order.id, 'accept'), read);
    assert.deepEqual(
      (await eventsOf(tenant, order.id)).map((event) => event.type),
      ['order.created'],
    );
    assert.equal((await eventsOf(tenant, order.id))[0]?.data.object.status, 'confirmed');
    await refused(tenant, order.id, 'reject', {}, invalidTransition);
    await refused(tenant, order.id, 'advance', { status: 'preparing' }, (res) =>
      assertError(res, 409, 'stage_not_used', 'status'),
    );
    assert.equal((await move(tenant, order.id, 'advance')).status, 'ready');
    assert.equal((await move(tenant, order.id, 'advance')).status, 'completed');
  });
});

describe('a restaurant using pending alone', () => {
  it('accept completes the order: completed follows the last status in use', async () => {
    const tenant = await restaurantUsing(['pending']);
    const { order } = await place(t, tenant);
    assert.equal((await move(tenant, order.id, 'accept')).status, 'completed');
    const { order: next } = await place(t, tenant);
    assert.equal((await move(tenant, next.id, 'advance')).status, 'completed');
  });
});
