import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simulateGuests } from '../../src/demo/guest-simulator.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { type OrderingTenant, orderingTenant } from './order-helpers.ts';

describe('the guest simulator of servery demo', () => {
  let t: TestApp;
  let tenant: OrderingTenant;
  let baseUrl: string;
  before(async () => {
    t = await buildTestApp();
    tenant = await orderingTenant(t);
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => t.close());

  it('orders through the guest API over HTTP, paying online ones with the test provider, and the app sees each', async () => {
    const lines: string[] = [];
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const placed = await simulateGuests({
      baseUrl,
      slug: tenant.slug,
      orders: 6,
      everyMs: 0,
      report: (line) => lines.push(line),
      random,
    });
    assert.equal(placed, 6, lines.join('\n'));
    assert.equal(lines.length, 6);
    assert.match(lines[0] ?? '', /^order 1\/6: [A-Z0-9]{4} (pickup|delivery)/);
    const orders = await ok(t, tenant.token, 'GET', '/orders?limit=100');
    assert.equal(orders.data.length, 6);
    const online = orders.data.filter(
      (order: { payment: { method: string } }) => order.payment.method === 'online',
    );
    assert.ok(online.length > 0, 'some guests paid online');
    for (const order of online) assert.equal(order.payment.status, 'paid');
  });

  it('orders pickups for the next opening while the restaurant is closed, where it takes preorders', async () => {
    // Open only on the weekday three days from now, 11:00 to 14:00 in Berlin.
    const weekday = (new Date(t.clock.now().getTime() + 3 * 86_400_000).getUTCDay() + 6) % 7;
    await ok(
      t,
      tenant.token,
      'PUT',
      '/store/hours',
      { always_open: false, opening_hours: [{ weekday, open: '11:00', close: '14:00' }] },
      200,
    );
    await ok(t, tenant.token, 'PATCH', '/store', { preorders: true }, 200);
    const { next_opening_at } = await ok(t, tenant.token, 'GET', '/store');
    const lines: string[] = [];
    const placed = await simulateGuests({
      baseUrl,
      slug: tenant.slug,
      orders: 2,
      everyMs: 0,
      report: (line) => lines.push(line),
    });
    assert.equal(placed, 2, lines.join('\n'));
    const { data } = await ok(t, tenant.token, 'GET', '/orders?limit=2');
    for (const order of data) {
      assert.equal(order.type, 'pickup');
      assert.equal(order.requested_for, new Date(Date.parse(next_opening_at) + 25 * 60_000).toISOString());
    }
  });
});
