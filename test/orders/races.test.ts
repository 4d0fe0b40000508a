import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectAnotherApp } from '../events/events-helpers.ts';
import { buildTestApp, json, type TestApp } from '../harness.ts';
import { assertError, ok, request } from '../menu/menu-helpers.ts';
import {
  guest,
  type OrderingTenant,
  orderingTenant,
  pickupOrder,
  place,
  setGuestLimit,
} from './order-helpers.ts';

/*
 * Orders under concurrent writes, on PostgreSQL (PGlite has one connection, so nothing there runs
 * at once). Each race is run 20 times and must end in exactly one consistent outcome every time:
 * - the restaurant cancelling while an app accepts: the moves take turns on the order's row, and
 *   the events tell the same story as the answers;
 * - reject and accept at once: exactly one of them wins;
 * - one app acknowledging two orders with the same external_id at once: one 200, one 409;
 * - a payment confirmation delivered twice at once: one order.created and one order.paid.
 */

const rounds = 20;

describe('order races (PostgreSQL)', { skip: !process.env.DATABASE_URL }, () => {
  let t: TestApp;
  let tenant: OrderingTenant;
  /** Another app connected to the restaurant: the one cancelling while the first accepts. */
  let restaurant: OrderingTenant;
  /** A third connection reading the outcome (requests are counted per connection). */
  let reader: OrderingTenant;
  before(async () => {
    t = await buildTestApp();
    tenant = await orderingTenant(t);
    // The races place their orders faster than guests would: the restaurant's guest limit at its
    // most (docs/storefront.md, Limits).
    await setGuestLimit(t, tenant, 1000);
    restaurant = { ...tenant, ...(await connectAnotherApp(t.ctx, tenant)) };
    reader = { ...tenant, ...(await connectAnotherApp(t.ctx, tenant)) };
  });
  after(() => t?.close());

  /** The order.* events of one order as recorded, oldest first: [type, previous_status, object.status]. */
  async function story(id: string): Promise<unknown[][]> {
    const rows = await t.database.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('tenant_id', '=', tenant.restaurantId)
      .where('type', 'like', 'order.%')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows
      .filter((row) => (row.data.object as { id: string }).id === id)
      .map((row) => [
        row.type,
        row.data.previous_status ?? null,
        (row.data.object as { status: string }).status,
      ]);
  }

  it('the restaurant cancels while an app accepts: both take turns, the order ends cancelled', async () => {
    for (let round = 0; round < rounds; round += 1) {
      const { order } = await place(t, tenant);
      const [accepted, cancelled] = await Promise.all([
        request(t, tenant.token, 'POST', `/orders/${order.id}/accept`, {}),
        request(t, restaurant.token, 'POST', `/orders/${order.id}/cancel`, { reason: 'Closing now.' }),
      ]);
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.equal(json(cancelled).status, 'cancelled');
      const final = await ok(t, reader.token, 'GET', `/orders/${order.id}`);
      assert.equal(final.status, 'cancelled');
      assert.deepEqual(final.cancellation, { reason: 'Closing now.', by: 'app' });
      if (accepted.statusCode === 200) {
        // The accept came first: the cancel found the order confirmed.
        assert.equal(json(accepted).status, 'confirmed');
        assert.deepEqual(await story(order.id), [
          ['order.created', null, 'pending'],
          ['order.status_changed', 'pending', 'confirmed'],
          ['order.cancelled', 'confirmed', 'cancelled'],
        ]);
      } else {
        // The cancel came first: the accept found a final order.
        assertError(accepted, 409, 'invalid_transition');
        assert.deepEqual(await story(order.id), [
          ['order.created', null, 'pending'],
          ['order.cancelled', 'pending', 'cancelled'],
        ]);
      }
    }
  });

  it('reject and accept at once: exactly one wins, the other is 409 invalid_transition', async () => {
    for (let round = 0; round < rounds; round += 1) {
      const { order } = await place(t, tenant);
      const [accepted, rejected] = await Promise.all([
        request(t, tenant.token, 'POST', `/orders/${order.id}/accept`, {}),
        request(t, restaurant.token, 'POST', `/orders/${order.id}/reject`, { reason: 'Too busy.' }),
      ]);
      const final = await ok(t, reader.token, 'GET', `/orders/${order.id}`);
      if (accepted.statusCode === 200) {
        assertError(rejected, 409, 'invalid_transition');
        assert.equal(final.status, 'confirmed');
        assert.deepEqual(await story(order.id), [
          ['order.created', null, 'pending'],
          ['order.status_changed', 'pending', 'confirmed'],
        ]);
      } else {
        assertError(accepted, 409, 'invalid_transition');
        assert.equal(rejected.statusCode, 200, rejected.body);
        assert.equal(final.status, 'cancelled');
        assert.deepEqual(await story(order.id), [
          ['order.created', null, 'pending'],
          ['order.cancelled', 'pending', 'cancelled'],
        ]);
      }
    }
  });

  it('one app acknowledges two orders with the same external_id at once: one 200, one 409 external_id_taken', async () => {
    const app = { ...tenant, ...(await connectAnotherApp(t.ctx, tenant)) };
    for (let round = 0; round < rounds; round += 1) {
      const [{ order: first }, { order: second }] = [await place(t, tenant), await place(t, tenant)];
      const externalId = `RACE-${round}`;
      const answers = await Promise.all(
        [first, second].map((order) =>
          request(t, app.token, 'POST', `/orders/${order.id}/acknowledge`, { external_id: externalId }),
        ),
      );
      const winners = answers.filter((res) => res.statusCode === 200);
      const losers = answers.filter((res) => res.statusCode !== 200);
      assert.equal(winners.length, 1, answers.map((res) => res.body).join('\n'));
      assert.equal(losers.length, 1);
      assertError(losers[0] as (typeof answers)[number], 409, 'external_id_taken', 'external_id');
      const listed = await ok(t, app.token, 'GET', `/orders?external_id=${externalId}`);
      assert.deepEqual(
        listed.data.map((order: { id: string }) => order.id),
        [json(winners[0] as (typeof answers)[number]).id],
      );
    }
  });

  it('a payment confirmation delivered twice at once: one order.created and one order.paid', async () => {
    for (let round = 0; round < rounds; round += 1) {
      const placed = await place(t, tenant, pickupOrder(tenant, { payment_method: 'online' }));
      const started = await guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment`);
      assert.equal(started.statusCode, 200, started.body);
      const answers = await Promise.all(
        [1, 2].map(() =>
          guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment/test`, { outcome: 'succeeded' }),
        ),
      );
      for (const res of answers) {
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(json(res).payment.status, 'paid');
      }
      assert.deepEqual(await story(placed.order.id), [
        ['order.created', null, 'pending'],
        ['order.paid', null, 'pending'],
      ]);
    }
    const paid = await ok(t, reader.token, 'GET', '/orders?paid=true&limit=100');
    assert.equal(paid.data.length, rounds);
  });
});
